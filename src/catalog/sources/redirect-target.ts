import { BlockList, isIP } from 'node:net';

/**
 * Link-local addresses, where cloud metadata services answer (169.254.169.254 and its IPv6 forms): a catalog
 * server's redirect must not make the tool read instance credentials and publish them as a catalog, or show them
 * in an error.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog']);

/** Why a redirect to `next` is not followed, or undefined when it may be. */
export function refusedRedirect(next: URL): string | undefined {
  if (next.protocol !== 'http:' && next.protocol !== 'https:') return `redirected to ${next.protocol} URL, which cannot be read`;
  const host = next.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const family = isIP(host);
  const linkLocal = family === 0 ? METADATA_NAMES.has(host) : LINK_LOCAL.check(host, family === 4 ? 'ipv4' : 'ipv6');
  return linkLocal ? `redirected to ${host}, a link-local address where cloud metadata services answer: not followed` : undefined;
}
