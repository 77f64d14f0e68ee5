/**
 * Which addresses a webhook may be delivered to: parsing IP addresses in every spelling a host can
 * take, and classifying them as public or as one of the non-public ranges (loopback, private,
 * link-local, the cloud metadata address...). Pure: no resolution here (see `../endpoint-guard.ts`).
 *
 * Ranges follow the IANA special-purpose address registries. IPv6 is public only inside global
 * unicast (2000::/3) and outside the special blocks there; IPv6 forms that carry an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry.
 */
export type AddressRange =
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'unique-local'
  | 'shared'
  | 'link-local'
  | 'metadata'
  | 'site-local'
  | 'ietf-protocol'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'discard'
  | 'reserved';

/** How an IPv6 address carries an IPv4 one. */
export type EmbeddingForm = 'IPv4-mapped' | 'IPv4-compatible' | 'NAT64' | '6to4' | 'Teredo';

export type AddressClass =
  | { readonly public: true; readonly address: string }
  | {
      readonly public: false;
      /** The address, canonical (dotted IPv4, compressed lower-case IPv6). */
      readonly address: string;
      readonly range: AddressRange;
      /** The IPv4 address an IPv6 form carries, when that is what made it non-public. */
      readonly embedded?: { readonly form: EmbeddingForm; readonly ipv4: string };
    };

/** What a URL host is, before any resolution. */
export type HostClass =
  | { readonly kind: 'address'; readonly address: AddressClass }
  /** `localhost` and `*.localhost` (RFC 6761): loopback by definition, never resolved. */
  | { readonly kind: 'loopback-name'; readonly name: string }
  /** A name to resolve; each address it resolves to is then classified. */
  | { readonly kind: 'name'; readonly name: string };

const RANGE_TEXT: Readonly<Record<AddressRange, string>> = {
  unspecified: 'an unspecified address',
  'this-network': "a 'this network' address (0.0.0.0/8)",
  loopback: 'a loopback address',
  private: 'a private address',
  'unique-local': 'a private (unique-local) address',
  shared: 'a shared (carrier-grade NAT) address',
  'link-local': 'a link-local address',
  metadata: 'the cloud metadata address',
  'site-local': 'a site-local address',
  'ietf-protocol': 'an IETF protocol address (192.0.0.0/24)',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  discard: 'a discard-only address',
  reserved: 'a reserved address',
};

/** `127.0.0.1, a loopback address`; `::ffff:7f00:1 (IPv4-mapped 127.0.0.1), a loopback address`. */
export function describeAddress(address: AddressClass): string {
  if (address.public) return `${address.address}, a public address`;
  const embedded =
    address.embedded === undefined ? '' : ` (${address.embedded.form} ${address.embedded.ipv4})`;
  return `${address.address}${embedded}, ${RANGE_TEXT[address.range]}`;
}

// ---- parsing -----------------------------------------------------------------------------------

/**
 * An IPv4 address in any spelling a URL host or `inet_aton` takes: one to four parts, each
 * decimal, octal (leading `0`) or hex (`0x`), the last part filling the remaining bytes
 * (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`), and one trailing dot. `undefined` if the
 * text is not one.
 */
export function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Number(part);
    if (value === undefined) return undefined;
    numbers.push(value);
  }
  const last = numbers.pop() as number;
  if (numbers.some((value) => value > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  const bytes = new Uint8Array(4);
  numbers.forEach((value, index) => {
    bytes[index] = value;
  });
  for (let index = 3, rest = last; index >= numbers.length; index -= 1, rest = Math.floor(rest / 256)) {
    bytes[index] = rest % 256;
  }
  return bytes;
}

function parseIPv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return undefined;
}

const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * An IPv6 address as 16 bytes (RFC 4291 text: hex groups, one `::`, an optional dotted IPv4
 * tail; a zone `%eth0` is ignored); `undefined` if the text is not one.
 */
export function parseIPv6(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/, '');
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string, endsAddress: boolean): number[] | undefined => {
    if (half === '') return [];
    const pieces = half.split(':');
    const groups: number[] = [];
    for (const [index, piece] of pieces.entries()) {
      if (endsAddress && index === pieces.length - 1 && DOTTED_QUAD.test(piece)) {
        const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (HEX_GROUP.test(piece)) {
        groups.push(Number.parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return groups;
  };
  const compressed = halves.length === 2;
  const front = groupsOf(halves[0] ?? '', !compressed);
  const back = compressed ? groupsOf(halves[1] ?? '', true) : [];
  if (front === undefined || back === undefined) return undefined;
  const explicit = front.length + back.length;
  // `::` stands for at least one zero group.
  if (compressed ? explicit > 7 : explicit !== 8) return undefined;
  const groups = [...front, ...new Array<number>(8 - explicit).fill(0), ...back];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

const formatIPv4 = (bytes: Uint8Array): string => Array.from(bytes).join('.');

/** RFC 5952 text: lower case, the longest run of two or more zero groups compressed. */
function formatIPv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, index) =>
    (((bytes[index * 2] as number) << 8) | (bytes[index * 2 + 1] as number)).toString(16),
  );
  let best = { start: -1, length: 0 };
  for (let index = 0; index < 8; ) {
    if (groups[index] !== '0') {
      index += 1;
      continue;
    }
    let end = index;
    while (end < 8 && groups[end] === '0') end += 1;
    if (end - index > best.length) best = { start: index, length: end - index };
    index = end;
  }
  if (best.length < 2) return groups.join(':');
  const before = groups.slice(0, best.start).join(':');
  const after = groups.slice(best.start + best.length).join(':');
  return `${before}::${after}`;
}

// ---- ranges ------------------------------------------------------------------------------------

interface Block {
  readonly bytes: Uint8Array;
  readonly bits: number;
  readonly range: AddressRange;
}

const block = (family: 4 | 6, cidr: string, range: AddressRange): Block => {
  const [network = '', bits = ''] = cidr.split('/');
  const bytes = family === 4 ? parseIPv4(network) : parseIPv6(network);
  if (bytes === undefined) throw new Error(`bad block ${cidr}`);
  return { bytes, bits: Number(bits), range };
};

const inBlock = (bytes: Uint8Array, { bytes: network, bits }: Pick<Block, 'bytes' | 'bits'>): boolean => {
  if (bytes.length !== network.length) return false;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if (((bytes[bit / 8] as number) & mask) !== ((network[bit / 8] as number) & mask)) return false;
  }
  return true;
};

/** Non-public IPv4 blocks, the more specific first. */
const IPV4_BLOCKS: readonly Block[] = [
  block(4, '0.0.0.0/32', 'unspecified'),
  block(4, '0.0.0.0/8', 'this-network'),
  block(4, '10.0.0.0/8', 'private'),
  block(4, '100.64.0.0/10', 'shared'),
  block(4, '127.0.0.0/8', 'loopback'),
  block(4, '169.254.169.254/32', 'metadata'),
  block(4, '169.254.0.0/16', 'link-local'),
  block(4, '172.16.0.0/12', 'private'),
  block(4, '192.0.0.0/24', 'ietf-protocol'),
  block(4, '192.0.2.0/24', 'documentation'),
  // The deprecated 6to4 relay anycast block (RFC 7526).
  block(4, '192.88.99.0/24', 'reserved'),
  block(4, '192.168.0.0/16', 'private'),
  block(4, '198.18.0.0/15', 'benchmarking'),
  block(4, '198.51.100.0/24', 'documentation'),
  block(4, '203.0.113.0/24', 'documentation'),
  block(4, '224.0.0.0/4', 'multicast'),
  block(4, '255.255.255.255/32', 'broadcast'),
  block(4, '240.0.0.0/4', 'reserved'),
];

/** Non-public IPv6 blocks checked before the embedded forms and the global unicast rule. */
const IPV6_BLOCKS: readonly Block[] = [
  block(6, '::/128', 'unspecified'),
  block(6, '::1/128', 'loopback'),
  block(6, '100::/64', 'discard'),
  // Local-use IPv4/IPv6 translation (RFC 8215): a network's own NAT64, never global.
  block(6, '64:ff9b:1::/48', 'private'),
  block(6, '2001:2::/48', 'benchmarking'),
  // ORCHID (deprecated).
  block(6, '2001:10::/28', 'reserved'),
  block(6, '2001:db8::/32', 'documentation'),
  block(6, '3fff::/20', 'documentation'),
  block(6, 'fd00:ec2::254/128', 'metadata'),
  block(6, 'fc00::/7', 'unique-local'),
  block(6, 'fe80::/10', 'link-local'),
  block(6, 'fec0::/10', 'site-local'),
  block(6, 'ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST = block(6, '2000::/3', 'reserved');
const IPV4_MAPPED = block(6, '::ffff:0:0/96', 'reserved');
const IPV4_COMPATIBLE = block(6, '::/96', 'reserved');
const NAT64 = block(6, '64:ff9b::/96', 'reserved');
const SIX_TO_FOUR = block(6, '2002::/16', 'reserved');
const TEREDO = block(6, '2001::/32', 'reserved');

function classifyIPv4(bytes: Uint8Array): AddressClass {
  const address = formatIPv4(bytes);
  const found = IPV4_BLOCKS.find((candidate) => inBlock(bytes, candidate));
  return found === undefined ? { public: true, address } : { public: false, address, range: found.range };
}

/** The IPv4 addresses an IPv6 address carries, by form (Teredo carries its server's and its client's). */
function embeddedIPv4(bytes: Uint8Array): { form: EmbeddingForm; ipv4: Uint8Array[] } | undefined {
  if (inBlock(bytes, IPV4_MAPPED)) return { form: 'IPv4-mapped', ipv4: [bytes.slice(12)] };
  if (inBlock(bytes, IPV4_COMPATIBLE)) return { form: 'IPv4-compatible', ipv4: [bytes.slice(12)] };
  if (inBlock(bytes, NAT64)) return { form: 'NAT64', ipv4: [bytes.slice(12)] };
  if (inBlock(bytes, SIX_TO_FOUR)) return { form: '6to4', ipv4: [bytes.slice(2, 6)] };
  if (inBlock(bytes, TEREDO)) {
    const client = bytes.slice(12).map((byte) => byte ^ 0xff);
    return { form: 'Teredo', ipv4: [bytes.slice(4, 8), client] };
  }
  return undefined;
}

function classifyIPv6(bytes: Uint8Array): AddressClass {
  const address = formatIPv6(bytes);
  const found = IPV6_BLOCKS.find((candidate) => inBlock(bytes, candidate));
  if (found !== undefined) return { public: false, address, range: found.range };
  const embedded = embeddedIPv4(bytes);
  if (embedded !== undefined) {
    for (const ipv4 of embedded.ipv4) {
      const inner = classifyIPv4(ipv4);
      if (!inner.public) {
        return {
          public: false,
          address,
          range: inner.range,
          embedded: { form: embedded.form, ipv4: inner.address },
        };
      }
    }
    // Deprecated and never routed: public only in the forms still in use.
    if (embedded.form === 'IPv4-compatible') return { public: false, address, range: 'reserved' };
    return { public: true, address };
  }
  // Everything outside global unicast is unassigned or reserved by the IETF (::/8 included).
  if (!inBlock(bytes, GLOBAL_UNICAST)) return { public: false, address, range: 'reserved' };
  return { public: true, address };
}

/**
 * Classifies an IP address given as text: IPv6 (brackets and a zone allowed) or IPv4 in any
 * spelling {@link parseIPv4} takes. `undefined` if the text is not an IP address.
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v6 = parseIPv6(bare);
  if (v6 !== undefined) return classifyIPv6(v6);
  const v4 = parseIPv4(bare);
  return v4 === undefined ? undefined : classifyIPv4(v4);
}

/**
 * Classifies a URL host (`URL.hostname`, or a host as a connection is asked for): an IP address
 * in any spelling, a loopback name (`localhost`, `*.localhost`, with or without a trailing dot),
 * or a name that has to be resolved.
 */
export function classifyHost(host: string): HostClass {
  const address = classifyAddress(host);
  if (address !== undefined) return { kind: 'address', address };
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'loopback-name', name };
  return { kind: 'name', name };
}
