import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses the bot may fetch an agent's metadata document from: the public internet
 * only. Everything else (this machine, the VPC, the cloud's metadata service at 169.254.169.254,
 * link-local, carrier-grade NAT, multicast, documentation and reserved ranges) is refused, so a
 * client id naming a URL cannot make the bot reach into its own network (server-side request
 * forgery; the CIMD draft's security considerations ask for exactly this). The ranges are IANA's
 * special-purpose registries (RFC 6890 and its updates), for IPv4 and IPv6; an IPv4 address
 * inside IPv6 (mapped, compatible, NAT64 or 6to4) is judged as the IPv4 address it carries.
 */

const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const notPublic = new BlockList();
for (const [address, prefix] of NOT_PUBLIC_V4) notPublic.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of NOT_PUBLIC_V6) notPublic.addSubnet(address, prefix, 'ipv6');

/** The IPv4 address an IPv6 address carries, in the forms that route to it; undefined otherwise. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64), dotted or in hex.
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  if (sixToFour?.[1] && sixToFour[2]) {
    const high = Number.parseInt(sixToFour[1], 16);
    const low = Number.parseInt(sixToFour[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/** Whether `address` (an IP address, IPv6 without brackets) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(address);
  if (v4 !== undefined) return isIP(v4) === 4 && !notPublic.check(v4, 'ipv4');
  return !notPublic.check(address, 'ipv6');
}
