import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { NameSetting } from '../errors.js';
import { isTlsCode } from './classify.js';
import { codeOf, codeText, describe, TRUST_FIX, type Check, type Hop } from './diagnose-check.js';
import type { ProxyRoute } from './endpoint.js';

/** The steps of a diagnosis below the request: the name resolves, a connection opens, the TLS handshake. */

/** A certificate that ends sooner than this is worth a warning. */
const CERT_WARN_DAYS = 14;

/** A promise that rejects with a timeout after `ms`, for steps that have no time limit of their own. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Where the connections go: the service, or the proxy. */
export function hopOf(url: URL, proxy: ProxyRoute | undefined): Hop {
  const target = proxy?.url ?? url;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const address = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return proxy === undefined ? { host, port, shown: address } : { host, port, shown: `the proxy ${address}`, proxyFrom: proxy.from };
}

export async function checkDns(hop: Hop, timeoutMs: number): Promise<Check> {
  if (isIP(hop.host) !== 0) return { name: 'DNS', status: 'ok', message: `${hop.host} is an IP address: nothing to resolve` };
  try {
    const addresses = await within(timeoutMs, lookup(hop.host, { all: true }), `DNS lookup of ${hop.host}`);
    const list = addresses.map((a) => a.address);
    const shown = list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
    return { name: 'DNS', status: 'ok', message: `${hop.host} resolves to ${shown}` };
  } catch (error) {
    const code = codeOf(error);
    const message = code === 'ENOTFOUND' || code === 'EAI_NONAME' ? `${hop.host} does not resolve (${code})` : `the DNS lookup of ${hop.host} failed: ${describe(error)}`;
    return { name: 'DNS', status: 'fail', kind: 'service', message, fix: 'check the host name in base_url (or in the proxy variable), and DNS on this machine' };
  }
}

export function checkConnect(hop: Hop, timeoutMs: number, name: NameSetting): Promise<Check> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket: Socket = tcpConnect({ host: hop.host, port: hop.port });
    const done = (check: Check): void => {
      socket.destroy();
      resolve(check);
    };
    socket.setTimeout(timeoutMs, () => {
      done({ name: 'connect', status: 'fail', kind: 'service', message: `no TCP connection to ${hop.shown} within ${timeoutMs} ms`, fix: 'check the host and port in base_url, and that no firewall drops the connection' });
    });
    socket.once('connect', () => {
      const ms = Math.round(performance.now() - started);
      done({ name: 'connect', status: 'ok', message: `TCP connection to ${hop.shown}${socket.remoteAddress && socket.remoteAddress !== hop.host ? ` (${socket.remoteAddress})` : ''} in ${ms} ms` });
    });
    socket.once('error', (error) => {
      const code = codeOf(error);
      const refused = code === 'ECONNREFUSED';
      done({
        name: 'connect',
        status: 'fail',
        kind: 'service',
        message: refused ? `connection refused by ${hop.shown} (ECONNREFUSED): nothing listens there` : `cannot connect to ${hop.shown}: ${describe(error)}`,
        fix:
          hop.proxyFrom !== undefined
            ? `check ${hop.proxyFrom}, or name the service's host in NO_PROXY to reach it directly`
            : refused
              ? `check the port in base_url, and that the service is up (a local sandbox: ${name('startSandbox')})`
              : 'check base_url, the network, and any firewall on the way',
      });
    });
  });
}

function certificateText(cert: PeerCertificate): { text: string; daysLeft: number | undefined } {
  // A field given twice in the certificate comes as an array.
  const field = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join('+') : value);
  const subject = field(cert.subject?.CN) ?? field(cert.subject?.O) ?? '(no subject)';
  const issuer = field(cert.issuer?.CN) ?? field(cert.issuer?.O);
  const validTo = cert.valid_to ? new Date(cert.valid_to) : undefined;
  const daysLeft = validTo === undefined || Number.isNaN(validTo.getTime()) ? undefined : Math.floor((validTo.getTime() - Date.now()) / 86_400_000);
  const until = validTo === undefined || daysLeft === undefined ? '' : `, valid until ${validTo.toISOString().slice(0, 10)} (${daysLeft} days)`;
  return { text: `certificate CN=${subject}${issuer === undefined ? '' : ` issued by ${issuer}`}${until}`, daysLeft };
}

export function checkTls(url: URL, hop: Hop, timeoutMs: number): Promise<Check> {
  return new Promise((resolve) => {
    const servername = isIP(hop.host) === 0 ? hop.host : undefined;
    // Not rejected here, so the certificate can be described; trust is judged from `authorized` below.
    const socket: TLSSocket = tlsConnect({ host: hop.host, port: hop.port, ...(servername === undefined ? {} : { servername }), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const done = (check: Check): void => {
      socket.destroy();
      resolve(check);
    };
    socket.setTimeout(timeoutMs, () => {
      done({ name: 'TLS', status: 'fail', kind: 'service', message: `no TLS handshake with ${hop.shown} within ${timeoutMs} ms`, fix: `check that ${url.host} serves https on this port` });
    });
    socket.once('secureConnect', () => {
      const { text, daysLeft } = certificateText(socket.getPeerCertificate());
      const protocol = socket.getProtocol() ?? 'TLS';
      if (!socket.authorized) {
        const code = String(socket.authorizationError ?? 'UNTRUSTED');
        const reason = codeText(code) ?? `the certificate is not trusted (${code})`;
        done({ name: 'TLS', status: 'fail', kind: 'service', message: `${reason}: ${text}`, fix: TRUST_FIX });
      } else if (daysLeft !== undefined && daysLeft < CERT_WARN_DAYS) {
        done({ name: 'TLS', status: 'warn', message: `${protocol}, ${text}: it expires soon`, fix: "tell the service's operators; runs will fail once it has expired" });
      } else {
        done({ name: 'TLS', status: 'ok', message: `${protocol}, ${text}` });
      }
    });
    socket.once('error', (error: Error) => {
      const code = codeOf(error);
      const plain = code === 'EPROTO' || code === 'ECONNRESET' || error.message.includes('wrong version number');
      done({
        name: 'TLS',
        status: 'fail',
        kind: 'service',
        message: `TLS handshake with ${hop.shown} failed: ${describe(error)}`,
        fix: plain ? `does ${url.host} speak plain http? then base_url starts with http://` : code !== undefined && isTlsCode(code) ? TRUST_FIX : 'check base_url',
      });
    });
  });
}
