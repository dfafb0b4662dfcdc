/**
 * The one address policy of imports and webhooks (src/domain/addresses.ts, D62): every block of the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries is refused, and so is every embedding of IPv4 in IPv6 except the two that
 * reach their IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96), which are judged by that address.
 */
import { isPublicAddress } from '../../src/domain/addresses';

const REFUSED: Array<[string, string]> = [
  ['0.0.0.0', 'this host'],
  ['0.1.2.3', 'this network'],
  ['10.1.2.3', 'private-use'],
  ['100.64.0.1', 'shared address space'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local, cloud metadata'],
  ['172.16.0.1', 'private-use'],
  ['172.31.255.255', 'private-use'],
  ['192.0.0.9', 'IETF protocol assignments'],
  ['192.0.0.170', 'NAT64/DNS64 discovery'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private-use'],
  ['192.175.48.1', 'AS112 direct delegation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.1', 'TEST-NET-2'],
  ['203.0.113.1', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:0.0.0.0', 'IPv4-mapped this host'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private-use'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated), even of a public address'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
  ['::ffff:0:808:808', 'IPv4-translated, even of a public address'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of cloud metadata'],
  ['64:ff9b:1::808:808', 'NAT64 local-use prefix'],
  ['100::1', 'discard-only'],
  ['100:0:0:1::1', 'dummy prefix'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001:1::1', 'PCP anycast'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'AMT'],
  ['2001:4:112::1', 'AS112-v6'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:30::1', 'drone remote ID'],
  ['2001:1ff::1', 'IETF protocol assignments'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:808:808::1', '6to4, even of a public address'],
  ['2620:4f:8000::1', 'AS112 direct delegation'],
  ['3fff::1', 'documentation'],
  ['5f00::1', 'SRv6 SIDs'],
  ['fc00::1', 'unique-local'],
  ['fd00::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'outside global unicast 2000::/3'],
  ['e000::1', 'outside global unicast 2000::/3'],
  ['localhost', 'not an address'],
  ['', 'not an address'],
  ['1.2.3', 'not an address'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '192.0.1.1',
  '223.255.255.255',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2a00:1450:4001:82b::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
];

describe('the address policy', () => {
  it.each(REFUSED)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it.each(PUBLIC)('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
