/**
 * Reader of the five RIRs' delegated-extended statistics files (RIR Statistics Exchange Format,
 * version 2: ftp.ripe.net/pub/stats/ripencc/RIR-Statistics-Exchange-Format.txt, APNIC's
 * README-EXTENDED.TXT) and of the `.md5` file each RIR publishes beside it.
 *
 * The lines, `|`-separated: comments starting with `#` (APNIC opens with a 27-line banner) and
 * blank lines are skipped; then the version line `version|registry|serial|records|startdate|
 * enddate|UTCoffset`; summary lines `registry|*|type|*|count|summary`; records
 * `registry|cc|type|start|value|date|status|opaque-id[|extensions]`. IPv4 value = address count
 * (not always a power of two, not always aligned), IPv6 value = prefix length, ASN value = count.
 * The extended files list the whole pool: `available` and `reserved` records have an empty cc
 * (AFRINIC writes `ZZ`), an empty date, and an empty opaque-id, or none at all (RIPE NCC, and
 * LACNIC's `available` lines, have 7 fields). A date is YYYYMMDD, empty, or `00000000` (ARIN's
 * oldest ASNs). Each RIR orders its records its own way (by type, some by status first).
 *
 * Rules: the version line's record count and each summary's count must equal the records read (a
 * truncated download is caught here); every record names the file's registry; statuses are the
 * four above; IPv4 ranges end by 255.255.255.255, IPv6 starts are aligned on their prefix; blocks
 * and AS number ranges must not overlap. Blocks come back sorted by family then start, AS number
 * ranges by first number.
 */
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { SourceFormatError, type NumberedLine } from './textLines.js';

export type Rir = 'afrinic' | 'apnic' | 'arin' | 'lacnic' | 'ripencc';
export type DelegationStatus = 'allocated' | 'assigned' | 'available' | 'reserved';

export interface DelegatedBlock {
  registry: Rir;
  country_code: string | null;
  family: 4 | 6;
  start: bigint;
  end: bigint;
  /** YYYY-MM-DD */
  date: string | null;
  status: DelegationStatus;
  opaque_id: string | null;
}

export interface DelegatedAsns {
  registry: Rir;
  country_code: string | null;
  first: number;
  count: number;
  status: DelegationStatus;
  opaque_id: string | null;
}

export interface DelegatedFile {
  registry: Rir;
  serial: string;
  /** YYYY-MM-DD: the version line's end date (or its serial when that is a date and the end date is not) */
  published: string;
  blocks: DelegatedBlock[];
  asns: DelegatedAsns[];
}

/** Each RIR's latest delegated-extended file; its checksum is the same URL with `.md5` appended. */
export const DELEGATED_EXTENDED_URLS: Readonly<Record<Rir, string>> = {
  afrinic: 'https://ftp.afrinic.net/pub/stats/afrinic/delegated-afrinic-extended-latest',
  apnic: 'https://ftp.apnic.net/stats/apnic/delegated-apnic-extended-latest',
  arin: 'https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest',
  lacnic: 'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest',
  ripencc: 'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
};

const RIRS: ReadonlySet<string> = new Set(Object.keys(DELEGATED_EXTENDED_URLS));
const STATUSES: ReadonlySet<string> = new Set(['allocated', 'assigned', 'available', 'reserved']);
const TYPES = ['asn', 'ipv4', 'ipv6'] as const;
type RecordType = (typeof TYPES)[number];

const VERSION = /^2(\.\d+)?$/;
const DIGITS = /^\d+$/;
const COUNT = /^[1-9]\d*$/;
const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const UTC_OFFSET = /^([+-]\d{4}|00000)$/;
const COUNTRY = /^[A-Z]{2}$/;
/** Opaque ids seen: AFRINIC/APNIC 8 hex, ARIN 32 hex, LACNIC digits, RIPE NCC UUIDs. */
const OPAQUE_ID = /^[0-9A-Za-z-]{1,64}$/;
const IPV4_LIMIT = 1n << 32n;
const ASN_LIMIT = 2 ** 32;

/** YYYY-MM-DD of a real calendar date written YYYYMMDD, else null. */
function dayOf(text: string): string | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [, y, mo, d] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return null;
  return `${y}-${mo}-${d}`;
}

interface Numbered<T> {
  value: T;
  line: number;
}

const words = new Uint32Array(4);

/** The file read whole and checked; throws SourceFormatError naming the file and line of the first fault. */
export async function readDelegatedExtended(lines: AsyncIterable<NumberedLine>, file: string, expected?: Rir): Promise<DelegatedFile> {
  let registry: Rir | null = null;
  let serial = '';
  let published = '';
  let announced = 0;
  let versionLine = 0;
  const summaries = new Map<RecordType, { count: number; line: number }>();
  const read: Record<RecordType, number> = { asn: 0, ipv4: 0, ipv6: 0 };
  const blocks: Numbered<DelegatedBlock>[] = [];
  const asns: Numbered<DelegatedAsns>[] = [];

  for await (const { text, line } of lines) {
    const bad = (problem: string) => new SourceFormatError(file, line, problem);
    if (text.length === 0 || text.charCodeAt(0) === 35 /* # */) continue;
    const f = text.split('|');

    if (registry === null) {
      if (f.length !== 7) throw bad(`not a version line (${f.length} fields, it has 7): "${text.slice(0, 80)}"`);
      const [version, name, serialText, records, startDate, endDate, offset] = f;
      if (!VERSION.test(version)) throw bad(`format version "${version}" is not 2`);
      if (!RIRS.has(name)) throw bad(`"${name}" is not one of the five RIRs`);
      if (expected !== undefined && name !== expected) throw bad(`the file is ${name}'s, not ${expected}'s`);
      if (!DIGITS.test(serialText)) throw bad(`serial "${serialText}" is not a number`);
      if (!DIGITS.test(records)) throw bad(`record count "${records}" is not a number`);
      if (startDate !== '' && !DATE.test(startDate)) throw bad(`start date "${startDate}" is not YYYYMMDD`);
      if (!UTC_OFFSET.test(offset)) throw bad(`UTC offset "${offset}" is not ±HHMM`);
      const day = dayOf(endDate) ?? dayOf(serialText);
      if (day === null) throw bad(`neither the end date "${endDate}" nor the serial "${serialText}" is a date`);
      registry = name as Rir;
      serial = serialText;
      published = day;
      announced = Number(records);
      versionLine = line;
      continue;
    }

    if (f.length === 6 && f[5] === 'summary') {
      const [name, star, type, star2, count] = f;
      if (name !== registry) throw bad(`a summary of ${name}'s in ${registry}'s file`);
      if (star !== '*' || star2 !== '*') throw bad('a summary line has "*" in its second and fourth fields');
      if (!(TYPES as readonly string[]).includes(type)) throw bad(`summary of an unknown type "${type}"`);
      if (!DIGITS.test(count)) throw bad(`summary count "${count}" is not a number`);
      if (summaries.has(type as RecordType)) throw bad(`a second ${type} summary`);
      if (read.asn + read.ipv4 + read.ipv6 > 0) throw bad('a summary line after the records');
      summaries.set(type as RecordType, { count: Number(count), line });
      continue;
    }

    if (f.length < 7) throw bad(`${f.length} fields, a record has at least 7`);
    const [name, cc, type, start, value, date, status] = f;
    if (name !== registry) throw bad(`a record of ${name}'s in ${registry}'s file`);
    if (!STATUSES.has(status)) throw bad(`status "${status}" is not allocated, assigned, available or reserved`);
    // Only the pool's records leave the opaque-id out altogether (RIPE NCC, LACNIC).
    if (f.length === 7 && status !== 'available' && status !== 'reserved') throw bad(`an ${status} record without an opaque-id field`);
    const opaque = f.length > 7 ? f[7] : '';
    if (opaque !== '' && !OPAQUE_ID.test(opaque)) throw bad(`opaque-id "${opaque}" is not an identifier`);
    if (cc !== '' && !COUNTRY.test(cc)) throw bad(`"${cc}" is not a country code`);
    const day = date === '' || date === '00000000' ? null : dayOf(date);
    if (day === null && date !== '' && date !== '00000000') throw bad(`date "${date}" is not YYYYMMDD`);
    if (!COUNT.test(value)) throw bad(`value "${value}" is not a positive number`);
    const common = {
      registry,
      country_code: cc === '' || cc === 'ZZ' ? null : cc,
      status: status as DelegationStatus,
      opaque_id: opaque === '' ? null : opaque,
    };

    if (type === 'ipv4') {
      const first = parseIPv4(start);
      if (first < 0) throw bad(`not an IPv4 address: "${start}"`);
      const end = BigInt(first) + BigInt(value) - 1n;
      if (end >= IPV4_LIMIT) throw bad(`${start} + ${value} addresses runs past 255.255.255.255`);
      blocks.push({ value: { ...common, family: 4, start: BigInt(first), end, date: day }, line });
    } else if (type === 'ipv6') {
      if (!parseIPv6(start, words)) throw bad(`not an IPv6 address: "${start}"`);
      const prefix = Number(value);
      if (prefix > 128) throw bad(`prefix length ${value} is over 128`);
      const first = ipv6Value(words);
      const hostMask = (1n << BigInt(128 - prefix)) - 1n;
      if ((first & hostMask) !== 0n) throw bad(`${start} is not the start of a /${prefix}`);
      blocks.push({ value: { ...common, family: 6, start: first, end: first | hostMask, date: day }, line });
    } else if (type === 'asn') {
      if (!DIGITS.test(start)) throw bad(`AS number "${start}" is not a number`);
      const first = Number(start);
      const count = Number(value);
      if (first + count > ASN_LIMIT) throw bad(`AS${start} + ${value} runs past AS4294967295`);
      asns.push({ value: { ...common, first, count }, line });
    } else {
      throw bad(`record type "${type}" is not asn, ipv4 or ipv6`);
    }
    read[type]++;
  }

  if (registry === null) throw new SourceFormatError(file, 0, 'no version line');
  const total = read.asn + read.ipv4 + read.ipv6;
  if (total !== announced) {
    throw new SourceFormatError(file, versionLine, `the version line announces ${announced} records, the file holds ${total}`);
  }
  for (const type of TYPES) {
    const summary = summaries.get(type);
    if (summary === undefined) {
      if (read[type] > 0) throw new SourceFormatError(file, versionLine, `${read[type]} ${type} records and no ${type} summary`);
    } else if (summary.count !== read[type]) {
      throw new SourceFormatError(
        file,
        summary.line,
        `the ${type} summary announces ${summary.count} records, the file holds ${read[type]}`,
      );
    }
  }

  blocks.sort((a, b) => a.value.family - b.value.family || (a.value.start < b.value.start ? -1 : a.value.start > b.value.start ? 1 : 0));
  for (let i = 1; i < blocks.length; i++) {
    const [previous, block] = [blocks[i - 1], blocks[i]];
    if (block.value.family === previous.value.family && block.value.start <= previous.value.end) {
      throw new SourceFormatError(file, block.line, `the block overlaps the one on line ${previous.line}`);
    }
  }
  asns.sort((a, b) => a.value.first - b.value.first);
  for (let i = 1; i < asns.length; i++) {
    const [previous, range] = [asns[i - 1], asns[i]];
    if (range.value.first < previous.value.first + previous.value.count) {
      throw new SourceFormatError(file, range.line, `the AS number range overlaps the one on line ${previous.line}`);
    }
  }
  return { registry, serial, published, blocks: blocks.map((b) => b.value), asns: asns.map((a) => a.value) };
}

const MD5 = /^[0-9a-fA-F]{32}$/;
const BSD_LINE = /^MD5 \((.+)\) = ([0-9a-fA-F]{32})$/;
const GNU_LINE = /^([0-9a-fA-F]{32}) [ *](.+)$/;

/**
 * The hex digest (lowercase) a publisher's `.md5` file states for `fileName`; throws
 * SourceFormatError when it states none. Forms seen: BSD `MD5 (name) = hex` (AFRINIC, APNIC,
 * LACNIC, RIPE NCC; with or without a final line break) and GNU `hex  name` (ARIN, which names the
 * dated copy, `delegated-arin-extended-20260928`, in the `-latest` file's checksum); a lone digest
 * is taken as the file's.
 */
export function md5OfChecksumFile(text: string, fileName: string, file: string): string {
  const dated = fileName.endsWith('-latest') ? new RegExp(`^${escapeRegExp(fileName.slice(0, -'latest'.length))}\\d{8}$`) : null;
  const names = (name: string) => name === fileName || (dated !== null && dated.test(name));
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 1 && MD5.test(lines[0].trim())) return lines[0].trim().toLowerCase();
  let found: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const bsd = BSD_LINE.exec(lines[i]);
    const gnu = GNU_LINE.exec(lines[i]);
    const [name, digest] = bsd ? [bsd[1], bsd[2]] : gnu ? [gnu[2], gnu[1]] : [null, null];
    if (name === null) throw new SourceFormatError(file, i + 1, `not a checksum line: "${lines[i].slice(0, 80)}"`);
    if (!names(name)) continue;
    if (found !== null && found !== digest.toLowerCase())
      throw new SourceFormatError(file, i + 1, `a second, different digest for ${fileName}`);
    found = digest.toLowerCase();
  }
  if (found === null) throw new SourceFormatError(file, 0, `no MD5 digest for ${fileName}`);
  return found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
