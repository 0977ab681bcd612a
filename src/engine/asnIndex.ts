/**
 * AS lookups: what the IP tables say about one AS number. An AS's prefixes are the network rows of
 * the IP tables whose AS row has that number. A network row is one row of the ASN data
 * (@ip-location-db/asn), as its reader keeps it (src/tables/sources/asnCsv.ts: a row that starts
 * inside the previous one clips it), so a prefix is an announced range as the source lists it, not
 * a range of the tables: those also split at every change of location.
 *
 * The index is built once per loaded table, on the first AS lookup, and lives as long as the table:
 * a reload brings new tables and with them a new index. It holds, per family, the network rows
 * grouped by AS number (in address order within an AS) and the distinct AS numbers with the start
 * of their group: 4 bytes per network row and 8 per AS (about 3.2 MB for the two full tables, 412k
 * IPv4 and 103k IPv6 rows of 84k and 53k AS numbers), built in about 90 ms of one core.
 */
import { ApiError } from '../errors.js';
import { formatIPv4, formatIPv6, ipv6Value } from '../address/ipAddress.js';
import type { IpTable } from '../tables/format/ipTable.js';
import { NONE } from '../tables/format/ipTableLayout.js';
import type { CountryFacts } from '../tables/format/tableMeta.js';
import type { NetworkAnswer } from './answers.js';
import type { LookupEngine } from './lookupEngine.js';

/** The network rows of one table grouped by AS number. */
class FamilyAsnIndex {
  /** the distinct AS numbers, ascending */
  private readonly asns: Uint32Array;
  /** group g's rows are rows[starts[g] .. starts[g + 1]) */
  private readonly starts: Uint32Array;
  private readonly rows: Uint32Array;

  constructor(table: IpTable) {
    // A counting sort of the network rows by the rank of their AS number: only the AS rows (one
    // per AS number and organisation, a fifth of the network rows) are sorted.
    const asnOfAsRow = new Uint32Array(table.asCount);
    for (let r = 0; r < table.asCount; r++) asnOfAsRow[r] = table.asnOfAsRow(r);
    const sorted = asnOfAsRow.slice().sort();
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i];
    this.asns = sorted.slice(0, distinct);
    const groupOfAsRow = asnOfAsRow.map((asn) => this.groupOf(asn));
    const count = table.networkCount;
    this.starts = new Uint32Array(distinct + 1);
    for (let r = 0; r < count; r++) this.starts[groupOfAsRow[table.asRowOfNetwork(r)] + 1]++;
    for (let g = 0; g < distinct; g++) this.starts[g + 1] += this.starts[g];
    const next = this.starts.slice(0, distinct);
    this.rows = new Uint32Array(count);
    for (let r = 0; r < count; r++) this.rows[next[groupOfAsRow[table.asRowOfNetwork(r)]]++] = r;
  }

  /** The network rows of the AS, in address order (empty when it has none). */
  rowsOf(asn: number): Uint32Array {
    const g = this.groupOf(asn);
    return g < 0 ? this.rows.subarray(0, 0) : this.rows.subarray(this.starts[g], this.starts[g + 1]);
  }

  private groupOf(asn: number): number {
    let low = 0;
    let high = this.asns.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.asns[middle] < asn) low = middle + 1;
      else high = middle;
    }
    return low < this.asns.length && this.asns[low] === asn ? low : -1;
  }
}

const indexes = new WeakMap<IpTable, FamilyAsnIndex>();

function indexOf(table: IpTable): FamilyAsnIndex {
  let index = indexes.get(table);
  if (index === undefined) indexes.set(table, (index = new FamilyAsnIndex(table)));
  return index;
}

/** Prefixes of one family: how many, and the addresses they hold. */
interface AsnTotals {
  prefixes: number;
  addresses: bigint;
}

export interface AsnAnswer {
  asn: number;
  /** the tables hold at least one prefix of the AS */
  found: boolean;
  /** the facts of the AS's AS row (of its first prefix, IPv4 before IPv6); null when not found */
  network: NetworkAnswer | null;
  /** where most of its addresses are located (IPv4 first, else IPv6); null when none is located */
  country_code: string | null;
  country: CountryFacts | null;
  ipv4: AsnTotals;
  ipv6: AsnTotals;
}

/** One prefix: its first and last address, and the CIDR blocks that make it up (one when it is a CIDR block). */
export interface AsnPrefix {
  version: 4 | 6;
  start: string;
  end: string;
  cidrs: string[];
}

/** AS answers count over both families: the refusal when an IP table is not loaded. */
export function missingIpTable(engine: LookupEngine): ApiError | undefined {
  if (!engine.ip4) return new ApiError('unavailable', 'The IPv4 table is not loaded.');
  return engine.ip6 ? undefined : new ApiError('unavailable', 'The IPv6 table is not loaded.');
}

function tablesOf(engine: LookupEngine): [IpTable, IpTable] {
  const missing = missingIpTable(engine);
  if (missing) throw missing;
  return [engine.ip4!, engine.ip6!];
}

const start = new Uint32Array(4);
const end = new Uint32Array(4);

const bigOf = (words: Uint32Array, family: 4 | 6): bigint => (family === 4 ? BigInt(words[0]) : ipv6Value(words));

function totalsOf(table: IpTable, rows: Uint32Array): AsnTotals {
  let addresses = 0n;
  let small = 0;
  for (const row of rows) {
    table.networkBlock(row, start, end);
    if (table.family === 4) small += end[0] - start[0] + 1;
    else addresses += bigOf(end, 6) - bigOf(start, 6) + 1n;
  }
  return { prefixes: rows.length, addresses: table.family === 4 ? BigInt(small) : addresses };
}

/**
 * The country holding most of the prefixes' addresses: the location rows of the table ranges inside
 * the prefixes, weighed by their addresses (IPv6 approximately, in floating point). Ties go to the
 * first code in alphabetical order.
 */
function countryOf(engine: LookupEngine, table: IpTable, rows: Uint32Array): string | null {
  const weights = new Map<number, number>();
  for (const row of rows) {
    table.networkBlock(row, start, end);
    let range = table.family === 4 ? engine.findIPv4(start[0]) : engine.findIPv6(start);
    // The ranges tile each prefix: they end where the network row changes.
    for (; range < table.rangeCount && table.rangeNetwork[range] === row; range++) {
      const location = table.rangeLocation[range];
      if (location !== NONE) weights.set(location, (weights.get(location) ?? 0) + sizeOf(table, range));
    }
  }
  const byCountry = new Map<string, number>();
  for (const [location, weight] of weights) {
    const code = table.countryOfLocation(location);
    if (code !== null) byCountry.set(code, (byCountry.get(code) ?? 0) + weight);
  }
  let best: string | null = null;
  let bestWeight = -1;
  for (const [code, weight] of byCountry) {
    if (weight > bestWeight || (weight === bestWeight && code < best!)) [best, bestWeight] = [code, weight];
  }
  return best;
}

const rangeFirst = new Uint32Array(4);

/** The addresses of table range `range`, as a float. */
function sizeOf(table: IpTable, range: number): number {
  const last = range + 1 === table.rangeCount;
  if (table.keys) return (last ? 2 ** 32 : table.keys[range + 1]) - table.keys[range];
  table.rangeStart(range, rangeFirst);
  const from = bigOf(rangeFirst, 6);
  if (!last) table.rangeStart(range + 1, rangeFirst);
  return Number((last ? 1n << 128n : bigOf(rangeFirst, 6)) - from);
}

/** What the tables say about the AS. Throws `unavailable` unless both IP tables are loaded. */
export function asnAnswer(engine: LookupEngine, asn: number): AsnAnswer {
  const [ip4, ip6] = tablesOf(engine);
  const rows4 = indexOf(ip4).rowsOf(asn);
  const rows6 = indexOf(ip6).rowsOf(asn);
  const found = rows4.length + rows6.length > 0;
  const [table, rows] = rows4.length > 0 ? [ip4, rows4] : [ip6, rows6];
  const as = found ? table.asRow(table.asRowOfNetwork(rows[0])) : null;
  const country_code = countryOf(engine, ip4, rows4) ?? countryOf(engine, ip6, rows6);
  return {
    asn,
    found,
    network: as && { ...as, asn },
    country_code,
    country: country_code === null ? null : (ip4.countries.get(country_code) ?? ip6.countries.get(country_code) ?? null),
    ipv4: totalsOf(ip4, rows4),
    ipv6: totalsOf(ip6, rows6),
  };
}

/** The AS's prefixes from `offset`, at most `limit`: IPv4 then IPv6, each in address order. */
export function asnPrefixes(engine: LookupEngine, asn: number, offset: number, limit: number): AsnPrefix[] {
  const prefixes: AsnPrefix[] = [];
  let skip = offset;
  for (const table of tablesOf(engine)) {
    const rows = indexOf(table).rowsOf(asn);
    for (let i = skip; i < rows.length && prefixes.length < limit; i++) {
      table.networkBlock(rows[i], start, end);
      prefixes.push(prefixOf(bigOf(start, table.family), bigOf(end, table.family), table.family));
    }
    skip = Math.max(0, skip - rows.length);
  }
  return prefixes;
}

function prefixOf(first: bigint, last: bigint, family: 4 | 6): AsnPrefix {
  const text = (address: bigint) => (family === 4 ? formatIPv4(Number(address)) : formatIPv6(wordsOf(address)));
  const width = family === 4 ? 32 : 128;
  const cidrs: string[] = [];
  // The largest aligned block at `at` that ends within the prefix, then the next.
  for (let at = first; at <= last;) {
    let bits = 0;
    while (bits < width && (at & ((1n << BigInt(bits + 1)) - 1n)) === 0n && at + (1n << BigInt(bits + 1)) - 1n <= last) bits++;
    cidrs.push(`${text(at)}/${width - bits}`);
    at += 1n << BigInt(bits);
  }
  return { version: family, start: text(first), end: text(last), cidrs };
}

const words = new Uint32Array(4);

function wordsOf(address: bigint): Uint32Array {
  for (let i = 0; i < 4; i++) words[i] = Number((address >> BigInt(96 - 32 * i)) & 0xffffffffn);
  return words;
}
