/**
 * The IEEE CSV listings reader: the real excerpts of test/fixtures/publishers (read whole, and
 * against csv-parse's independent reading), the bad-data corpus (each refusal names file and line),
 * the address split, the two builder shapes, differentials against oui-data's index.json and
 * against our IAB reader on Debian's 2022 snapshot, and the full-size generator.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IEEE_REGISTRY_ROWS, writeIeeeRegistryCsvs } from '../../../bench/fixtures/ieeeRegistryCsv.js';
import { countryCodeOfName } from '../../../src/tables/sources/countries.js';
import { readIabRegistry } from '../../../src/tables/sources/iabRegistry.js';
import {
  IEEE_REGISTRY_FILES,
  IEEE_REGISTRY_HEADER,
  IEEE_REGISTRY_LINE_BOUNDS,
  countryOfCode,
  iabBlocksOf,
  organizationAddressParts,
  readIeeeRegistryCsv,
  registryIndexOf,
  type IeeeAssignment,
  type IeeeReadOptions,
  type IeeeRegistry,
} from '../../../src/tables/sources/ieeeRegistryCsv.js';
import { linesOf, linesOfFile } from '../../../src/tables/sources/textLines.js';

const ROOT = path.join(import.meta.dirname, '..', '..', '..');
const PUBLISHER = path.join(ROOT, 'test', 'fixtures', 'publishers', 'standards-oui.ieee.org');
const FIXTURES: Record<IeeeRegistry, string> = {
  'MA-L': path.join(PUBLISHER, 'oui', 'oui.csv'),
  'MA-M': path.join(PUBLISHER, 'oui28', 'mam.csv'),
  'MA-S': path.join(PUBLISHER, 'oui36', 'oui36.csv'),
  IAB: path.join(PUBLISHER, 'iab', 'iab.csv'),
};
const REGISTRIES = Object.keys(FIXTURES) as IeeeRegistry[];
/** The excerpts hold 110 to 120 rows: below every registry's minimum, so the tests pass theirs. */
const EXCERPT: IeeeReadOptions = { minimumRows: 100 };

const readFixture = (registry: IeeeRegistry): Promise<IeeeAssignment[]> =>
  readIeeeRegistryCsv(linesOfFile(FIXTURES[registry], IEEE_REGISTRY_LINE_BOUNDS), registry, path.basename(FIXTURES[registry]), EXCERPT);

async function* bytesOf(text: string | Buffer): AsyncGenerator<Buffer> {
  yield typeof text === 'string' ? Buffer.from(text) : text;
}

const readText = (text: string | Buffer, registry: IeeeRegistry = 'MA-L', options: IeeeReadOptions = { minimumRows: 0 }) =>
  readIeeeRegistryCsv(linesOf(bytesOf(text), 'oui.csv'), registry, 'oui.csv', options);

const csv = (...rows: string[]) => [IEEE_REGISTRY_HEADER, ...rows].join('\r\n') + '\r\n';

const CISCO = 'MA-L,00000C,"Cisco Systems, Inc",170 WEST TASMAN DRIVE SAN JOSE CA US 95134-1706 ';
const APPLE = 'MA-L,F0EE7A,"Apple, Inc.",1 Infinite Loop Cupertino CA US 95014 ';

describe('IEEE CSV listings: the real excerpts', () => {
  for (const registry of REGISTRIES) {
    it(`reads the ${registry} excerpt row for row as csv-parse does`, async () => {
      const rows = await readFixture(registry);
      const independent = parseCsv(fs.readFileSync(FIXTURES[registry]), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(independent.length);
      expect(rows.length).toBeGreaterThanOrEqual(100);
      rows.forEach((row, i) => {
        const other = independent[i];
        expect(row.registry).toBe(other.Registry);
        expect(row.assignment).toBe(other.Assignment);
        expect(row.assignment).toHaveLength(IEEE_REGISTRY_FILES[registry].digits);
        expect(row.address).toBe(other['Organization Address'].trim() === '' ? null : other['Organization Address']);
        // the reader's only changes to a name: runs of spaces and tabs, and character references
        expect(row.organization).toBe(
          other['Organization Name']
            .replace(/&amp;/g, '&')
            .replace(/&quot;/g, '"')
            .replace(/&#39;/g, "'")
            .replace(/[ \t]+/g, ' ')
            .trim(),
        );
      });
    });

    it(`refuses the ${registry} excerpt at the default minimum, as it would a truncated download`, async () => {
      const { minimumRows } = IEEE_REGISTRY_FILES[registry];
      await expect(readIeeeRegistryCsv(linesOfFile(FIXTURES[registry]), registry, 'listing.csv')).rejects.toThrow(
        new RegExp(`^listing\\.csv: 1[12]0 rows, fewer than the ${minimumRows} of a whole ${registry} listing`),
      );
    });
  }

  it('keeps the published names, quotes, references and private rows as the reader promises', async () => {
    const rows = new Map<string, IeeeAssignment[]>();
    for (const registry of REGISTRIES)
      for (const row of await readFixture(registry)) rows.set(row.assignment, [...(rows.get(row.assignment) ?? []), row]);
    const one = (assignment: string) => rows.get(assignment)![0];
    expect(one('00000C')).toEqual({
      registry: 'MA-L',
      assignment: '00000C',
      organization: 'Cisco Systems, Inc',
      address: '170 WEST TASMAN DRIVE SAN JOSE CA US 95134-1706 ',
    });
    expect(one('F0EE7A')).toMatchObject({ organization: 'Apple, Inc.', address: '1 Infinite Loop Cupertino CA US 95014 ' });
    expect(one('388A21').organization).toBe('UAB "Teltonika Telematics"');
    expect(one('8C1F64EAA').organization).toBe('"KB "Modul", LLC');
    expect(one('0026BD').organization).toBe('JTEC Card & Communication Co., Ltd');
    expect(one('F8B568E').organization).toBe('ZAO "RADIUS Avtomatika"');
    expect(one('901234').organization).toBe('Shenzhen YOUHUA Technology Co., Ltd'); // a tab at its end
    expect(one('0050C26C4').address).toBe('"Mads-Clausen-Str. 7 Flensburg Schleswig-Holstein DE 24939  ');
    expect(rows.get('080030')!.map((r) => r.organization)).toEqual([
      'NETWORK RESEARCH CORPORATION',
      'ROYAL MELBOURNE INST OF TECH',
      'CERN',
    ]);
    expect(rows.get('0001C8')!.map((r) => [r.organization, r.address])).toEqual([
      ['THOMAS CONRAD CORP.', '1908-R KRAMER LANE AUSTIN TX US 78758 '],
      ['CONRAD CORP.', null],
    ]);
    const privates = [...rows.values()].flat().filter((r) => r.organization === 'Private');
    expect(privates.length).toBeGreaterThanOrEqual(8);
    expect(privates.filter((r) => r.address !== null).map((r) => r.registry)).toEqual(['MA-L', 'MA-M']);
  });

  it('reads a copy with LF line ends or a BOM as the CRLF original', async () => {
    const bytes = fs.readFileSync(FIXTURES['MA-M']);
    const original = await readText(bytes, 'MA-M');
    expect(await readText(bytes.toString('utf8').replace(/\r\n/g, '\n'), 'MA-M')).toEqual(original);
    expect(await readText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), 'MA-M')).toEqual(original);
  });
});

describe('IEEE CSV listings: the bad-data corpus', () => {
  const refusals: [string, string | Buffer, RegExp, IeeeRegistry?][] = [
    ['an empty file', '', /^oui\.csv:1: empty, expected the header/],
    ['a wrong header', csv(CISCO).replace('Organization Address', 'Address'), /^oui\.csv:1: expected the header/],
    ['a header with a BOM written twice', Buffer.from('\ufeff\ufeff' + csv(CISCO)), /^oui\.csv:1: expected the header/],
    ['the registry of another listing', csv(CISCO, APPLE.replace('MA-L', 'MA-M')), /^oui\.csv:3: registry "MA-M" in the MA-L listing/],
    [
      'an assignment of the wrong width',
      csv(CISCO, APPLE.replace('F0EE7A', 'F0EE7A1')),
      /^oui\.csv:3: assignment "F0EE7A1" is not 6 upper-case hex digits/,
    ],
    [
      'an MA-M assignment of MA-L width',
      csv('MA-M,C85CE2,Acme,1 Road City CN 1 '),
      /^oui\.csv:2: assignment "C85CE2" is not 7 upper-case hex digits/,
      'MA-M',
    ],
    ['lower-case hex', csv(APPLE.replace('F0EE7A', 'f0ee7a')), /^oui\.csv:2: assignment "f0ee7a" is not 6 upper-case/],
    ['a separated assignment', csv(APPLE.replace('F0EE7A', 'F0-EE-7A')), /^oui\.csv:2: assignment "F0-EE-7A" is not 6/],
    [
      'an IAB block outside the IAB parents',
      csv('IAB,70B3D5001,Acme,1 Road City US 1 '),
      /^oui\.csv:2: IAB block 70B3D5001 is not under one of the IAB parents/,
      'IAB',
    ],
    ['an assignment listed twice', csv(CISCO, APPLE, CISCO), /^oui\.csv:4: assignment 00000C appears twice/],
    [
      'an MA-S block listed twice',
      csv('MA-S,70B3D5001,A,', 'MA-S,70B3D5001,B,'),
      /^oui\.csv:3: assignment 70B3D5001 appears twice/,
      'MA-S',
    ],
    [
      'an unterminated quote',
      csv(CISCO, 'MA-L,F0EE7A,"Apple, Inc.,1 Infinite Loop Cupertino CA US 95014 '),
      /^oui\.csv:3: unterminated quoted field/,
    ],
    [
      'a quoted field broken over two lines',
      csv('MA-L,F0EE7A,"Apple,', ' Inc.",1 Infinite Loop '),
      /^oui\.csv:2: unterminated quoted field/,
    ],
    ['text after a closing quote', csv('MA-L,F0EE7A,"Apple, Inc." Ltd,1 Infinite Loop '), /^oui\.csv:2: text after a closing quote/],
    ['a quote inside an unquoted field', csv('MA-L,388A21,UAB "Teltonika",Vilnius LT 1 '), /^oui\.csv:2: a quote inside an unquoted field/],
    ['three fields', csv(CISCO, 'MA-L,F0EE7A,Apple'), /^oui\.csv:3: 3 fields, expected 4/],
    ['five fields', csv(`${APPLE},extra`), /^oui\.csv:2: 5 fields, expected 4/],
    ['a blank line', csv(CISCO, '', APPLE), /^oui\.csv:3: an empty line/],
    ['an empty organization', csv('MA-L,F0EE7A,,1 Infinite Loop '), /^oui\.csv:2: assignment F0EE7A names no organization/],
    [
      'an organization of spaces and tabs',
      csv('MA-L,F0EE7A, \t ,1 Infinite Loop '),
      /^oui\.csv:2: assignment F0EE7A names no organization/,
    ],
    ['a control character', csv(CISCO, APPLE.replace('Loop', 'Lo\u0000op')), /^oui\.csv:3: a control character/],
    ['a bare CR inside a row', csv(CISCO, APPLE.replace('Loop', 'Lo\rop')), /^oui\.csv:3: a control character/],
    ['a reference to no character', csv('MA-L,F0EE7A,Apple &#0; Inc,1 Infinite Loop '), /^oui\.csv:2: &#0; is not a character/],
    [
      'a reference to no character in an address',
      csv('MA-L,F0EE7A,Apple,1 Infinite &#xD800; Loop '),
      /^oui\.csv:2: &#xD800; is not a character/,
    ],
    ['an over-long line', csv(CISCO, `MA-L,F0EE7A,Apple,${'x'.repeat(1100)} `), /^oui\.csv:3: line longer than 1024 characters/],
    [
      'a body that is not UTF-8',
      Buffer.concat([Buffer.from(csv(CISCO)), Buffer.from([0x4d, 0x41, 0xff, 0x0a])]),
      /^oui\.csv:\d+: not UTF-8 text/,
    ],
  ];
  for (const [what, text, message, registry] of refusals) {
    it(`refuses ${what}, naming file and line`, async () => {
      await expect(readText(text, registry)).rejects.toThrow(message);
    });
  }

  it('takes the assignments IEEE itself lists more than once, and no others', async () => {
    const rows = await readText(
      csv('MA-L,080030,NETWORK RESEARCH CORPORATION,x ', 'MA-L,080030,CERN,y ', 'MA-L,0001C8,A,', 'MA-L,0001C8,B,'),
    );
    expect(rows.map((r) => r.organization)).toEqual(['NETWORK RESEARCH CORPORATION', 'CERN', 'A', 'B']);
    await expect(readText(csv('MA-S,080030AAA,A,', 'MA-S,080030AAA,B,'), 'MA-S')).rejects.toThrow(
      /^oui\.csv:3: assignment 080030AAA appears twice/,
    );
  });

  it('refuses a listing shorter than its minimum, the default being the registry’s', async () => {
    await expect(readText(csv(CISCO, APPLE), 'MA-L', { minimumRows: 3 })).rejects.toThrow(
      /^oui\.csv: 2 rows, fewer than the 3 of a whole MA-L listing/,
    );
    await expect(readText(csv(CISCO, APPLE), 'MA-L', {})).rejects.toThrow(/fewer than the 37500 of a whole MA-L listing/);
    await expect(readText(csv(), 'MA-L', {})).rejects.toThrow(/^oui\.csv: 0 rows, fewer than the 37500/);
  });

  it('reads any row written as IEEE quotes it back to its fields', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', ',', '"', '&', ';', 'é', '中'), maxLength: 40 });
    const quoted = (field: string) => (/[",]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 0xffffff }), text, text), {
          minLength: 1,
          maxLength: 8,
          selector: (row) => row[0],
        }),
        async (rows) => {
          const named = rows.filter(
            ([, name]) => name.replace(/[ \t]+/g, ' ').trim() !== '' && !/&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-f]+);/i.test(name),
          );
          const lines = named.map(([n, name, address]) =>
            ['MA-L', n.toString(16).toUpperCase().padStart(6, '0'), name, address].map(quoted).join(','),
          );
          const read = await readText(csv(...lines));
          expect(read.map((r) => [r.organization, r.address])).toEqual(
            named.map(([, name, address]) => [name.replace(/[ \t]+/g, ' ').trim(), address.trim() === '' ? null : address]),
          );
        },
      ),
    );
  });
});

describe('the country code in an Organization Address', () => {
  const cases: [string, string | null, string | null][] = [
    ['1 Infinite Loop Cupertino CA US 95014 ', '1 Infinite Loop Cupertino CA 95014', 'US'],
    ['Paffrather Strasse 140 Bergisch-Gladbach NRW DE 51465 ', 'Paffrather Strasse 140 Bergisch-Gladbach NRW 51465', 'DE'],
    ['Unit 13, 4/F, New City Centre, Kowloon  HK  ', 'Unit 13, 4/F, New City Centre, Kowloon', 'HK'], // no postal code
    ['Road 156 Caguas West Ind. Park Caguas  PR 00726 ', 'Road 156 Caguas West Ind. Park Caguas 00726', 'PR'], // no state
    ['Via Leini l/b San Maurizio Canavese IT 10077 TO ', 'Via Leini l/b San Maurizio Canavese 10077 TO', 'IT'], // TO ends the postal code
    ['Saltoniskiu  str. 9B-1 Vilnius  LT LT-08105 ', 'Saltoniskiu str. 9B-1 Vilnius LT-08105', 'LT'],
    ['ESP 237 Eindhoven Noord-Brabant NL 5633 AD ', 'ESP 237 Eindhoven Noord-Brabant 5633 AD', 'NL'],
    ['Svetog Nikole 27 Beograd Serbia YU 11060 ', 'Svetog Nikole 27 Beograd Serbia 11060', 'RS'], // retired code, as oui-data has it
    ['2 Rue Georges Melies Bois D&#39;Arcy  FR 78390 ', "2 Rue Georges Melies Bois D'Arcy 78390", 'FR'],
    ['     ', null, null],
    ['WERNER-VON-SIEMENS STRASSE 13 GERMANY ', 'WERNER-VON-SIEMENS STRASSE 13 GERMANY', null],
    // what the published line cannot tell apart (documented on organizationAddressParts)
    ['1163 Kassel Terrace Sunnyvale CA  94089 ', '1163 Kassel Terrace Sunnyvale 94089', 'CA'], // no country: read as Canada
    ['Rm707 GITEC 1121-9 Jungri Masan Gyeng-Nam KR GN 630-857 ', 'Rm707 GITEC 1121-9 Jungri Masan Gyeng-Nam KR 630-857', 'GN'],
  ];
  for (const [published, address, country] of cases) {
    it(`splits ${JSON.stringify(published)}`, () => {
      expect(organizationAddressParts(published)).toEqual({ address, country_code: country });
    });
  }

  it('names every country so that the builder reads the name back as its code', () => {
    const codes = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'world-countries', 'countries.json'), 'utf8')) as {
      cca2: string;
    }[];
    for (const { cca2 } of codes) {
      const country = countryOfCode(cca2);
      expect(country?.code, cca2).toBe(cca2);
      expect(countryCodeOfName(country!.name)).toBe(cca2);
    }
    for (const notCountry of ['AA', 'ZZ', 'QO', 'EU', 'UN', 'TX']) expect(countryOfCode(notCountry), notCountry).toBeNull();
  });
});

/** Company and country of an index.json value, split as macTableBuilder's registryEntry splits it. */
function builderView(value: string): { company: string; country: string | null } {
  const lines = value
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const rest = lines.slice(1);
  return { company: lines[0], country: rest.length > 0 ? countryCodeOfName(rest[rest.length - 1]) : null };
}

describe('the builder shapes', () => {
  it("gives oui-data's index.json shape: company, address, country name", async () => {
    const index = registryIndexOf([...(await readFixture('MA-L')), ...(await readFixture('MA-M')), ...(await readFixture('MA-S'))]);
    expect(index['00000C']).toBe('Cisco Systems, Inc\n170 WEST TASMAN DRIVE SAN JOSE CA 95134-1706\nUnited States');
    expect(index.F0EE7A).toBe('Apple, Inc.\n1 Infinite Loop Cupertino CA 95014\nUnited States');
    expect(index['080030']).toBe('CERN\nCH-1211 GENEVE SUISSE/SWITZ 023\nSwitzerland'); // the last of its three rows
    expect(index['0001C8']).toBe('CONRAD CORP.');
    expect(index['0050C2']).toBe('IEEE Registration Authority\n445 Hoes Lane Piscataway NJ 08554\nUnited States');
    expect(Object.values(index).filter((v) => v === 'Private').length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(index).every((k) => [6, 7, 9].includes(k.length))).toBe(true);
    expect(builderView(index['0050C2'])).toEqual({ company: 'IEEE Registration Authority', country: 'US' });
  });

  it('refuses an assignment given twice that IEEE does not list twice', () => {
    const row: IeeeAssignment = { registry: 'MA-S', assignment: '70B3D5001', organization: 'A', address: null };
    expect(() => registryIndexOf([row, { ...row, organization: 'B' }])).toThrow(/assignment 70B3D5001 appears twice \(MA-S and MA-S\)/);
    expect(() =>
      iabBlocksOf([
        { ...row, registry: 'IAB', assignment: '0050C2001' },
        { ...row, registry: 'MA-S', assignment: '0050C2001' },
      ]),
    ).toThrow(/appears twice \(IAB and MA-S\)/);
    expect(() => iabBlocksOf([row])).toThrow(/70B3D5001 is of MA-S, not IAB/);
  });

  it('gives the IAB blocks as readIabRegistry does', async () => {
    const blocks = iabBlocksOf(await readFixture('IAB'));
    expect(blocks).toHaveLength(110);
    expect(blocks.find((b) => b.prefix === '0050C27D5')).toEqual({
      prefix: '0050C27D5',
      company: 'DEUTA-WERKE GmbH',
      address: 'Paffrather Strasse 140 Bergisch-Gladbach NRW 51465',
      country_code: 'DE',
    });
    expect(blocks.filter((b) => b.company === null).every((b) => b.address === null && b.country_code === null)).toBe(true);
    expect(blocks.filter((b) => b.company === null)).toHaveLength(3);
  });
});

describe('differentials', () => {
  /**
   * The excerpts (2026-06-06) against the installed oui-data, which reads IEEE's text listings of a
   * later day. Where a company differs, the reason is one of: IEEE's text listing leaves out the
   * double quotes of names (`UAB "Teltonika Telematics"` is `UAB Teltonika Telematics` there);
   * oui-data keeps HTML references undecoded (`&amp;`); or the assignee was renamed after
   * 2026-06-06 (RENAMED, each checked against the IEEE CSV of 2026-06-06 and oui-data).
   */
  const RENAMED: Record<string, [string, string]> = {
    '08EA44': ['Extreme Networks Headquarters', 'Extreme Networks, Inc.'],
    F4EAB5: ['Extreme Networks Headquarters', 'Extreme Networks, Inc.'],
    B87CF2: ['Extreme Networks Headquarters', 'Extreme Networks, Inc.'],
  };
  /**
   * Countries that differ, all from addresses whose one CSV line does not show which pair is the
   * country (oui-data reads the country from its own line of the text listing): a postal code
   * holding a country-like pair and a trailing space (`NL 9206 AD  `), an empty state before a
   * state-like postal code (`Saskatoon  CA SK S7N 3R1`, `Adelaide   AU SA 5000`), a state written
   * twice or as the country (`San Jose CA US` with state `CA CA`), an empty country after a US state
   * (`Sunnyvale CA  94089`, `Waltham MA  02451`), an address without its state in the text listing.
   */
  const COUNTRY_UNREADABLE = [
    '0009F7',
    '0080B7',
    '70B3D51D6',
    '70B3D5561',
    '70B3D5F34',
    '7C477CD',
    '80015C',
    '8C1F64BBC',
    'E44CC7A',
    'E8C1D7',
  ];

  it("names the company oui-data's index.json names, for every assignment in both", async () => {
    const ouiData = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'oui-data', 'index.json'), 'utf8')) as Record<
      string,
      string
    >;
    const index = registryIndexOf([...(await readFixture('MA-L')), ...(await readFixture('MA-M')), ...(await readFixture('MA-S'))]);
    const decoded = (text: string) =>
      text
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'");
    const companies: string[] = [];
    const countries: string[] = [];
    let compared = 0;
    for (const [assignment, value] of Object.entries(index)) {
      const theirs = ouiData[assignment];
      if (theirs === undefined) continue;
      compared++;
      const ours = builderView(value);
      const other = builderView(theirs);
      const renamed = RENAMED[assignment];
      if (renamed) expect([ours.company, other.company]).toEqual(renamed);
      else if (ours.company.replace(/"/g, '') !== decoded(other.company).replace(/"/g, ''))
        companies.push(`${assignment}: ${ours.company} ≠ ${other.company}`);
      if (ours.country !== other.country) countries.push(assignment);
    }
    expect(compared).toBeGreaterThanOrEqual(330);
    expect(companies).toEqual([]);
    expect(countries.sort()).toEqual(COUNTRY_UNREADABLE);
  });

  it("reads Debian's 2022 IAB CSV whole, and agrees with our reader of the text listing of the same snapshot", async () => {
    const registry = path.join(ROOT, 'data', 'registry');
    const rows = await readIeeeRegistryCsv(linesOfFile(path.join(registry, 'iab.csv'), IEEE_REGISTRY_LINE_BOUNDS), 'IAB', 'iab.csv');
    const blocks = iabBlocksOf(rows);
    const listed = new Map(readIabRegistry(fs.readFileSync(path.join(registry, 'iab.txt'), 'utf8'), 'iab.txt').map((b) => [b.prefix, b]));
    expect(blocks).toHaveLength(4575);
    expect(blocks.filter((b) => b.company === null)).toHaveLength(24);
    // the text listing leaves out quotes and keeps runs of spaces and references
    const plain = (name: string | null) => name && name.replace(/&amp;/g, '&').replace(/"/g, '').replace(/ +/g, ' ');
    const countries: string[] = [];
    for (const block of blocks) {
      const other = listed.get(block.prefix)!;
      expect(plain(block.company), block.prefix).toBe(plain(other.company));
      if (block.country_code !== other.country_code) countries.push(`${block.prefix} ${block.country_code} ${other.country_code}`);
    }
    // a postal code holding a country-like pair (5656 AE , GN 630-857, 6883 GN Velp); YU read as its successor
    expect(countries.sort()).toEqual(['0050C24A9 GN NL', '0050C281C RS YU', '0050C2822 GN KR', '0050C2EBF AE NL']);
  });
});

describe('the full-size generator', () => {
  it('writes the four listings at their real row counts, read at the default minimums, the same for the same seed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ieee-'));
    try {
      const files = writeIeeeRegistryCsvs(dir, { seed: 1 });
      for (const registry of REGISTRIES) {
        expect(path.relative(dir, files[registry])).toBe(path.join('standards-oui.ieee.org', path.relative(PUBLISHER, FIXTURES[registry])));
        const rows = await readIeeeRegistryCsv(linesOfFile(files[registry], IEEE_REGISTRY_LINE_BOUNDS), registry, files[registry]);
        expect(rows).toHaveLength(IEEE_REGISTRY_ROWS[registry]);
      }
      const first = fs.readFileSync(files['MA-M']);
      writeIeeeRegistryCsvs(dir, { seed: 1 });
      expect(fs.readFileSync(files['MA-M']).equals(first)).toBe(true);
      writeIeeeRegistryCsvs(dir, { seed: 2 });
      expect(fs.readFileSync(files['MA-M']).equals(first)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
