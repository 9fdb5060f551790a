import { BlockList, isIP } from 'node:net';

/**
 * Ranges that are not the public internet (IANA special-purpose registries): this host,
 * private networks, carrier-grade NAT, link-local (cloud metadata at 169.254.169.254),
 * documentation and benchmarking ranges, multicast, reserved.
 */
const NON_PUBLIC_V4: [string, number][] = [
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
];

/** IPv6 outside 2000::/3 is never public; inside it, these special-purpose ranges are not either. */
const NON_PUBLIC_V6: [string, number][] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
];

const nonPublicV4 = new BlockList();
for (const [a, p] of NON_PUBLIC_V4) nonPublicV4.addSubnet(a, p, 'ipv4');
const nonPublicV6 = new BlockList();
for (const [a, p] of NON_PUBLIC_V6) nonPublicV6.addSubnet(a, p, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  let a = address.toLowerCase().replace(/^\[|\]$/g, '').split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const p = dotted[1].split('.').map(Number);
    a = `${a.slice(0, -dotted[1].length)}${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(Math.max(fill, 0)).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries and that routing would reach: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`).
 */
export function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]);
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  return undefined;
}

/** True when an IP address is on the public internet (false for anything local, private or special). */
export function isPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return !nonPublicV4.check(ip, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIPv4(ip);
  if (inner) return isPublicAddress(inner);
  const g = ipv6Groups(ip);
  if (!g || (g[0] & 0xe000) !== 0x2000) return false;
  return !nonPublicV6.check(ip, 'ipv6');
}

/** Parses `10.0.0.0/8`, `192.168.1.20`, `fd00::/8`; throws on anything else. */
function addEntry(list: BlockList, entry: string): void {
  const [addr, bits] = entry.trim().split('/');
  const family = isIP(addr);
  if (!family) throw new Error(`"${entry}" is not an IP address or CIDR range`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(addr, type);
  else {
    const n = Number(bits);
    if (!Number.isInteger(n) || n < 0 || n > (family === 4 ? 32 : 128)) throw new Error(`"${entry}" has an invalid prefix length`);
    list.addSubnet(addr, n, type);
  }
}

/**
 * Which addresses `web_fetch` may connect to: public internet addresses, plus the non-public
 * addresses or ranges the owner allowed (`plugin.web.allow_private`, privileged) — and never the
 * daemon's own HTTP port on this machine, whatever is allowed.
 */
export class AddressPolicy {
  private readonly allowed = new BlockList();
  private readonly entries: string[];

  constructor(
    allow: readonly string[] = [],
    private readonly ownPorts: () => number[] = () => [],
  ) {
    this.entries = allow.map((e) => e.trim()).filter(Boolean);
    for (const e of this.entries) addEntry(this.allowed, e);
  }

  /** Checks an entry list without building a policy (settings validation). */
  static validEntry(entry: string): boolean {
    try {
      addEntry(new BlockList(), entry);
      return true;
    } catch {
      return false;
    }
  }

  /** Why `address` (an IP) may not be reached on `port`, or undefined when it may. */
  refusal(address: string, port: number): string | undefined {
    const ip = address.replace(/^\[|\]$/g, '');
    const family = isIP(ip);
    if (!family) return `"${ip.slice(0, 80)}" is not an IP address`;
    const inner = family === 6 ? embeddedIPv4(ip) : undefined;
    const local = (inner ?? ip).startsWith('127.') || (inner ?? ip).startsWith('0.') || ip === '::1' || ip === '::';
    if (local && this.ownPorts().includes(port)) return `${ip}:${port} is HomeAgent's own HTTP server`;
    if (isPublicAddress(ip)) return undefined;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(ip, type) || (inner !== undefined && this.allowed.check(inner, 'ipv4'))) return undefined;
    return `${ip} is not a public internet address (loopback, private, link-local or reserved); the owner can allow it in plugin.web.allow_private`;
  }
}
