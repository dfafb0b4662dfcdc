/**
 * Where webhooks may go (SSRF): http(s) only, and never to loopback, private, link-local, shared, multicast,
 * reserved or cloud-metadata addresses. Names are resolved at every delivery and the connection is pinned to the
 * address that was checked, so a name that re-resolves elsewhere (DNS rebinding) cannot slip through.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address); // IPv4-mapped IPv6 is its IPv4 address
  const ip = mapped ? mapped[1] : address;
  const family = net.isIP(ip);
  if (!family) return false;
  return !blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as DNS and `net` want it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Whether a subscription URL is acceptable at all: http(s), a host, no credentials, no private literal address. */
export function acceptableUrl(text: string, allowPrivate: boolean): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname || url.username || url.password) return undefined;
  const host = hostOf(url);
  if (!allowPrivate && net.isIP(host) && !isPublicAddress(host)) return undefined;
  return url;
}

export class RefusedAddress extends Error {}

/** The address to connect to: every address the name has must be public (unless allowed), else RefusedAddress. */
export async function resolveAllowed(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const host = hostOf(url);
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true });
  if (!addresses.length) throw new RefusedAddress(`${host} has no address`);
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused && !allowPrivate)
    throw new RefusedAddress(`refused: ${host} resolves to the non-public address ${refused.address}`);
  return addresses[0];
}
