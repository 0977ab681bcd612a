/**
 * Shared pieces of the differential tests: a seeded PRNG, a plain RFC 4180 reader of the
 * ip-location-db numeric ASN CSVs, a plain "greatest start wins" search over their rows, and a
 * mismatch recorder. Everything here is written from the public formats, not from src/: the point
 * of these tests is to compare the engine with references it does not share code with.
 */
import fs from 'node:fs';
import { BlockList } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const modulePath = (...parts: string[]): string => path.join(ROOT, 'node_modules', ...parts);

// ---------------------------------------------------------------------------------------------
// PRNG

/** mulberry32: a tiny, well-known 32-bit generator. Returns u32 values. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The seed of a test file: DIFF_SEED from the environment when set, else the file's default. */
export function seedOf(defaultSeed: number): number {
  const env = process.env.DIFF_SEED;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n)) throw new Error(`DIFF_SEED must be an integer, got ${env}`);
    return n >>> 0;
  }
  return defaultSeed >>> 0;
}

export class Random {
  readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }
  /** uniform integer in [0, n), n ≤ 2^32 */
  int(n: number): number {
    return Math.floor((this.next() / 0x100000000) * n);
  }
  /** uniform BigInt in [0, 2^bits) */
  bits(bits: number): bigint {
    let v = 0n;
    let have = 0;
    while (have < bits) {
      v = (v << 32n) | BigInt(this.next());
      have += 32;
    }
    return v >> BigInt(have - bits);
  }
  /** uniform BigInt in [0, n), n ≥ 1 (rejection sampling, no modulo bias) */
  below(n: bigint): bigint {
    if (n <= 1n) return 0n;
    const bits = (n - 1n).toString(2).length;
    for (;;) {
      const v = this.bits(bits);
      if (v < n) return v;
    }
  }
  hex(digits: number): string {
    let s = '';
    for (let i = 0; i < digits; i++) s += '0123456789ABCDEF'[this.int(16)];
    return s;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
}

// ---------------------------------------------------------------------------------------------
// RFC 4180 CSV (quoted fields may hold commas, doubled quotes and line breaks)

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  const n = text.length;
  let quoted = false;
  let fieldStarted = false;
  while (i < n) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === ',') {
      row.push(field);
      field = '';
      fieldStarted = false;
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    }
    if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      fieldStarted = false;
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (fieldStarted || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// ASN rows and the plain reference search

export interface AsnRows {
  /** rows sorted by start (stable), BigInt bounds */
  start: bigint[];
  end: bigint[];
  asn: number[];
  org: string[];
  /** running maximum of `end` over rows 0..i, to stop the backward scan */
  maxEnd: bigint[];
  /** rows whose asn is 0 */
  asnZero: number;
  /** pairs of neighbouring rows (by start) that overlap */
  overlaps: { a: number; b: number }[];
}

export function loadAsnRows(file: string): AsnRows {
  const parsed = parseCsv(fs.readFileSync(file, 'utf8'));
  const raw = parsed
    .filter((r) => !(r.length === 1 && r[0] === ''))
    .map((r, lineIndex) => {
      if (r.length !== 4) throw new Error(`${file}: row ${lineIndex + 1} has ${r.length} fields`);
      if (!/^\d+$/.test(r[0]) || !/^\d+$/.test(r[1]) || !/^\d+$/.test(r[2]))
        throw new Error(`${file}: row ${lineIndex + 1} is not numeric: ${r.join(',')}`);
      return { start: BigInt(r[0]), end: BigInt(r[1]), asn: Number(r[2]), org: r[3] };
    });
  raw.sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : 0));
  const rows: AsnRows = { start: [], end: [], asn: [], org: [], maxEnd: [], asnZero: 0, overlaps: [] };
  let maxEnd = -1n;
  raw.forEach((r, i) => {
    rows.start.push(r.start);
    rows.end.push(r.end);
    rows.asn.push(r.asn);
    rows.org.push(r.org);
    maxEnd = r.end > maxEnd ? r.end : maxEnd;
    rows.maxEnd.push(maxEnd);
    if (r.asn === 0) rows.asnZero++;
    if (i > 0 && r.start <= raw[i - 1].end) rows.overlaps.push({ a: i - 1, b: i });
  });
  return rows;
}

/** Among the rows with start ≤ ip ≤ end, the one with the greatest start; -1 when none. */
export function asnRowOf(rows: AsnRows, ip: bigint): number {
  let lo = 0;
  let hi = rows.start.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rows.start[mid] <= ip) {
      last = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  for (let i = last; i >= 0 && rows.maxEnd[i] >= ip; i--) {
    if (rows.end[i] >= ip) return i;
  }
  return -1;
}

/**
 * The addresses where the reference rule keeps choosing row i, around the row's start: the row's
 * bounds, cut short where a later row starts inside it (that later row then wins). Equal to the
 * raw bounds for every row no other row overlaps.
 */
export function effectiveBounds(rows: AsnRows, i: number): { start: bigint; end: bigint } {
  let end = rows.end[i];
  if (i + 1 < rows.start.length && rows.start[i + 1] <= end) end = rows.start[i + 1] - 1n;
  return { start: rows.start[i], end };
}

// ---------------------------------------------------------------------------------------------
// Address text

export function ipv4Text(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Full, uncompressed IPv6 text (8 groups of 4 digits). */
export function ipv6Full(n: bigint): string {
  const hex = n.toString(16).padStart(32, '0');
  const groups: string[] = [];
  for (let g = 0; g < 8; g++) groups.push(hex.slice(g * 4, g * 4 + 4));
  return groups.join(':');
}

/** Canonical IPv6 text as the WHATWG URL serializer writes it (RFC 5952 for non-mapped addresses). */
export function ipv6Canonical(n: bigint): string {
  return new URL(`http://[${ipv6Full(n)}]/`).hostname.slice(1, -1);
}

/** Four big-endian u32 words of a 128-bit address. */
export function ipv6Words(n: bigint): Uint32Array {
  return Uint32Array.of(
    Number((n >> 96n) & 0xffffffffn),
    Number((n >> 64n) & 0xffffffffn),
    Number((n >> 32n) & 0xffffffffn),
    Number(n & 0xffffffffn),
  );
}

/** The largest aligned power-of-two block that holds `ip` and lies inside [start, end]. */
export function largestCidr(start: bigint, end: bigint, ip: bigint): { first: bigint; last: bigint; prefix: number } {
  let best = { first: ip, last: ip, prefix: 128 };
  for (let hostBits = 1; hostBits <= 128; hostBits++) {
    const mask = (1n << BigInt(hostBits)) - 1n;
    const first = ip & ~mask;
    const last = ip | mask;
    if (first < start || last > end) break;
    best = { first, last, prefix: 128 - hostBits };
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Reporting

export class Mismatches {
  readonly list: { input: string; field: string; ours: unknown; reference: unknown }[] = [];
  /** inputs with at least one differing field */
  count = 0;
  /** differing fields in all */
  fields = 0;
  private lastInput: string | null = null;
  constructor(readonly label: string) {}

  /** Records a difference when `ours` and `reference` are not the same value (Object.is). */
  check(input: string, field: string, ours: unknown, reference: unknown): boolean {
    if (Object.is(ours, reference)) return true;
    this.add(input, field, ours, reference);
    return false;
  }

  /** Records a difference; consecutive differences of one input count as one mismatching case. */
  add(input: string, field: string, ours: unknown, reference: unknown): void {
    this.fields++;
    if (input !== this.lastInput) {
      this.count++;
      this.lastInput = input;
    }
    if (this.list.length < 10) this.list.push({ input, field, ours, reference });
  }

  report(cases: number, extra = ''): void {
    console.log(`[${this.label}] cases checked: ${cases}, mismatches: ${this.count} (${this.fields} fields)${extra ? `; ${extra}` : ''}`);
    for (const m of this.list) {
      console.log(`  MISMATCH ${m.input} ${m.field}: ours=${JSON.stringify(m.ours)} reference=${JSON.stringify(m.reference)}`);
    }
  }
}

export const emptyToNull = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** The source's place name as the engine answers it in two fields: "City (District)". */
export const sourcePlaceName = (loc: { city: string | null; district: string | null }): string | null =>
  loc.city === null ? null : loc.district === null ? loc.city : `${loc.city} (${loc.district})`;

/**
 * The anycast blocks of data/curated/anycast-prefixes.csv in Node's own BlockList (not the
 * builder's CIDR reader): an address in one has no accuracy radius.
 */
export function anycastBlocks(): BlockList {
  const list = new BlockList();
  for (const [prefix] of parseCsv(fs.readFileSync(path.join(ROOT, 'data', 'curated', 'anycast-prefixes.csv'), 'utf8')).slice(1)) {
    const [address, length] = prefix.split('/');
    list.addSubnet(address, Number(length), address.includes(':') ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** The independent country of a zone: ICU's (CLDR) zones of each current ISO 3166 region. */
export function icuRegionOfZone(): (zone: string) => string | null {
  const canonical = (zone: string): string => new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  const regionOf = new Map<string, string>();
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) {
    for (const b of letters) {
      const locale = new Intl.Locale(`und-${a}${b}`);
      // skip withdrawn codes, which ICU aliases to their successors (SU → RU, YU → RS)
      if (locale.region !== `${a}${b}`) continue;
      const zones = (locale as Intl.Locale & { timeZones?: string[] }).timeZones ?? [];
      for (const zone of zones) regionOf.set(canonical(zone), `${a}${b}`);
    }
  }
  if (regionOf.size < 400) throw new Error(`the runtime's ICU knows only ${regionOf.size} zones by region`);
  return (zone) => regionOf.get(canonical(zone)) ?? null;
}

/**
 * The organisation names of data/curated/asn-connection-types.csv, by AS number: the table gives
 * them in place of the registry handle the ASN CSV has for those ASNs (the curated file's test
 * checks that the CSV has nothing but a handle for each).
 */
export function loadCuratedOrganizations(): Map<number, string> {
  const [header, ...rows] = parseCsv(fs.readFileSync(path.join(ROOT, 'data', 'curated', 'asn-connection-types.csv'), 'utf8'));
  const asn = header.indexOf('asn');
  const organization = header.indexOf('organization');
  return new Map(rows.filter((r) => r[organization] !== '').map((r) => [Number(r[asn]), r[organization]]));
}

/** The organisation the table should answer for an ASN CSV row. */
export const expectedOrganization = (curated: Map<number, string>, asn: number, csvOrganization: string): string | null =>
  curated.get(asn) ?? emptyToNull(csvOrganization);
