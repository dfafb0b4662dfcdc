/**
 * Which IP addresses the service may connect to on someone else's say-so (an import URL, a webhook URL): the one
 * address policy against SSRF (D62). Pure: no I/O, `net` only parses. An address is public when it is in no block
 * of the IANA IPv4 and IPv6 Special-Purpose Address Registries, transcribed in full below, and, for IPv6, in the
 * global unicast space 2000::/3 (the IANA IPv6 Address Space registry: everything else is reserved, unique-local,
 * link-local, the deprecated site-local fec0::/10 or multicast).
 */
import net from 'node:net';

/** IANA IPv4 Special-Purpose Address Registry (RFC 6890 and its updates), every entry, and multicast 224.0.0.0/4. */
const IPV4_SPECIAL: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network" (0.0.0.0/32 "this host" within)
  ['10.0.0.0', 8], // private-use
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private-use
  ['192.0.0.0', 24], // IETF protocol assignments (192.0.0.0/29, .8, .9, .10, .170, .171 within)
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private-use
  ['192.175.48.0', 24], // direct delegation AS112 service
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast (IANA IPv4 Multicast Address Space Registry)
  ['240.0.0.0', 4], // reserved (255.255.255.255/32 limited broadcast within)
];

/**
 * IANA IPv6 Special-Purpose Address Registry, every entry. The two embeddings that reach an IPv4 host through
 * this machine or a NAT64 gateway (IPv4-mapped ::ffff:0:0/96, the NAT64 well-known prefix 64:ff9b::/96) are judged
 * by the IPv4 address they carry instead (`EMBEDDINGS`); every other embedding is refused: IPv4-compatible ::/96 and
 * IPv4-translated ::ffff:0:0:0/96 lie outside 2000::/3, and 64:ff9b:1::/48, 6to4 and Teredo are listed here.
 */
const IPV6_SPECIAL: Array<[string, number]> = [
  ['::1', 128], // loopback
  ['::', 128], // unspecified
  ['::ffff:0:0', 96], // IPv4-mapped (judged by EMBEDDINGS)
  ['64:ff9b::', 96], // IPv4-IPv6 translation, well-known prefix (judged by EMBEDDINGS)
  ['64:ff9b:1::', 48], // IPv4-IPv6 translation, local use
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy IPv6 prefix
  ['2001::', 23], // IETF protocol assignments (all of the 2001::/23 entries within)
  ['2001::', 32], // Teredo
  ['2001:2::', 48], // benchmarking
  ['2001:3::', 32], // AMT
  ['2001:4:112::', 48], // AS112-v6
  ['2001:10::', 28], // deprecated ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:30::', 28], // drone remote ID protocol entity tags
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // direct delegation AS112 service
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
];

/** The IPv6 prefixes (/96) whose last 32 bits are an IPv4 address that a connection actually reaches. */
const EMBEDDINGS = ['::ffff:', '64:ff9b::'];

function blockList(entries: Array<[string, number]>, type: 'ipv4' | 'ipv6'): net.BlockList {
  const list = new net.BlockList();
  for (const [network, prefix] of entries) list.addSubnet(network, prefix, type);
  return list;
}

const special4 = blockList(IPV4_SPECIAL, 'ipv4');
const special6 = blockList(IPV6_SPECIAL, 'ipv6');
const global6 = blockList([['2000::', 3]], 'ipv6');
const embedding = blockList(
  EMBEDDINGS.map((prefix) => [`${prefix}0.0.0.0`, 96]),
  'ipv6',
);
// each IPv4 block again inside each embedding (::ffff:127.0.0.0/104, …), so that one lookup judges the IPv4 address
// an embedding carries, whether written dotted or in hex; kept apart from IPv4 lists (a BlockList matches across)
const embeddedSpecial = blockList(
  EMBEDDINGS.flatMap((prefix) =>
    IPV4_SPECIAL.map(([network, bits]): [string, number] => [`${prefix}${network}`, 96 + bits]),
  ),
  'ipv6',
);

/** Whether the service may connect to this address (text as `net`, DNS or a URL's brackets-less host give it). */
export function isPublicAddress(address: string): boolean {
  if (address.includes('%')) return false; // a zone index: link-local by nature
  const family = net.isIP(address);
  if (family === 4) return !special4.check(address, 'ipv4');
  if (family !== 6) return false;
  if (embedding.check(address, 'ipv6')) return !embeddedSpecial.check(address, 'ipv6');
  return global6.check(address, 'ipv6') && !special6.check(address, 'ipv6');
}
