/**
 * The DB-IP City Lite reader: the real-format fixture read whole (its known answers), the form's
 * details (quoting, reserved rows, missing coordinates), a bad-data corpus refused with file and
 * line, the monthly file names, and round trips through the row writer and the full-size generator.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { dbipCoordinate, dbipCsvLine, writeDbipCityCsv, type Place } from '../../../bench/fixtures/dbipCityCsv.js';
import { parseIPv4 } from '../../../src/address/ipAddress.js';
import { dbipCityFileNames, readDbipCityCsv, type DbipCityCounts, type DbipCityRow } from '../../../src/tables/sources/dbipCityCsv.js';
import { linesOf, linesOfFile, SourceFormatError } from '../../../src/tables/sources/textLines.js';

const FIXTURE = path.join(
  import.meta.dirname,
  '..',
  '..',
  'fixtures',
  'publishers',
  'download.db-ip.com',
  'free',
  'dbip-city-lite-2026-11.csv.gz',
);
const FILE = 'dbip-city-lite-2026-11.csv';

async function read(text: string | Buffer, counts?: DbipCityCounts): Promise<DbipCityRow[]> {
  const rows: DbipCityRow[] = [];
  for await (const row of readDbipCityCsv(linesOf(Readable.from([Buffer.from(text)]), FILE), FILE, counts)) rows.push(row);
  return rows;
}

const v4 = (text: string) => BigInt(parseIPv4(text));
const v6 = (hex: string) => BigInt(`0x${hex}`);

describe('the DB-IP City Lite fixture', async () => {
  const counts: DbipCityCounts = { ipv4Rows: -1, ipv6Rows: -1 };
  const rows: DbipCityRow[] = [];
  for await (const row of readDbipCityCsv(linesOfFile(FIXTURE), FIXTURE, counts)) rows.push(row);
  const at = (family: 4 | 6, address: bigint) => rows.find((r) => r.family === family && r.start <= address && address <= r.end);

  it('is read whole, IPv4 rows then IPv6 rows, each ascending without overlap', () => {
    expect(counts).toEqual({ ipv4Rows: 219, ipv6Rows: 58 });
    expect(rows).toHaveLength(277);
    const firstV6 = rows.findIndex((r) => r.family === 6);
    expect(rows.slice(firstV6).every((r) => r.family === 6)).toBe(true);
    for (let i = 1; i < rows.length; i++) {
      if (rows[i].family === rows[i - 1].family) expect(rows[i].start).toBeGreaterThan(rows[i - 1].end);
    }
  });

  it('reads the reserved first row as no place at all', () => {
    expect(rows[0]).toEqual({
      family: 4,
      start: 0n,
      end: v4('0.255.255.255'),
      continent: null,
      country_code: null,
      region: null,
      city: null,
      latitude: null,
      longitude: null,
    });
  });

  it("gives DB-IP's answers for the addresses the fixture was built around", () => {
    expect(at(4, v4('8.8.8.8'))).toEqual({
      family: 4,
      start: v4('8.8.8.0'),
      end: v4('8.8.8.255'),
      continent: 'NA',
      country_code: 'US',
      region: 'California',
      city: 'Mountain View',
      latitude: 37.422,
      longitude: -122.085,
    });
    expect(at(4, v4('1.1.1.1'))).toMatchObject({ country_code: 'AU', region: 'New South Wales', city: 'Sydney' });
    expect(at(4, v4('109.122.189.152'))).toMatchObject({
      continent: 'EU',
      country_code: 'FR',
      region: 'New Aquitaine',
      city: 'La Reunion',
    });
    expect(at(4, v4('41.213.128.1'))).toMatchObject({ continent: 'AF', country_code: 'RE', city: 'Le Port', latitude: -20.9526 });
    expect(at(4, v4('130.102.0.1'))).toMatchObject({ continent: 'OC', country_code: 'AU', region: 'Victoria', city: 'Melbourne' });
    expect(at(6, v6('20014860486000000000000000008888'))).toMatchObject({ continent: 'NA', country_code: 'CA', city: 'Montreal' });
  });

  it('unquotes names holding a comma or doubled quotes', () => {
    expect(at(4, v4('2.85.24.1'))?.city).toBe('Ampelokipoi, Thessaloniki');
    expect(at(4, v4('41.76.0.1'))?.city).toBe('Maputo (Polana Cimento"A")');
    expect(at(6, v6('2c0ffb90000000000000000000000001'))?.city).toBe('Maputo (Polana Cimento"A")');
  });
});

describe('the row form', () => {
  it('reads quoted and plain fields, CRLF line ends and a byte order mark', async () => {
    const text =
      '\ufeff1.0.0.0,1.0.0.255,OC,AU,Queensland,"South Brisbane",-27.4767,153.017\r\n' +
      '2c0f:ff80::,2c0f:ff80:ffff:ffff:ffff:ffff:ffff:ffff,AF,ZA,Gauteng,"Sandton (Woodmead)",-26.0561,28.0696\r\n';
    expect(await read(text)).toEqual([
      {
        family: 4,
        start: v4('1.0.0.0'),
        end: v4('1.0.0.255'),
        continent: 'OC',
        country_code: 'AU',
        region: 'Queensland',
        city: 'South Brisbane',
        latitude: -27.4767,
        longitude: 153.017,
      },
      {
        family: 6,
        start: v6('2c0fff80000000000000000000000000'),
        end: v6('2c0fff80ffffffffffffffffffffffff'),
        continent: 'AF',
        country_code: 'ZA',
        region: 'Gauteng',
        city: 'Sandton (Woodmead)',
        latitude: -26.0561,
        longitude: 28.0696,
      },
    ]);
  });

  it('reads empty names and coordinates as null, and 0,0 as a position only where the country is known', async () => {
    const [unknown, noPlace, nullIsland] = await read(
      '0.0.0.0,0.255.255.255,ZZ,ZZ,,,0,0\n1.0.0.0,1.0.0.255,EU,DE,,,,\n1.0.1.0,1.0.1.255,AF,GH,,,0,0\n',
    );
    expect([unknown.latitude, unknown.longitude, unknown.country_code, unknown.continent]).toEqual([null, null, null, null]);
    expect([noPlace.region, noPlace.city, noPlace.latitude, noPlace.longitude]).toEqual([null, null, null, null]);
    expect([nullIsland.latitude, nullIsland.longitude]).toEqual([0, 0]);
  });

  it('fills the counts as it reads, and resets them for each file', async () => {
    const counts = { ipv4Rows: 7, ipv6Rows: 7 };
    await read('1.0.0.0,1.0.0.255,OC,AU,,,,\n1.0.1.0,1.0.1.255,OC,AU,,,,\n::,::ffff,ZZ,ZZ,,,0,0\n', counts);
    expect(counts).toEqual({ ipv4Rows: 2, ipv6Rows: 1 });
  });

  it('writes and reads back any names and coordinates (round trip through the row writer)', async () => {
    const name = fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s));
    const place = fc.record({
      region: name,
      city: name,
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(place, async ({ region, city, latitude, longitude }) => {
        const row: Place = { continent: 'EU', country: 'GR', region, city, latitude, longitude };
        const [back] = await read(`${dbipCsvLine('2.85.24.0', '2.85.24.255', row)}\n`);
        expect(back).toMatchObject({
          region: region === '' ? null : region,
          city: city === '' ? null : city,
          latitude: Number(dbipCoordinate(latitude)),
          longitude: Number(dbipCoordinate(longitude)),
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('bad data', () => {
  const GOOD = '1.0.0.0,1.0.0.255,OC,AU,Queensland,"South Brisbane",-27.4767,153.017';
  const refusals: [string, string, number, RegExp][] = [
    ['a short row', '1.0.0.0,1.0.0.255,OC,AU,Queensland,"South Brisbane",-27.4767', 1, /7 fields, a row has 8/],
    ['a long row', `${GOOD},extra`, 1, /9 fields/],
    ['a blank line', `${GOOD}\n\n1.0.1.0,1.0.1.255,OC,AU,,,,`, 2, /blank line/],
    ['a bad IPv4 address', '1.0.0.0,1.0.0.256,OC,AU,,,,', 1, /not an IPv4 address: "1.0.0.256"/],
    ['a leading zero', '01.0.0.0,1.0.0.255,OC,AU,,,,', 1, /not an IPv4 address: "01.0.0.0"/],
    ['a bad IPv6 address', '2001:db8::,2001:db8::g,EU,DE,,,,', 1, /not an IPv6 address/],
    ['two families in a row', '1.0.0.0,2001:db8::,OC,AU,,,,', 1, /not of one family/],
    ['a range ending before its start', '1.0.0.255,1.0.0.0,OC,AU,,,,', 1, /ends \(1\.0\.0\.0\) before it starts/],
    ['descending rows', `1.0.1.0,1.0.1.255,OC,AU,,,,\n${GOOD}`, 2, /not after the previous row's/],
    ['overlapping rows', `${GOOD}\n1.0.0.128,1.0.1.255,OC,AU,,,,`, 2, /not after the previous row's/],
    ['an IPv4 row after the IPv6 rows', `::,::ffff,ZZ,ZZ,,,0,0\n${GOOD}`, 2, /an IPv4 row after the IPv6 rows/],
    ['a bad continent', '1.0.0.0,1.0.0.255,XX,AU,,,,', 1, /"XX" is not a continent code/],
    ['a three-letter country', '1.0.0.0,1.0.0.255,OC,AUS,,,,', 1, /"AUS" is not a country code/],
    ['a lowercase country', '1.0.0.0,1.0.0.255,OC,au,,,,', 1, /"au" is not a country code/],
    ['an empty country', '1.0.0.0,1.0.0.255,OC,,,,,', 1, /"" is not a country code/],
    ['a latitude out of range', '1.0.0.0,1.0.0.255,OC,AU,,,90.5,153', 1, /latitude 90\.5 is outside \[-90, 90\]/],
    ['a longitude out of range', '1.0.0.0,1.0.0.255,OC,AU,,,-27,-180.01', 1, /longitude -180\.01 is outside/],
    ['a coordinate that is not a number', '1.0.0.0,1.0.0.255,OC,AU,,,north,153', 1, /latitude "north" is not a decimal number/],
    ['one coordinate without the other', '1.0.0.0,1.0.0.255,OC,AU,,,-27.4,', 1, /one coordinate without the other/],
    ['a quote inside a plain field', '1.0.0.0,1.0.0.255,OC,AU,Queensland,South "Brisbane",-27,153', 1, /a quote inside an unquoted field/],
    ['text after a closing quote', '1.0.0.0,1.0.0.255,OC,AU,"Queensland"x,Brisbane,-27,153', 1, /text after a closing quote/],
    ['a quote left open (a name cut by a line break)', '1.0.0.0,1.0.0.255,OC,AU,Queensland,"South\nBrisbane",-27,153', 1, /not closed/],
    ['a file cut inside a row', `${GOOD}\n1.0.1.0,1.0.3.255,AS,CN,Fuj`, 2, /5 fields/],
  ];
  it.each(refusals)('refuses %s, naming the file and line', async (_what, text, line, message) => {
    const error = await read(`${text}\n`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SourceFormatError);
    expect((error as SourceFormatError).line).toBe(line);
    expect((error as SourceFormatError).message).toMatch(new RegExp(`^${FILE}:${line}: `));
    expect((error as SourceFormatError).message).toMatch(message);
  });

  it('refuses an empty file', async () => {
    await expect(read('')).rejects.toThrow(/no rows/);
  });

  it('refuses a gzip download that was cut short', async () => {
    const whole = fs.readFileSync(FIXTURE);
    await expect(read(whole.subarray(0, whole.length - 200))).rejects.toThrow(/unexpected end of file/);
  });
});

describe('the monthly file names', () => {
  it("are this month's then last month's, by UTC", () => {
    expect(dbipCityFileNames(new Date('2026-11-03T10:00:00Z'))).toEqual(['dbip-city-lite-2026-11.csv.gz', 'dbip-city-lite-2026-10.csv.gz']);
    expect(dbipCityFileNames(new Date('2027-01-01T00:30:00Z'))).toEqual(['dbip-city-lite-2027-01.csv.gz', 'dbip-city-lite-2026-12.csv.gz']);
    expect(dbipCityFileNames(new Date('2026-10-31T23:30:00-02:00'))[0]).toBe('dbip-city-lite-2026-11.csv.gz');
  });
});

describe('the full-size generator (at a small size)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbip-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a file the reader takes whole, covering both address spaces, the same for the same seed', async () => {
    const written = await writeDbipCityCsv(dir, { seed: 7, ipv4Rows: 400, ipv6Rows: 250 });
    expect(written.file).toBe(path.join(dir, 'download.db-ip.com', 'free', 'dbip-city-lite-2026-11.csv.gz'));
    const counts = { ipv4Rows: 0, ipv6Rows: 0 };
    const rows: DbipCityRow[] = [];
    for await (const row of readDbipCityCsv(linesOfFile(written.file), written.file, counts)) rows.push(row);
    expect(counts).toEqual({ ipv4Rows: 400, ipv6Rows: 250 });
    for (const family of [4, 6] as const) {
      const own = rows.filter((r) => r.family === family);
      expect(own[0].start).toBe(0n);
      expect(own[own.length - 1].end).toBe((1n << (family === 4 ? 32n : 128n)) - 1n);
      for (let i = 1; i < own.length; i++) expect(own[i].start).toBe(own[i - 1].end + 1n);
    }
    expect(rows.some((r) => r.city === 'Ampelokipoi, Thessaloniki' || r.city === 'Maputo (Polana Cimento"A")')).toBe(true);
    const first = zlib.gunzipSync(fs.readFileSync(written.file));
    await writeDbipCityCsv(dir, { seed: 7, ipv4Rows: 400, ipv6Rows: 250 });
    expect(zlib.gunzipSync(fs.readFileSync(written.file)).equals(first)).toBe(true);
  });
});
