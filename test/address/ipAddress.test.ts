import { isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6, ipv4MappedOf, parseIPv4, parseIPv6 } from '../../src/address/ipAddress.js';

const words = (text: string): number[] | null => {
  const out = new Uint32Array(4);
  return parseIPv6(text, out) ? Array.from(out) : null;
};

/** Canonical form by WHATWG URL (an implementation we did not write); it never emits dotted IPv4. */
const whatwgCanonical = (text: string): string => new URL(`http://[${text}]`).hostname.slice(1, -1);

/** Our canonical form with a dotted IPv4-mapped tail rewritten to hex, as WHATWG writes it. */
const withHexMappedTail = (text: string): string => {
  const dotted = /^::ffff:(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!dotted) return text;
  const [a, b, c, d] = dotted.slice(1).map(Number);
  return `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

const strictIPv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)){3}$/;

describe('parseIPv4', () => {
  it.each([
    ['0.0.0.0', 0],
    ['255.255.255.255', 4294967295],
    ['1.2.3.4', 0x01020304],
    ['127.0.0.1', 0x7f000001],
    ['192.168.100.200', 0xc0a864c8],
    ['10.0.0.10', 0x0a00000a],
    ['100.200.250.199', 0x64c8fac7],
  ])('accepts %s', (text, expected) => {
    expect(parseIPv4(text)).toBe(expected);
  });

  it.each([
    '',
    '1',
    '1.2.3',
    '1.2.3.4.',
    '.1.2.3.4',
    '1.2.3.4.5',
    '1..2.3',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.00',
    '00.0.0.0',
    '256.1.1.1',
    '1.2.3.256',
    '1.2.3.1000',
    '0x7f.0.0.1',
    '0x7f000001',
    '127.1',
    '2130706433',
    '1.2.3.-4',
    '+1.2.3.4',
    '-1.2.3.4',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.4\n',
    '1.2. 3.4',
    '1.2.3.4/32',
    '1.2.3.4:80',
    '１.2.3.4',
    '1.2.3.a',
    '::1',
  ])('refuses %j', (text) => {
    expect(parseIPv4(text)).toBe(-1);
  });

  it('round-trips every fc.ipV4() value', () => {
    fc.assert(
      fc.property(fc.ipV4(), (text) => {
        const n = parseIPv4(text);
        expect(n).toBeGreaterThanOrEqual(0);
        expect(formatIPv4(n)).toBe(text);
      }),
      { numRuns: 5000 },
    );
  });

  it('formats every u32 and parses it back', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), (n) => {
        expect(parseIPv4(formatIPv4(n))).toBe(n);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses every fc.ipV4Extended() value that is not strict dotted decimal', () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (text) => {
        if (strictIPv4.test(text)) expect(formatIPv4(parseIPv4(text))).toBe(text);
        else expect(parseIPv4(text)).toBe(-1);
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with a strict reference regex on random strings over the IPv4 alphabet', () => {
    const alphabet = fc.constantFrom(...'0123456789.'.split(''), 'x', ' ', '-');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 18 }), (text) => {
        expect(parseIPv4(text) >= 0).toBe(strictIPv4.test(text));
      }),
      { numRuns: 10000 },
    );
  });

  it('never throws on random strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        expect(parseIPv4(text)).toBeGreaterThanOrEqual(-1);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseIPv6', () => {
  it.each([
    ['::', [0, 0, 0, 0]],
    ['::1', [0, 0, 0, 1]],
    ['1::', [0x00010000, 0, 0, 0]],
    ['2001:db8::1', [0x20010db8, 0, 0, 1]],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', [0x20010db8, 0, 0, 1]],
    ['2001:DB8::A:b', [0x20010db8, 0, 0, 0x000a000b]],
    ['fe80::1:2', [0xfe800000, 0, 0, 0x00010002]],
    ['1:2:3:4:5:6:7:8', [0x00010002, 0x00030004, 0x00050006, 0x00070008]],
    ['1:2:3:4:5:6:7::', [0x00010002, 0x00030004, 0x00050006, 0x00070000]],
    ['::2:3:4:5:6:7:8', [0x00000002, 0x00030004, 0x00050006, 0x00070008]],
    ['1::8', [0x00010000, 0, 0, 8]],
    ['1:0:0:4::8', [0x00010000, 0x00000004, 0, 8]],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]],
    ['::ffff:1.2.3.4', [0, 0, 0xffff, 0x01020304]],
    ['::FFFF:255.255.255.255', [0, 0, 0xffff, 0xffffffff]],
    ['64:ff9b::192.0.2.1', [0x0064ff9b, 0, 0, 0xc0000201]],
    ['1:2:3:4:5:6:1.2.3.4', [0x00010002, 0x00030004, 0x00050006, 0x01020304]],
    ['::1.2.3.4', [0, 0, 0, 0x01020304]],
    ['1::0.0.0.0', [0x00010000, 0, 0, 0]],
    ['0001:002:03:4::', [0x00010002, 0x00030004, 0, 0]],
  ])('accepts %s', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it.each([
    '',
    ':',
    ':::',
    '::::',
    '1:::2',
    ':1::2',
    '1::2:',
    ':1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '::1:2:3:4:5:6:7:8',
    '1::2:3:4:5:6:7:8',
    '1::2::3',
    '12345::',
    '::12345',
    'g::1',
    'fe80::1%eth0',
    'fe80::1%1',
    '[::1]',
    '[::1]:80',
    '2001:db8::/32',
    '2001:db8::1/128',
    ' ::1',
    '::1 ',
    '::1\n',
    ':: 1',
    '1.2.3.4',
    '::1.2.3',
    '::1.2.3.4.5',
    '::01.2.3.4',
    '::1.2.3.256',
    '::0x1.2.3.4',
    '::1.2.3.4:5',
    '1:2:3:4:5:6:7:1.2.3.4',
    '1:2:3:4:5:1.2.3.4',
    '::1.2.3.4::',
    '1.2.3.4::',
    '::ffff:1.2.3.4.',
    '+::1',
    '-1::',
    '::-1',
    '０::1',
  ])('refuses %j', (text) => {
    expect(words(text)).toBeNull();
  });

  it('accepts every fc.ipV6() value and round-trips it through format', () => {
    const out = new Uint32Array(4);
    const again = new Uint32Array(4);
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        expect(parseIPv6(text, out)).toBe(true);
        const formatted = formatIPv6(out);
        expect(parseIPv6(formatted, again)).toBe(true);
        expect(Array.from(again)).toEqual(Array.from(out));
        expect(formatIPv6(again)).toBe(formatted);
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with WHATWG URL on the canonical form of every fc.ipV6() value', () => {
    const out = new Uint32Array(4);
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        parseIPv6(text, out);
        expect(withHexMappedTail(formatIPv6(out))).toBe(whatwgCanonical(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with WHATWG URL on random 128-bit values, biased to zero groups', () => {
    const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    const out = new Uint32Array(4);
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (g) => {
        for (let w = 0; w < 4; w++) out[w] = g[2 * w] * 0x10000 + g[2 * w + 1];
        const formatted = formatIPv6(out);
        expect(withHexMappedTail(formatted)).toBe(whatwgCanonical(formatted));
        expect(words(formatted)).toEqual(Array.from(out));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with node:net isIPv6 on acceptance of strings over the IPv6 alphabet', () => {
    const unit = fc.constantFrom(...'0123456789abcdefABCDEF:.'.split(''), '::', 'g', ' ', '/');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 46 }), (text) => {
        expect(words(text) !== null).toBe(isIPv6(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('agrees with node:net isIPv6 on mutations of valid addresses', () => {
    const mutated = fc
      .tuple(fc.ipV6(), fc.nat(), fc.constantFrom('', ':', '::', '.', '0', 'f', '1.2.3.4', '00000'), fc.nat(3))
      .map(([text, at, insert, drop]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + drop);
      })
      .filter((text) => !text.includes('%'));
    fc.assert(
      fc.property(mutated, (text) => {
        expect(words(text) !== null).toBe(isIPv6(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('never throws on random strings', () => {
    const out = new Uint32Array(4);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        expect(typeof parseIPv6(text, out)).toBe('boolean');
      }),
      { numRuns: 5000 },
    );
  });
});

describe('formatIPv6 (RFC 5952)', () => {
  it.each([
    [[0, 0, 0, 0], '::'],
    [[0, 0, 0, 1], '::1'],
    [[0x20010db8, 0, 0, 1], '2001:db8::1'],
    [[0x20010db8, 0, 0x00010000, 1], '2001:db8::1:0:0:1'],
    [[0x20010db8, 0x00000001, 0x00010001, 0x00010001], '2001:db8:0:1:1:1:1:1'],
    [[0x20010000, 0x00000001, 0, 1], '2001:0:0:1::1'],
    [[0x20010db8, 0, 0x00010000, 0], '2001:db8:0:0:1::'],
    [[0x00010000, 0, 0, 0], '1::'],
    [[0xabcdef00, 0x0000ffff, 0xffffffff, 0xffffffff], 'abcd:ef00:0:ffff:ffff:ffff:ffff:ffff'],
    [[0, 0, 0xffff, 0xc0000201], '::ffff:192.0.2.1'],
    [[0, 0, 0, 0xc0000201], '::c000:201'],
    [[0x0064ff9b, 0, 0, 0xc0000201], '64:ff9b::c000:201'],
    [[0, 0xffff, 0, 0x01020304], '::ffff:0:0:102:304'],
    [[0, 0x0000ffff, 0xffff0000, 0], '::ffff:ffff:0:0:0'],
  ])('formats %j as %s', (w, expected) => {
    expect(formatIPv6(w)).toBe(expected);
    expect(formatIPv6(Uint32Array.from(w))).toBe(expected);
  });
});

describe('ipv4MappedOf', () => {
  it('returns the embedded IPv4 of ::ffff:0:0/96 only', () => {
    expect(ipv4MappedOf(words('::ffff:1.2.3.4')!)).toBe(0x01020304);
    expect(ipv4MappedOf(words('::ffff:255.255.255.255')!)).toBe(0xffffffff);
    expect(ipv4MappedOf(words('::ffff:0:0')!)).toBe(0);
    expect(ipv4MappedOf(words('::1.2.3.4')!)).toBe(-1);
    expect(ipv4MappedOf(words('64:ff9b::1.2.3.4')!)).toBe(-1);
    expect(ipv4MappedOf(words('::ffff:0:1.2.3.4')!)).toBe(-1);
    expect(ipv4MappedOf(words('1::ffff:1.2.3.4')!)).toBe(-1);
  });
});
