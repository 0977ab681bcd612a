import { describe, expect, it } from 'vitest';
import { readAsnCsv } from '../../../src/tables/sources/asnCsv.js';
import { csvLineFields } from '../../../src/tables/sources/csv.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';

describe('csvLineFields', () => {
  it('splits plain and quoted fields, with commas and doubled quotes inside the quotes', () => {
    expect(csvLineFields('1.0.4.0,1.0.7.255,38803,Gtelecom Pty Ltd')).toEqual(['1.0.4.0', '1.0.7.255', '38803', 'Gtelecom Pty Ltd']);
    expect(csvLineFields('a,"Cloudflare, Inc.",""')).toEqual(['a', 'Cloudflare, Inc.', '']);
    expect(csvLineFields('"say ""hi""",,x')).toEqual(['say "hi"', '', 'x']);
    expect(csvLineFields('')).toEqual(['']);
  });

  it('says why a line is not one record', () => {
    expect(csvLineFields('a,"open')).toBe('unterminated quoted field (not closed on its line)');
    expect(csvLineFields('"a"b,c')).toBe('text after a closing quote');
    expect(csvLineFields('a,b"c')).toBe('a quote inside an unquoted field');
  });
});

describe('readAsnCsv', () => {
  it('reads the ranges, a quoted organisation whole', () => {
    const text = '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\r\n1.0.4.0,1.0.7.255,38803,\n';
    expect(readAsnCsv(text, 4, 'asn-ipv4.csv').ranges).toEqual([
      { start: 0x01000000n, end: 0x010000ffn, asn: 13335, organization: 'Cloudflare, Inc.' },
      { start: 0x01000400n, end: 0x010007ffn, asn: 38803, organization: null },
    ]);
  });

  it.each([
    ['a quote left open', '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc.\n', /^asn\.csv:1: unterminated quoted field/],
    [
      'a quote inside a plain field',
      '1.0.0.0,1.0.0.255,1,ok\n1.0.1.0,1.0.1.255,2,Big "Net"\n',
      /^asn\.csv:2: a quote inside an unquoted field/,
    ],
    ['three fields', '1.0.0.0,1.0.0.255,13335\n', /^asn\.csv:1: expected 4 fields, found 3/],
    ['a bad address', '1.0.0,1.0.0.255,13335,x\n', /^asn\.csv:1: not an IPv4 address: 1\.0\.0/],
  ])('refuses %s, naming file and line', (_what, text, message) => {
    expect(() => readAsnCsv(text, 4, 'asn.csv')).toThrow(SourceFormatError);
    expect(() => readAsnCsv(text, 4, 'asn.csv')).toThrow(message);
  });
});
