import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True when `host` names this machine's loopback interface only (`localhost`, 127.0.0.0/8, `::1`, an IPv4 loopback
 * mapped into IPv6): nothing from another machine can reach a listener there. Any other name counts as reachable
 * from outside, whatever it resolves to.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost') return true;
  const version = isIP(name);
  return version !== 0 && LOOPBACK.check(name, version === 4 ? 'ipv4' : 'ipv6');
}
