/**
 * The RIR delegated-extended reader and the `.md5` reader: the five real-format fixtures read whole
 * (their known delegations, the pool, each RIR's own form), a bad-data corpus refused with file and
 * line (a truncated file caught by the counts among them), and a round trip through the full-size
 * generator at a small size.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { delegatedFileName, delegatedPath, RIRS, writeDelegatedFiles } from '../../../bench/fixtures/rirDelegated.js';
import { parseIPv4 } from '../../../src/address/ipAddress.js';
import {
  DELEGATED_EXTENDED_URLS,
  md5OfChecksumFile,
  readDelegatedExtended,
  type DelegatedAsns,
  type DelegatedBlock,
  type DelegatedFile,
  type Rir,
} from '../../../src/tables/sources/rirDelegated.js';
import { linesOf, linesOfFile, SourceFormatError } from '../../../src/tables/sources/textLines.js';

const ROOT = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');
const FILE = 'delegated-ripencc-extended-latest';

const read = (text: string, expected?: Rir) => readDelegatedExtended(linesOf(Readable.from([Buffer.from(text)]), FILE), FILE, expected);
const v4 = (text: string) => BigInt(parseIPv4(text));
const v6 = (hex: string) => BigInt(`0x${hex}`);
const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex');

describe('the five fixtures', async () => {
  const files = {} as Record<Rir, DelegatedFile>;
  for (const rir of RIRS) files[rir] = await readDelegatedExtended(linesOfFile(delegatedPath(ROOT, rir)), delegatedPath(ROOT, rir), rir);
  const block = (rir: Rir, family: 4 | 6, address: bigint): DelegatedBlock | undefined =>
    files[rir].blocks.find((b) => b.family === family && b.start <= address && address <= b.end);
  const asn = (rir: Rir, first: number): DelegatedAsns | undefined => files[rir].asns.find((a) => a.first === first);

  it('lie at their URLs under the mirror layout, each with the .md5 its RIR publishes', () => {
    for (const rir of RIRS) {
      const file = delegatedPath(ROOT, rir);
      const url = new URL(DELEGATED_EXTENDED_URLS[rir]);
      expect(path.relative(ROOT, file).split(path.sep).join('/')).toBe(`${url.host}${url.pathname}`);
      const checksum = fs.readFileSync(`${file}.md5`, 'utf8');
      expect(md5OfChecksumFile(checksum, delegatedFileName(rir), `${file}.md5`)).toBe(md5(fs.readFileSync(file)));
    }
    const checksum = (rir: Rir) => fs.readFileSync(`${delegatedPath(ROOT, rir)}.md5`, 'utf8');
    expect(checksum('afrinic')).toMatch(/^MD5 \(delegated-afrinic-extended-latest\) = [0-9a-f]{32}$/);
    expect(checksum('ripencc')).toMatch(/^MD5 \(delegated-ripencc-extended-latest\) = [0-9a-f]{32}$/);
    expect(checksum('apnic')).toMatch(/^MD5 \(delegated-apnic-extended-latest\) = [0-9a-f]{32}\n$/);
    expect(checksum('lacnic')).toMatch(/^MD5 \(delegated-lacnic-extended-latest\) = [0-9a-f]{32}\n$/);
    expect(checksum('arin')).toMatch(/^[0-9a-f]{32} {2}delegated-arin-extended-20261115\n$/);
  });

  it('name their registry, serial and day in each RIR’s form', () => {
    expect(RIRS.map((rir) => [files[rir].registry, files[rir].serial, files[rir].published])).toEqual([
      ['afrinic', '20261115', '2026-11-15'],
      ['apnic', '20261116', '2026-11-15'],
      ['arin', '1794751221096', '2026-11-15'],
      ['lacnic', '20261115', '2026-11-13'],
      ['ripencc', '1794783599', '2026-11-15'],
    ]);
  });

  it('hold every record: blocks by family then start, AS number ranges by first number', () => {
    expect(RIRS.map((rir) => [files[rir].blocks.length, files[rir].asns.length])).toEqual([
      [144, 40],
      [113, 54],
      [27, 7],
      [137, 50],
      [146, 58],
    ]);
    for (const rir of RIRS) {
      const { blocks, asns } = files[rir];
      for (let i = 1; i < blocks.length; i++) {
        const [a, b] = [blocks[i - 1], blocks[i]];
        expect(a.family < b.family || (a.family === b.family && a.end < b.start)).toBe(true);
      }
      for (let i = 1; i < asns.length; i++) expect(asns[i].first).toBeGreaterThanOrEqual(asns[i - 1].first + asns[i - 1].count);
    }
  });

  it('give the delegations of the addresses the service is tested with', () => {
    expect(block('arin', 4, v4('8.8.8.8'))).toEqual({
      registry: 'arin',
      country_code: 'US',
      family: 4,
      start: v4('8.8.8.0'),
      end: v4('8.8.8.255'),
      date: '2023-12-28',
      status: 'allocated',
      opaque_id: '9d99e3f7d38d1b8026f2ebbea4017c9f',
    });
    expect(block('arin', 6, v6('20014860486000000000000000008888'))).toMatchObject({
      country_code: 'US',
      start: v6('20014860000000000000000000000000'),
      end: v6('20014860ffffffffffffffffffffffff'),
      date: '2005-03-14',
      opaque_id: '9d99e3f7d38d1b8026f2ebbea4017c9f',
    });
    expect(block('apnic', 4, v4('1.1.1.1'))).toMatchObject({
      country_code: 'AU',
      start: v4('1.1.1.0'),
      end: v4('1.1.1.255'),
      status: 'assigned',
    });
    expect(block('apnic', 4, v4('130.102.0.1'))).toMatchObject({
      country_code: 'AU',
      start: v4('130.102.0.0'),
      end: v4('130.102.255.255'),
    });
    expect(block('afrinic', 4, v4('41.213.128.1'))).toEqual({
      registry: 'afrinic',
      country_code: 'RE',
      family: 4,
      start: v4('41.213.128.0'),
      end: v4('41.213.255.255'),
      date: '2008-01-08',
      status: 'allocated',
      opaque_id: 'F364E67C',
    });
    expect(block('ripencc', 4, v4('109.122.189.152'))).toMatchObject({
      country_code: 'RE',
      start: v4('109.122.128.0'),
      end: v4('109.122.191.255'),
    });
  });

  it('delegate nothing in 2e00::/7, which IANA has not allocated', () => {
    const [low, high] = [v6('2e000000000000000000000000000000'), v6('2fffffffffffffffffffffffffffffff')];
    for (const rir of RIRS) expect(files[rir].blocks.filter((b) => b.family === 6 && b.start <= high && b.end >= low)).toEqual([]);
  });

  it("list the pool too, with no country, date or holder (AFRINIC's ZZ read as none)", () => {
    for (const rir of RIRS) {
      const pool = files[rir].blocks.filter((b) => b.status === 'available' || b.status === 'reserved');
      expect(pool.length, rir).toBeGreaterThan(0);
      for (const b of pool) expect([b.country_code, b.date, b.opaque_id]).toEqual([null, null, null]);
    }
    expect(block('afrinic', 4, v4('41.57.113.1'))).toMatchObject({ status: 'reserved', country_code: null });
    // RIPE NCC's pool lines have 7 fields, and its ranges need not be one CIDR nor aligned
    expect(block('ripencc', 4, v4('185.0.40.64'))).toMatchObject({ status: 'reserved', end: v4('185.0.41.255') });
    expect(block('lacnic', 6, v6('20011201002000000000000000000000'))).toMatchObject({ status: 'available', opaque_id: null });
  });

  it("read ARIN's 00000000 as no date, and ranges of AS numbers", () => {
    expect(asn('arin', 3)).toEqual({
      registry: 'arin',
      country_code: 'US',
      first: 3,
      count: 1,
      status: 'assigned',
      opaque_id: 'd98c567cda2db06e693f2b574eafe848',
    });
    expect(asn('arin', 5120)?.count).toBe(257);
    expect(asn('arin', 403010)).toMatchObject({ count: 1371, status: 'available', country_code: null });
  });
});

describe('bad data', () => {
  const BASE = [
    '2|ripencc|1794783599|6|19700101|20261115|+0100',
    'ripencc|*|ipv4|*|3|summary',
    'ripencc|*|asn|*|1|summary',
    'ripencc|*|ipv6|*|2|summary',
    'ripencc|PS|ipv4|1.178.112.0|4096|20071126|allocated|172ce676-8ded-4901-9812-793bd0b4ec77',
    'ripencc|BG|ipv4|87.116.83.0|2304|20050913|allocated|162f9494-4727-4143-89e3-1a5a64454c0d',
    'ripencc||ipv4|185.0.40.64|448||reserved',
    'ripencc|BG|asn|9070|1|19981125|allocated|162f9494-4727-4143-89e3-1a5a64454c0d',
    'ripencc|NL|ipv6|2001:600::|29|19990826|allocated|a71dd866-c717-4529-950b-2040370c754a',
    'ripencc||ipv6|2001:609::|32||reserved',
  ];
  /** BASE with line `line` (1-based) replaced, or removed when `text` is null. */
  const edit = (line: number, text: string | null) => {
    const lines = [...BASE];
    if (text === null) lines.splice(line - 1, 1);
    else lines[line - 1] = text;
    return `${lines.join('\n')}\n`;
  };

  it('reads the base file, in any record order', async () => {
    const file = await read(`${BASE.join('\n')}\n`, 'ripencc');
    expect(file.blocks.map((b) => b.start)).toEqual([
      v4('1.178.112.0'),
      v4('87.116.83.0'),
      v4('185.0.40.64'),
      v6('20010600000000000000000000000000'),
      v6('20010609000000000000000000000000'),
    ]);
    const descending = [...BASE.slice(0, 4), ...BASE.slice(4).reverse()].join('\n');
    expect(await read(descending)).toEqual(file);
  });

  const refusals: [string, string, number, RegExp][] = [
    ['a file cut at a line end (the version count)', edit(10, null), 1, /the version line announces 6 records, the file holds 5/],
    ['a file cut inside a line', `${BASE.join('\n').slice(0, -20)}\n`, 10, /4 fields, a record has at least 7/],
    ['a summary that disagrees', edit(2, 'ripencc|*|ipv4|*|4|summary'), 2, /the ipv4 summary announces 4 records, the file holds 3/],
    ['records of a type without a summary', edit(3, null), 1, /1 asn records and no asn summary/],
    ['a page that is not the file', '<html><body>Moved</body></html>\n', 1, /not a version line/],
    ['a version other than 2', edit(1, '3|ripencc|1794783599|6|19700101|20261115|+0100'), 1, /format version "3" is not 2/],
    ['an unknown registry', edit(1, '2|iana|1794783599|6|19700101|20261115|+0100'), 1, /"iana" is not one of the five RIRs/],
    ['a version line without a date', edit(1, '2|ripencc|1794783599|6|19700101|2026111|+0100'), 1, /neither the end date/],
    ['a record of another registry', edit(5, BASE[4].replace('ripencc|PS', 'arin|PS')), 5, /a record of arin's in ripencc's file/],
    ['a bad IPv4 address', edit(5, BASE[4].replace('1.178.112.0', '1.178.112')), 5, /not an IPv4 address: "1\.178\.112"/],
    ['a bad IPv6 address', edit(9, BASE[8].replace('2001:600::', '2001:600:::')), 9, /not an IPv6 address/],
    ['an IPv4 range past the end', edit(5, BASE[4].replace('1.178.112.0|4096', '255.255.255.0|512')), 5, /runs past 255\.255\.255\.255/],
    [
      'an IPv6 start off its prefix',
      edit(9, BASE[8].replace('2001:600::|29', '2001:601::|29')),
      9,
      /2001:601:: is not the start of a \/29/,
    ],
    ['an IPv6 prefix over 128', edit(9, BASE[8].replace('|29|', '|129|')), 9, /prefix length 129 is over 128/],
    ['a zero value', edit(6, BASE[5].replace('|2304|', '|0|')), 6, /value "0" is not a positive number/],
    ['overlapping blocks', edit(6, BASE[5].replace('87.116.83.0', '1.178.127.0')), 6, /the block overlaps the one on line 5/],
    [
      'overlapping AS number ranges',
      edit(10, 'ripencc|BG|asn|9069|2|19981125|allocated|x').replace('|2|summary', '|1|summary').replace('|asn|*|1|', '|asn|*|2|'),
      8,
      /the AS number range overlaps the one on line 10/,
    ],
    ['a bad country', edit(5, BASE[4].replace('|PS|', '|PSE|')), 5, /"PSE" is not a country code/],
    ['a lowercase country', edit(5, BASE[4].replace('|PS|', '|ps|')), 5, /"ps" is not a country code/],
    [
      'a bad status',
      edit(5, BASE[4].replace('|allocated|', '|pending|')),
      5,
      /status "pending" is not allocated, assigned, available or reserved/,
    ],
    ['an IANA status', edit(7, 'ripencc||ipv4|185.0.40.64|448||ietf'), 7, /status "ietf"/],
    [
      'a delegation without its opaque-id field',
      edit(5, BASE[4].replace(/\|[^|]*$/, '')),
      5,
      /an allocated record without an opaque-id field/,
    ],
    ['a bad date', edit(5, BASE[4].replace('20071126', '20071326')), 5, /date "20071326" is not YYYYMMDD/],
    ['a bad type', edit(8, BASE[7].replace('|asn|', '|as|')), 8, /record type "as" is not asn, ipv4 or ipv6/],
    ['a second summary, after the records', `${BASE.join('\n')}\nripencc|*|ipv4|*|3|summary\n`, 11, /a second ipv4 summary/],
  ];
  it.each(refusals)('refuses %s, naming the file and line', async (_what, text, line, message) => {
    const error = await read(text).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SourceFormatError);
    expect((error as SourceFormatError).line).toBe(line);
    expect((error as SourceFormatError).message).toMatch(new RegExp(`^${FILE}:${line}: `));
    expect((error as SourceFormatError).message).toMatch(message);
  });

  it("refuses another RIR's file when one is expected, and an empty file", async () => {
    await expect(read(`${BASE.join('\n')}\n`, 'apnic')).rejects.toThrow(/:1: the file is ripencc's, not apnic's/);
    await expect(read('# only a comment\n')).rejects.toThrow(/no version line/);
  });
});

describe('the .md5 files', () => {
  const HEX = '0bb8d65f1ff9d820f4bb56844f9948be';
  const name = 'delegated-arin-extended-latest';
  it('read the BSD form, with or without a final line break', () => {
    expect(md5OfChecksumFile(`MD5 (${name}) = ${HEX}`, name, 'x.md5')).toBe(HEX);
    expect(md5OfChecksumFile(`MD5 (${name}) = ${HEX.toUpperCase()}\n`, name, 'x.md5')).toBe(HEX);
  });
  it("read the GNU form, under the file's name or (ARIN) its dated name, and a lone digest", () => {
    expect(md5OfChecksumFile(`${HEX}  delegated-arin-extended-20260928\n`, name, 'x.md5')).toBe(HEX);
    expect(md5OfChecksumFile(`${HEX}  ${name}\n`, name, 'x.md5')).toBe(HEX);
    expect(md5OfChecksumFile(`${HEX} *${name}\r\n`, name, 'x.md5')).toBe(HEX);
    expect(md5OfChecksumFile(`${HEX}\n`, name, 'x.md5')).toBe(HEX);
    expect(md5OfChecksumFile(`${'1'.repeat(32)}  other-file\n${HEX}  ${name}\n`, name, 'x.md5')).toBe(HEX);
  });
  const refusals: [string, string, RegExp][] = [
    ['an error page', '<html>404 Not Found</html>\n', /x\.md5:1: not a checksum line/],
    ['an empty file', '', /x\.md5:1: not a checksum line/],
    ["another file's digest", `MD5 (delegated-apnic-extended-latest) = ${HEX}`, /x\.md5: no MD5 digest for delegated-arin-extended-latest/],
    ['a dated name that is not a date', `${HEX}  delegated-arin-extended-2026092\n`, /no MD5 digest/],
    ['a short digest', `MD5 (${name}) = ${HEX.slice(1)}`, /x\.md5:1: not a checksum line/],
    ['two different digests for the file', `${HEX}  ${name}\n${'1'.repeat(32)}  ${name}\n`, /x\.md5:2: a second, different digest/],
  ];
  it.each(refusals)('refuse %s', (_what, text, message) => {
    expect(() => md5OfChecksumFile(text, name, 'x.md5')).toThrow(SourceFormatError);
    expect(() => md5OfChecksumFile(text, name, 'x.md5')).toThrow(message);
  });
  it('take the dated name only for a -latest file', () => {
    expect(() => md5OfChecksumFile(`${HEX}  delegated-arin-extended-20260928\n`, 'delegated-arin-extended-20260927', 'x.md5')).toThrow(
      /no MD5 digest/,
    );
  });
});

describe('the full-size generator (at a small size)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rir-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const small = { asn: 40, ipv4: 90, ipv6: 70 };
  const counts = Object.fromEntries(RIRS.map((rir) => [rir, small])) as Record<Rir, typeof small>;

  it('writes five files and their .md5 in each RIR’s form, read back whole, the same for the same seed', async () => {
    const written = writeDelegatedFiles(dir, { seed: 3, counts });
    for (const rir of RIRS) {
      const file = written[rir];
      expect(file).toBe(delegatedPath(dir, rir));
      const parsed = await readDelegatedExtended(linesOfFile(file), file, rir);
      expect([parsed.blocks.length, parsed.asns.length, parsed.published]).toEqual([
        160,
        40,
        rir === 'lacnic' ? '2026-11-13' : '2026-11-15',
      ]);
      expect(md5OfChecksumFile(fs.readFileSync(`${file}.md5`, 'utf8'), delegatedFileName(rir), `${file}.md5`)).toBe(
        md5(fs.readFileSync(file)),
      );
    }
    const text = (rir: Rir) => fs.readFileSync(written[rir], 'utf8');
    expect(text('apnic').split('\n')[27]).toMatch(/^2\.3\|apnic\|20261116\|200\|\|20261115\|\+1000$/);
    expect(text('ripencc')).toMatch(/^ripencc\|\|ipv6\|[0-9a-f:]+\|\d+\|\|reserved$/m);
    expect(text('afrinic')).toMatch(/^afrinic\|ZZ\|ipv4\|[\d.]+\|\d+\|\|(available|reserved)\|$/m);
    const before = RIRS.map(text);
    writeDelegatedFiles(dir, { seed: 3, counts });
    expect(RIRS.map(text)).toEqual(before);
  });
});
