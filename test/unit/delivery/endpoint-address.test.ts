import { isIPv6 } from 'node:net';
import {
  classifyAddress,
  classifyHost,
  describeAddress,
  parseIPv4,
  parseIPv6,
} from '../../../shared/delivery/rules/endpoint-address';

/** The range a URL's host falls in, through the real URL parser (`public` when it is public). */
const rangeOfUrl = (url: string): string => {
  const host = classifyHost(new URL(url).hostname);
  if (host.kind === 'loopback-name') return 'loopback';
  if (host.kind === 'name') return `name ${host.name}`;
  return host.address.public ? 'public' : host.address.range;
};

describe('non-public addresses', () => {
  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.0.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'ietf-protocol'],
    ['192.0.0.170', 'ietf-protocol'],
    ['192.0.2.10', 'documentation'],
    ['192.88.99.1', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'],
    ['64:ff9b:1::a00:1', 'private'],
    ['4000::1', 'reserved'],
    ['::2:0:0:1', 'reserved'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ public: false, range });
  });
});

describe('IPv6 forms carrying a non-public IPv4 address', () => {
  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.5', 'IPv4-mapped', '10.0.0.5', 'private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped', '169.254.169.254', 'metadata'],
    ['::ffff:0.0.0.0', 'IPv4-mapped', '0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'IPv4-compatible', '127.0.0.1', 'loopback'],
    ['::7f00:1', 'IPv4-compatible', '127.0.0.1', 'loopback'],
    ['::192.168.0.1', 'IPv4-compatible', '192.168.0.1', 'private'],
    ['64:ff9b::127.0.0.1', 'NAT64', '127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'NAT64', '10.0.0.1', 'private'],
    ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'],
    ['2002:c0a8:101::1', '6to4', '192.168.1.1', 'private'],
    // Teredo: the client address is the last 32 bits inverted (80ff:fffe is 127.0.0.1).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo', '127.0.0.1', 'loopback'],
    ['2001:0:a00:1::1', 'Teredo', '10.0.0.1', 'private'],
  ])('%s (%s %s) is %s', (address, form, ipv4, range) => {
    expect(classifyAddress(address)).toEqual({
      public: false,
      address: expect.any(String),
      range,
      embedded: { form, ipv4 },
    });
  });

  it('an IPv4-compatible address is refused even when the IPv4 address is public (deprecated form)', () => {
    expect(classifyAddress('::8.8.8.8')).toMatchObject({ public: false, range: 'reserved' });
  });
});

describe('public addresses', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700::1',
    '2001:4860:4860::8888',
    '2a00:1450:4001:82a::200e',
    '2001:db9::1',
    // Forms carrying a public IPv4 address.
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true, address: expect.any(String) });
  });
});

describe('spellings, through the URL parser', () => {
  it.each([
    ['http://127.0.0.1:1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0X7F000001/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0177.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://127.0.1/', 'loopback'],
    ['http://127.0.0.1./', 'loopback'],
    ['http://10.1/', 'private'],
    ['http://167772161/', 'private'],
    ['http://0xa9fea9fe/', 'metadata'],
    ['http://169.254.169.254/latest/meta-data', 'metadata'],
    ['http://0/', 'unspecified'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[::127.0.0.1]/', 'loopback'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://localhost/', 'loopback'],
    ['http://LOCALHOST:8080/', 'loopback'],
    ['http://localhost./', 'loopback'],
    ['http://api.localhost/', 'loopback'],
    ['http://a.b.localhost./', 'loopback'],
    ['https://8.8.8.8/', 'public'],
    ['https://[2606:4700::1]/', 'public'],
    ['https://example.com/hook', 'name example.com'],
    ['https://example.com./hook', 'name example.com'],
    ['https://localhost.example.com/', 'name localhost.example.com'],
    ['https://mylocalhost/', 'name mylocalhost'],
  ])('%s is %s', (url, range) => {
    expect(rangeOfUrl(url)).toBe(range);
  });
});

describe('parsing', () => {
  it.each([
    ['127.0.0.1', [127, 0, 0, 1]],
    ['2130706433', [127, 0, 0, 1]],
    ['0x7f000001', [127, 0, 0, 1]],
    ['0x7f.0.0.1', [127, 0, 0, 1]],
    ['0177.0.0.1', [127, 0, 0, 1]],
    ['127.1', [127, 0, 0, 1]],
    ['10.1', [10, 0, 0, 1]],
    ['10.1.258', [10, 1, 1, 2]],
    ['127.0.0.1.', [127, 0, 0, 1]],
    ['0x', [0, 0, 0, 0]],
    ['0', [0, 0, 0, 0]],
  ])('IPv4 %s', (text, bytes) => {
    expect(Array.from(parseIPv4(text) ?? [])).toEqual(bytes);
  });

  it.each([
    '',
    '.',
    '1.2.3.4.5',
    '256.0.0.1',
    '1.2.3.256',
    '4294967296',
    '08.0.0.1',
    '1..2',
    'example',
    '1.2.3.4x',
  ])('not IPv4: %p', (text) => {
    expect(parseIPv4(text)).toBeUndefined();
  });

  it('IPv6 with an embedded dotted IPv4 tail', () => {
    expect(Array.from(parseIPv6('::ffff:10.0.0.1') ?? [])).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, 1,
    ]);
  });

  it.each(['1::2::3', '12345::', 'example.com', '127.0.0.1'])('not IPv6: %p', (text) => {
    expect(parseIPv6(text)).toBeUndefined();
  });

  it.each([
    '::',
    '::1',
    '1::',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7::',
    '::2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '1:2:3:4:5:6:1.2.3.4',
    '::ffff:1.2.3.4',
    '1.2.3.4::',
    '::1.2.3.4:1',
    '::ffff:1.2.3',
    '::ffff:256.1.1.1',
    ':1::2',
    '1::2:',
    ':::',
    '1:::2',
    'fe80::1%eth0',
    'FE80::ABCD',
    'g::1',
    '12345::1',
    '',
  ])('agrees with node:net on whether %p is IPv6', (text) => {
    expect(parseIPv6(text) !== undefined).toBe(isIPv6(text));
  });

  it('names are not addresses', () => {
    expect(classifyAddress('example.com')).toBeUndefined();
  });
});

describe('descriptions', () => {
  it.each([
    ['10.0.0.5', '10.0.0.5, a private address'],
    ['169.254.169.254', '169.254.169.254, the cloud metadata address'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1 (IPv4-mapped 127.0.0.1), a loopback address'],
    ['0:0:0:0:0:0:0:1', '::1, a loopback address'],
    ['FD00:0EC2:0:0:0:0:0:0254', 'fd00:ec2::254, the cloud metadata address'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1, a documentation address'],
    ['100.64.0.1', '100.64.0.1, a shared (carrier-grade NAT) address'],
  ])('%s: %s', (address, text) => {
    const verdict = classifyAddress(address);
    if (verdict === undefined) throw new Error('not an address');
    expect(describeAddress(verdict)).toBe(text);
  });
});
