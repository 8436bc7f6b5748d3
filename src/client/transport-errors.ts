import { statSync } from 'node:fs';
import { isTlsCode } from './classify.js';

/** What a failed connection means in words, and what to do about it: error codes from Node, undici and TLS. */

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (/^E[A-Z_]+$/.test(code) || isTlsCode(code))) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
}

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS)',
  EAI_FAIL: 'host not found (DNS)',
  EAI_NONAME: 'host not found (DNS)',
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain ends in a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the issuer of the server's TLS certificate is not trusted",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name",
  EPROTO: 'the TLS handshake failed',
  ECONNRESET: 'connection reset',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  // undici asserts what HTTP/1.1 promises (a 101 names its Upgrade): an answer that breaks it fails one of them.
  ERR_ASSERTION: 'the answer breaks the HTTP/1.1 protocol',
};

export function describeCode(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  const text = CODE_TEXT[code] ?? (isTlsCode(code) ? 'TLS certificate or handshake error' : undefined);
  return text === undefined ? undefined : `${text} (${code})`;
}

/**
 * The server answered, but not in HTTP/1.1: another protocol at the port (SSH, TLS to a plain http base_url, a
 * database), or an answer that breaks HTTP's rules (undici asserts them). Not "cannot reach": it was reached.
 */
export function isNotHttp(error: unknown): boolean {
  return (error instanceof Error && error.name === 'HTTPParserError') || errorCode(error) === 'ERR_ASSERTION';
}

/** What to do about an answer that is not HTTP/1.1 from `origin`. */
export function notHttpHint(origin: string, error: unknown): string {
  if (errorCode(error) === 'ERR_ASSERTION') return 'check base_url: the server there (or a proxy in front of it) breaks HTTP/1.1';
  const tls = origin.startsWith('http:') ? '; if the service speaks https, base_url starts with https://' : '';
  return `another kind of server listens at this address: check the port of base_url${tls}`;
}

export function transportHint(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (code === 'ECONNREFUSED') return 'check base_url (host and port) and that the service is up';
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return 'check the host name in base_url, and DNS on this machine';
  if (isTlsCode(code)) return untrustedHint(process.env.NODE_EXTRA_CA_CERTS);
  return undefined;
}

/**
 * What to do about a certificate that is not trusted here. Node reads NODE_EXTRA_CA_CERTS once, at start-up, and a
 * file it cannot read only gets a warning: say which of the cases this is.
 */
function untrustedHint(extra: string | undefined): string {
  if (extra === undefined || extra === '') {
    return "the service's certificate is not trusted here: check base_url, or point NODE_EXTRA_CA_CERTS at the certificate of your private CA (or the service's own, when self-signed)";
  }
  const readable = (() => {
    try {
      return statSync(extra).isFile();
    } catch {
      return false;
    }
  })();
  return readable
    ? `NODE_EXTRA_CA_CERTS is set to ${extra}, but it does not hold the certificate of the CA that signed the service's (or the service's own, when self-signed): check base_url, or add that certificate to the file (PEM)`
    : `NODE_EXTRA_CA_CERTS is set to ${extra}, which cannot be read: point it at a PEM file holding the certificate of your private CA (or the service's own, when self-signed)`;
}
