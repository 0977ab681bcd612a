/**
 * The IAB registry reader: the layout rules on small listings, refusals that name file and line,
 * and our copy of IEEE's listing read whole and checked against IEEE's CSV of the same snapshot
 * (read by csv-parse, independently of our reader).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIabRegistry, readIabRegistry } from '../../src/tables/sources/iabRegistry.js';

const REGISTRY_DIR = path.join(import.meta.dirname, '..', '..', 'data', 'registry');
const pad = (left: string, right: string) => left.padEnd(60) + right;
const HEADER = [pad('OUI', 'Organization'), pad('IAB Range', 'Organization'), pad('', 'Address'), ''];

function record(parent: string, range: string, organisation: string, address?: [string, string, string]): string[] {
  const lines = [pad(`${parent}                      (hex)`, organisation), pad(`${range}                 (base 16)`, organisation)];
  return address ? [...lines, ...address.map((line) => pad('', line))] : lines;
}

const listing = (...records: string[][]) => [...HEADER, ...records.flatMap((r, i) => (i === 0 ? r : ['', ...r])), ''].join('\r\n');

const DEUTA = record('00-50-C2', '7D5000-7D5FFF', 'DEUTA-WERKE GmbH', ['Paffrather Strasse 140', 'Bergisch-Gladbach  NRW  51465', 'DE']);
const PRIVATE = record('40-D8-55', '12F000-12FFFF', 'Private');

describe('IAB listing reader', () => {
  it('reads records, private records and blank address lines, with CRLF or LF line ends', () => {
    const blank = record('00-50-C2', '6F8000-6F8FFF', 'RV Technology Limited', ['12/F, Wilson House', '', 'HK']);
    const text = listing(DEUTA, PRIVATE, blank);
    const expected = [
      {
        prefix: '0050C27D5',
        company: 'DEUTA-WERKE GmbH',
        address: 'Paffrather Strasse 140, Bergisch-Gladbach NRW 51465',
        country_code: 'DE',
      },
      { prefix: '40D85512F', company: null, address: null, country_code: null },
      { prefix: '0050C26F8', company: 'RV Technology Limited', address: '12/F, Wilson House', country_code: 'HK' },
    ];
    expect(readIabRegistry(text, 'iab.txt')).toEqual(expected);
    expect(readIabRegistry(text.replace(/\r\n/g, '\n'), 'iab.txt')).toEqual(expected);
  });

  const refusals: [string, string, RegExp][] = [
    ['a wrong header', listing(DEUTA).replace('IAB Range', 'MA-S Range'), /^iab\.txt:2: not the header/],
    [
      'a parent outside the IAB blocks',
      listing(record('70-B3-D5', '001000-001FFF', 'Acme', ['a', 'b', 'US'])),
      /^iab\.txt:5: 70B3D5 is not one of the IAB parent blocks/,
    ],
    [
      'a range that is not one 36-bit block',
      listing(record('00-50-C2', '7D5800-7D5FFF', 'Acme', ['a', 'b', 'US'])),
      /^iab\.txt:6: expected "XXX000-XXXFFF/,
    ],
    [
      'a range whose end is another block',
      listing(record('00-50-C2', '7D5000-7D6FFF'.replace('7D6', '7D4'), 'Acme', ['a', 'b', 'US'])),
      /^iab\.txt:6: the range is not one 36-bit block/,
    ],
    [
      'two organisations in one record',
      listing(DEUTA).replace(
        pad('7D5000-7D5FFF                 (base 16)', 'DEUTA-WERKE GmbH'),
        pad('7D5000-7D5FFF                 (base 16)', 'Other GmbH'),
      ),
      /^iab\.txt:6: the organisation differs/,
    ],
    ['a missing address line', listing(DEUTA.slice(0, 4)), /^iab\.txt:9: expected the three address lines/],
    [
      'an address line out of its column',
      listing([...DEUTA.slice(0, 2), 'Paffrather Strasse 140', ...DEUTA.slice(3)]),
      /^iab\.txt:7: an address line must start at column 61/,
    ],
    [
      'a country that is not a code',
      listing([...DEUTA.slice(0, 4), pad('', 'Germany')]),
      /^iab\.txt:9: country "Germany" is not a two-letter code/,
    ],
    ['a record longer than five lines', listing([...DEUTA, pad('', 'extra')]), /^iab\.txt:10: expected an empty line after the record/],
    ['a block listed twice', listing(DEUTA, DEUTA), /^iab\.txt:11: block 0050C27D5 appears twice/],
    [
      'a record line where the next record should start',
      listing(DEUTA, ['garbage']),
      /^iab\.txt:11: expected "XX-XX-XX \(hex\) organisation"/,
    ],
    ['no record at all', HEADER.join('\n'), /^iab\.txt: no IAB record/],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}, naming file and line`, () => {
      expect(() => readIabRegistry(text, 'iab.txt')).toThrow(message);
    });
  }

  it('refuses a copy that is not the file its iab-source.json describes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iab-'));
    for (const file of ['iab-source.json', 'iab.txt']) fs.copyFileSync(path.join(REGISTRY_DIR, file), path.join(dir, file));
    fs.appendFileSync(path.join(dir, 'iab.txt'), '\n');
    expect(() => loadIabRegistry(dir)).toThrow(/iab\.txt: sha256 \w+ is not the \w+ of .*iab-source\.json$/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('our copy of the IEEE IAB listing', () => {
  const { source, blocks } = loadIabRegistry(REGISTRY_DIR);
  const csvText = fs.readFileSync(path.join(REGISTRY_DIR, source.csv_file));
  const csv = parseCsv(csvText, { columns: true, bom: true }) as Record<string, string>[];

  it('is the Debian snapshot named in iab-source.json, whole', () => {
    expect(source.version).toBe('20220827.1');
    expect(source.date).toBe('2022-08-27T20:08:57.000Z');
    expect(blocks).toHaveLength(4575);
    expect(blocks.filter((b) => b.company === null)).toHaveLength(24);
    expect(blocks.find((b) => b.prefix === '0050C27D5')).toMatchObject({ company: 'DEUTA-WERKE GmbH', country_code: 'DE' });
  });

  it("agrees with IEEE's CSV of the same snapshot, block by block", () => {
    expect(Object.keys(csv[0])).toEqual(['Registry', 'Assignment', 'Organization Name', 'Organization Address']);
    const byPrefix = new Map(blocks.map((b) => [b.prefix, b]));
    const mismatches: string[] = [];
    for (const row of csv) {
      const block = byPrefix.get(row.Assignment);
      // IEEE's text listing leaves out the quotation marks of five Russian names (JSC "Component-ASU").
      const name = row['Organization Name'].trim().replace(/"/g, '');
      if (row.Registry !== 'IAB' || !block) mismatches.push(`${row.Assignment}: not read`);
      else if (block.company !== (name === 'Private' ? null : name)) mismatches.push(`${row.Assignment}: ${block.company} ≠ ${name}`);
      // The CSV writes the address as street, city, state, country code, postal code in one field.
      else if (block.country_code && !` ${row['Organization Address']} `.includes(` ${block.country_code} `))
        mismatches.push(`${row.Assignment}: no ${block.country_code} in ${row['Organization Address']}`);
    }
    expect(mismatches).toEqual([]);
    expect(csv).toHaveLength(blocks.length);
  });
});
