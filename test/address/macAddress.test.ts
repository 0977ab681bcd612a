import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMac,
  formatMacPrefix,
  formatOui,
  invalidMac,
  macProblem,
  MAC_HEX_DIGITS_MAX,
  MAC_HEX_DIGITS_MIN,
  parseMac,
  type MacParts,
} from '../../src/address/macAddress.js';

const parse = (text: string): MacParts | null => {
  const out: MacParts = { hi24: -1, lo24: -1, digits: -1 };
  return parseMac(text, out) ? out : null;
};

const hex2 = (b: number): string => b.toString(16).padStart(2, '0');

/** The four accepted spellings of a full 48-bit MAC given as 6 bytes. */
const spellings = (bytes: number[]): string[] => {
  const pairs = bytes.map(hex2);
  const quads = [0, 2, 4].map((i) => pairs[i] + pairs[i + 1]);
  return [pairs.join(':'), pairs.join('-'), quads.join('.'), pairs.join('')];
};

describe('parseMac', () => {
  it('exports the SPEC 7 bounds', () => {
    expect(MAC_HEX_DIGITS_MIN).toBe(6);
    expect(MAC_HEX_DIGITS_MAX).toBe(12);
  });

  it.each([
    ['00:1A:2B:3C:4D:5E', 0x001a2b, 0x3c4d5e, 12],
    ['00:1a:2b:3c:4d:5e', 0x001a2b, 0x3c4d5e, 12],
    ['00-1A-2B-3C-4D-5E', 0x001a2b, 0x3c4d5e, 12],
    ['001a.2b3c.4d5e', 0x001a2b, 0x3c4d5e, 12],
    ['001A.2B3C.4D5E', 0x001a2b, 0x3c4d5e, 12],
    ['001A2B3C4D5E', 0x001a2b, 0x3c4d5e, 12],
    ['fF:Ff:fF:ff:FF:ff', 0xffffff, 0xffffff, 12],
    ['0:1a:2b:3c:4d:5e', 0x001a2b, 0x3c4d5e, 12],
    ['0:1:2:3:4:5', 0x000102, 0x030405, 12],
    ['a:b:c:d:e:f', 0x0a0b0c, 0x0d0e0f, 12],
    ['00:1A:2B', 0x001a2b, 0, 6],
    ['00:1A:2B:3C', 0x001a2b, 0x3c0000, 8],
    ['00:1A:2B:3C:4D', 0x001a2b, 0x3c4d00, 10],
    ['00-1A-2B', 0x001a2b, 0, 6],
    ['00-1a-2b-3c', 0x001a2b, 0x3c0000, 8],
    ['001a.2b3c', 0x001a2b, 0x3c0000, 8],
    ['001A2B', 0x001a2b, 0, 6],
    ['001A2B3', 0x001a2b, 0x300000, 7],
    ['001A2B3C4', 0x001a2b, 0x3c4000, 9],
    ['001A2B3C4D5', 0x001a2b, 0x3c4d50, 11],
    ['000000', 0, 0, 6],
    ['10:06:48:7', 0x100648, 0x700000, 7],
    ['1006487', 0x100648, 0x700000, 7],
    ['70:B3:D5:00:1', 0x70b3d5, 0x001000, 9],
    ['70-b3-d5-00-1', 0x70b3d5, 0x001000, 9],
    ['70b3.d500.1', 0x70b3d5, 0x001000, 9],
    ['8C:1F:64:A0:0', 0x8c1f64, 0xa00000, 9],
    ['00:1A:2B:3C:4D:5', 0x001a2b, 0x3c4d05, 12],
    ['00-1A-2B-3C-4', 0x001a2b, 0x3c4000, 9],
    ['001a.2b', 0x001a2b, 0, 6],
    ['001a.2b3c.4', 0x001a2b, 0x3c4000, 9],
    ['001a.2b3c.4d5', 0x001a2b, 0x3c4d50, 11],
    ['001a2b-3c4d5e', 0x001a2b, 0x3c4d5e, 12],
    ['001A2B:3C4D5E', 0x001a2b, 0x3c4d5e, 12],
    ['001a2b-3', 0x001a2b, 0x300000, 7],
  ])('accepts %s', (text, hi24, lo24, digits) => {
    expect(parse(text)).toEqual({ hi24, lo24, digits });
  });

  it.each([
    '',
    '00',
    '00:1A',
    '001A2',
    '00:1A:2',
    '001A2B3C4D5E6',
    '00:1A:2B:3C:4D:5E:6F',
    '00-1A-2B-3C-4D-5E-6F',
    '001a.2b3c.4d5e.6f70',
    '00:1A-2B:3C:4D:5E',
    '00:1A:2B.3C4D:5E',
    '001a.2b3c-4d5e',
    '00:1G:2B:3C:4D:5E',
    '00:1A:2B:3C:4D:5X',
    'ZZZZZZ',
    '00:1a:2b:3c:4d:5e:',
    ':00:1a:2b:3c:4d:5e',
    '00::1a:2b:3c:4d',
    '00:1a:2b::',
    '-00-1a-2b',
    '00-1a-2b-',
    '.001a.2b3c',
    '001a.2b3c.',
    '001a..2b3c',
    '0:1a:2b',
    '0:1a:2b:3c',
    '0:1a:2b:3c:4d',
    '0-1a-2b-3c-4d-5e',
    '000:1a:2b:3c:4d:5e',
    '001:a2b:3c4:d5e',
    '001a.2b3.c4d5e',
    '01a.2b3c.4d5e',
    '001a2.b3c.4d5e',
    '001a',
    '001a.2',
    '00-1a-2b-3c-4d-5',
    '0:1a:2b:3',
    '00:1a:2b:3:4',
    '00:1a:2b:3c:4d5',
    '001a2b-',
    '001a2b-3c-4d',
    '001a2b-3c4d5e6',
    '001a2b3-c4',
    '001a2-b3c4d',
    '001a2b.3c4d5e',
    '001a.2b3c-4',
    '00:1a:2b:3c:4d:5e:f',
    '001a:2b3c:4d5e',
    '00 1a 2b 3c 4d 5e',
    ' 001a2b',
    '001a2b ',
    '001a2b\n',
    '00_1a_2b',
    '0x001a2b',
    '+01a2b3',
    '００１ａ２ｂ',
  ])('refuses %j', (text) => {
    expect(parse(text)).toBeNull();
  });

  it('reads every 48-bit value back from each of the four spellings, any letter case', () => {
    const bytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(bytes, fc.boolean(), (b, upper) => {
        const hi24 = (b[0] << 16) | (b[1] << 8) | b[2];
        const lo24 = (b[3] << 16) | (b[4] << 8) | b[5];
        for (const text of spellings(b)) {
          expect(parse(upper ? text.toUpperCase() : text)).toEqual({ hi24, lo24, digits: 12 });
        }
        expect(formatMac(hi24, lo24)).toBe(spellings(b)[0].toUpperCase());
      }),
      { numRuns: 3000 },
    );
  });

  it('reads every bare-hex prefix of 6 to 12 digits, left-aligning the tail', () => {
    const prefix = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'.split('')), minLength: 6, maxLength: 12 });
    fc.assert(
      fc.property(prefix, (text) => {
        const padded = text.padEnd(12, '0');
        expect(parse(text)).toEqual({
          hi24: parseInt(padded.slice(0, 6), 16),
          lo24: parseInt(padded.slice(6), 16),
          digits: text.length,
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a 6- to 12-digit prefix alike in every form, the last group of a prefix holding what is left', () => {
    const prefix = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'.split('')), minLength: 6, maxLength: 12 });
    const grouped = (text: string, width: number, separator: string) =>
      (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(separator);
    fc.assert(
      fc.property(prefix, (text) => {
        const bare = parse(text);
        const forms = [grouped(text, 4, '.'), `${text.slice(0, 6)}-${text.slice(6)}`, `${text.slice(0, 6)}:${text.slice(6)}`];
        // six byte groups are a full address: an 11-digit prefix has no byte-group form
        if (text.length !== 11)
          forms.push(grouped(text, 2, ':'), grouped(text, 2, '-'), formatMacPrefix(bare!.hi24, bare!.lo24, text.length));
        for (const form of forms) {
          if (form.endsWith(':') || form.endsWith('-')) continue;
          expect(parse(form), form).toEqual(bare);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on random strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        const result = parse(text);
        if (result) {
          expect(result.digits).toBeGreaterThanOrEqual(6);
          expect(result.digits).toBeLessThanOrEqual(12);
        }
      }),
      { numRuns: 5000 },
    );
  });

  // The full-address spellings of 17 and 12 characters have their own quick readers: at those
  // lengths the grammar accepts exactly six pairs around one kind of separator, and, without a
  // separator, twelve digits (12 characters with separators are a prefix: the general walk's).
  it('reads 17- and 12-character texts as the grammar says, near misses included', () => {
    const unit = fc.constantFrom(...'0123456789abcdefABCDEF:-.g '.split(''));
    const near = (length: number) => fc.string({ unit, minLength: length, maxLength: length });
    const pairs = fc
      .tuple(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 }), fc.constantFrom(':', '-'), fc.boolean())
      .map(([bytes, separator, upper]) => {
        const text = bytes.map(hex2).join(separator);
        return upper ? text.toUpperCase() : text;
      });
    const mutated = fc.tuple(pairs, fc.nat(16), unit).map(([text, at, c]) => `${text.slice(0, at)}${c}${text.slice(at + 1)}`);
    const sixPairs = /^[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}$/i;
    const grammar = (text: string): MacParts | null => {
      const hex = sixPairs.test(text) || /^[0-9a-f]{12}$/i.test(text) ? text.replace(/[:-]/g, '') : null;
      return hex === null ? null : { hi24: parseInt(hex.slice(0, 6), 16), lo24: parseInt(hex.slice(6), 16), digits: 12 };
    };
    fc.assert(
      fc.property(
        fc.oneof(
          near(17),
          pairs,
          mutated,
          near(12).filter((text) => !/[:.-]/.test(text)),
        ),
        (text) => {
          expect(parse(text), text).toEqual(grammar(text));
        },
      ),
      { numRuns: 10000 },
    );
  });
});

describe('macProblem: what is wrong with a refused text', () => {
  it('names the problem, not the digit count, when the count is right', () => {
    const cases: [string, string][] = [
      ['3C:22-FB:12:34:56', 'it mixes separators (: and -); use one kind throughout.'],
      ['3C22.FB12:3456', 'it mixes separators (. and :); use one kind throughout.'],
      ['3C:22:FB:12:34:5G', "'G' (character 17) is neither a hex digit nor a separator (: - .)."],
      ['3C 22 FB 12 34 56', 'A space (character 3) is neither a hex digit nor a separator (: - .).'],
      ['3C:22:FB:12:34:56\u00e9', 'U+00E9 (character 18) is neither a hex digit nor a separator (: - .).'],
      ['3C:22', 'it has 4 hex digits; it needs 6 to 12.'],
      ['', 'it has no hex digits; it needs 6 to 12.'],
      ['3C:22:FB:12:34:56:78', 'it has 14 hex digits; it needs 6 to 12.'],
      [':3C:22:FB', 'it starts with a separator (:).'],
      ['3C-22-FB-', 'it ends with a separator (-).'],
      ['3C::22:FB', 'it has two separators in a row (::).'],
      ['3C2:2FB:123', "the group 3C2 has 3 digits; colon groups have 2 (or the OUI's 6 as the first group)."],
      ['3C-22-FB123', "the group FB123 has 5 digits; hyphen groups have 2 (or the OUI's 6 as the first group)."],
      ['3C2.2FB1.23456', 'the group 3C2 has 3 digits; dotted groups have 4 (the last may have fewer).'],
      ['3C22FB:12:34', 'after the OUI as one group of 6 digits comes one group of the other 1 to 6, no more.'],
      ['1:2:3:4:5:6:7', 'it has 7 groups; a full address has 6.'],
      ['3:22:FB:1', "the group 3 has 1 digit; a byte's leading zero may be left out only in a full address of six groups."],
      ['3C-2-FB-12', "the group 2 has 1 digit; hyphen groups have 2 (a prefix's last group may have 1)."],
      ['3C-22-FB-12-34-5', "the group 5 has 1 digit; hyphen groups have 2 (a prefix's last group may have 1)."],
    ];
    for (const [text, problem] of cases) {
      expect(parse(text), text).toBeNull();
      expect(macProblem(text), text).toBe(problem);
    }
    expect(invalidMac('3C:22-FB:12:34:56')).toMatchObject({
      code: 'invalid_mac',
      status: 400,
      message: 'Not a MAC address or prefix: it mixes separators (: and -); use one kind throughout.',
    });
  });

  it('finds a problem exactly when parseMac refuses', () => {
    const unit = fc.constantFrom(...'0123456789abcdefABCDEF:-.:-.g '.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 20 }), fc.string({ maxLength: 20 })), (text) => {
        expect(macProblem(text) === null, text).toBe(parse(text) !== null);
      }),
      { numRuns: 20000 },
    );
  });
});

describe('formatOui / formatMac', () => {
  it('writes uppercase colon-separated bytes', () => {
    expect(formatOui(0x001a2b)).toBe('00:1A:2B');
    expect(formatOui(0)).toBe('00:00:00');
    expect(formatOui(0xffffff)).toBe('FF:FF:FF');
    expect(formatMac(0x001a2b, 0x3c4d5e)).toBe('00:1A:2B:3C:4D:5E');
    expect(formatMac(0, 0)).toBe('00:00:00:00:00:00');
    expect(formatMac(0xfedcba, 0x987654)).toBe('FE:DC:BA:98:76:54');
  });

  it('writes a prefix as byte pairs, an odd last digit alone', () => {
    expect(formatMacPrefix(0x8c1f64, 0, 6)).toBe('8C:1F:64');
    expect(formatMacPrefix(0x70b3d5, 0xa00000, 7)).toBe('70:B3:D5:A');
    expect(formatMacPrefix(0x8c1f64, 0xa00000, 9)).toBe('8C:1F:64:A0:0');
    expect(formatMacPrefix(0x001a2b, 0x3c4d5e, 12)).toBe('00:1A:2B:3C:4D:5E');
  });
});
