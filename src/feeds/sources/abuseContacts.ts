/**
 * The abuse mailbox of every address range an RIR's database dump registers (`abuse.email` of the IP
 * record), derived the way RIPE's whois answers "Abuse contact for …" (AbuseCFinder in
 * RIPE-NCC/whois), from the dumps `rpslDump.ts` reads:
 *
 * - an inetnum or inet6num takes the mailbox of its own `abuse-c:` role; else that of its `org:`
 *   organisation's `abuse-c:` role; else (APNIC, AFRINIC) the `abuse-mailbox:` of its first
 *   `mnt-irt:` irt object that has one; a role or irt without a well-formed `abuse-mailbox:` counts as
 *   none (RIPE's public dump replaces every role without one by a single placeholder, so its
 *   references simply find nothing);
 * - a range without a mailbox of its own defers to the ranges around it; at RIPE NCC one maintained by
 *   the RIPE NCC itself (`mnt-by:`/`mnt-lower:` RIPE-NCC-HM-MNT, -END-MNT, -LEGACY-MNT: allocations,
 *   PI and legacy space) does not: RIPE's whois stops there and names no contact, and so does this;
 * - at every address the smallest covering range that decides (a mailbox, or RIPE's stop) wins. For
 *   nested ranges that is the most specific; ranges that cross instead of nesting (RIPE's and APNIC's
 *   whois refuse them, they are counted in `overlaps`) are decided the same way, the smaller first,
 *   the one read first between two of one size.
 *
 * Handles (`nic-hdl:`, organisation and irt names) are matched without regard to case, after
 * `cleanRpslValue` (RIPE writes `abuse-c: ops4-ripe` for OPS4-RIPE). A mailbox is kept when it is a
 * plain ASCII addr-spec (`isAbuseMailbox`); anything else (APNIC's public files mask every address as
 * `********`) is dropped and counted, never an error for the file. Ranges are strict: an inetnum is
 * `a.b.c.d - e.f.g.h` (start not after end), an inet6num `prefix/length` with no host bits; a role
 * without `nic-hdl:`, or a role, organisation or irt defined twice, is an error naming file and line.
 *
 * Every file is read as Latin-1: RIPE NCC writes its `ripe.db.*.gz` in ISO-8859-1, the others hold
 * Latin-1 lines among UTF-8, and everything kept here is ASCII by its syntax. Memory: contacts are
 * maps of the (tens of thousands of) roles, organisations and irts; a range is held as its bounds and
 * a mailbox number only when it decides, mailboxes are interned once.
 */
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { SourceFormatError } from '../../tables/sources/textLines.js';
import { isAbuseMailbox, type AbuseRegistry } from '../abuseMailbox.js';
import { cleanRpslValue, readRpslDump, type RpslDumpCounts, type RpslDumpOptions, type RpslObject } from './rpslDump.js';

/** The dump file holding each class; a file given for several classes (AFRINIC's) is read as one of all classes. */
export interface AbuseDumpFiles {
  inetnum: string;
  inet6num?: string;
  role?: string;
  organisation?: string;
  irt?: string;
}

/** Where each RIR publishes the dumps (no file of RIPE NCC's irt: its abuse contacts do not use them). */
export const ABUSE_DUMP_URLS: Readonly<Record<AbuseRegistry, Readonly<AbuseDumpFiles>>> = {
  ripencc: {
    inetnum: 'https://ftp.ripe.net/ripe/dbase/split/ripe.db.inetnum.gz',
    inet6num: 'https://ftp.ripe.net/ripe/dbase/split/ripe.db.inet6num.gz',
    role: 'https://ftp.ripe.net/ripe/dbase/split/ripe.db.role.gz',
    organisation: 'https://ftp.ripe.net/ripe/dbase/split/ripe.db.organisation.gz',
  },
  apnic: {
    inetnum: 'https://ftp.apnic.net/apnic/whois/apnic.db.inetnum.gz',
    inet6num: 'https://ftp.apnic.net/apnic/whois/apnic.db.inet6num.gz',
    role: 'https://ftp.apnic.net/apnic/whois/apnic.db.role.gz',
    organisation: 'https://ftp.apnic.net/apnic/whois/apnic.db.organisation.gz',
    irt: 'https://ftp.apnic.net/apnic/whois/apnic.db.irt.gz',
  },
  afrinic: {
    inetnum: 'https://ftp.afrinic.net/dbase/afrinic.db.gz',
    inet6num: 'https://ftp.afrinic.net/dbase/afrinic.db.gz',
    role: 'https://ftp.afrinic.net/dbase/afrinic.db.gz',
    organisation: 'https://ftp.afrinic.net/dbase/afrinic.db.gz',
    irt: 'https://ftp.afrinic.net/dbase/afrinic.db.gz',
  },
};

interface AbuseDumpCounts {
  file: string;
  /** objects read, of every class */
  objects: number;
  /** inetnum and inet6num objects */
  ranges: number;
  /** of those, the ones with a mailbox of their own (own abuse-c, organisation's or irt's) */
  withMailbox: number;
  /** abuse-mailbox values of roles and irts that are not a plain address */
  mailboxesDropped: number;
}

export interface AbuseRange {
  /** first and last address, inclusive (IPv4 in the low 32 bits) */
  start: bigint;
  end: bigint;
  email: string;
}

/** Sorted, disjoint ranges of one family with their mailbox; adjacent ranges of one mailbox are joined. */
export class AbuseRangeTable implements Iterable<AbuseRange> {
  constructor(
    readonly family: 4 | 6,
    private readonly starts: Uint32Array | readonly bigint[],
    private readonly ends: Uint32Array | readonly bigint[],
    private readonly mailboxIndex: Uint32Array,
    private readonly mailboxes: readonly string[],
  ) {}

  get size(): number {
    return this.mailboxIndex.length;
  }

  at(i: number): AbuseRange {
    return { start: BigInt(this.starts[i]), end: BigInt(this.ends[i]), email: this.mailboxes[this.mailboxIndex[i]] };
  }

  *[Symbol.iterator](): Iterator<AbuseRange> {
    for (let i = 0; i < this.size; i++) yield this.at(i);
  }

  /** The mailbox of the range holding the address, or null. */
  emailOf(address: bigint): string | null {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (BigInt(this.ends[middle]) < address) low = middle + 1;
      else if (BigInt(this.starts[middle]) > address) high = middle - 1;
      else return this.mailboxes[this.mailboxIndex[middle]];
    }
    return null;
  }
}

export interface AbuseContacts {
  registry: AbuseRegistry;
  ipv4: AbuseRangeTable;
  ipv6: AbuseRangeTable;
  /** every mailbox a range names, once */
  mailboxes: readonly string[];
  /** per file read, in the order given */
  files: AbuseDumpCounts[];
  /** ranges with a decision that cross another instead of nesting */
  overlaps: number;
}

/** The maintainers whose ranges RIPE's whois does not look above (whois.maintainers.alloc, .enduser, .legacy). */
const RIPE_NCC_MAINTAINERS: ReadonlySet<string> = new Set(['RIPE-NCC-HM-MNT', 'RIPE-NCC-END-MNT', 'RIPE-NCC-LEGACY-MNT']);
const RANGE_ATTRIBUTES = ['abuse-c', 'org', 'mnt-irt', 'mnt-by', 'mnt-lower'];
const CONTACT_ATTRIBUTES: Record<'role' | 'organisation' | 'irt', readonly string[]> = {
  role: ['nic-hdl', 'abuse-mailbox'],
  organisation: ['abuse-c'],
  irt: ['abuse-mailbox'],
};

/** The value of a range whose decision is "no contact" (RIPE's stop); mailboxes are 0 and up. */
const NO_CONTACT = -1;
const IPV4_MAX = 0xffffffff;
const IPV6_MAX = (1n << 128n) - 1n;
const INETNUM = /^(\S+)\s*-\s*(\S+)$/;
const INET6NUM = /^([^/\s]+)\/(\d{1,3})$/;
const words = new Uint32Array(4);

function first(object: RpslObject, name: string): string | null {
  for (const [attribute, value] of object.attributes) if (attribute === name) return cleanRpslValue(value);
  return null;
}

/** Every value of a list attribute (`mnt-by: A, B` and repeated lines alike), uppercase. */
function listOf(object: RpslObject, name: string): string[] {
  const values: string[] = [];
  for (const [attribute, value] of object.attributes) {
    if (attribute !== name) continue;
    for (const part of cleanRpslValue(value).split(',')) if (part.trim() !== '') values.push(part.trim().toUpperCase());
  }
  return values;
}

/** A copy of the array one and a half times as long. */
function grown<T extends Int32Array | Uint32Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.ceil(array.length * 1.5) + 16);
  bigger.set(array);
  return bigger;
}

/** Ranges of one family that decide, in file order; IPv4 in typed arrays (RIPE NCC has millions). */
class DecidingRanges {
  length = 0;
  starts: Uint32Array | bigint[];
  ends: Uint32Array | bigint[];
  values = new Int32Array(1024);

  constructor(readonly family: 4 | 6) {
    this.starts = family === 4 ? new Uint32Array(1024) : [];
    this.ends = family === 4 ? new Uint32Array(1024) : [];
  }

  add(start: bigint, end: bigint, value: number): void {
    if (this.length === this.values.length) {
      this.values = grown(this.values);
      if (this.starts instanceof Uint32Array) this.starts = grown(this.starts);
      if (this.ends instanceof Uint32Array) this.ends = grown(this.ends);
    }
    if (this.starts instanceof Uint32Array && this.ends instanceof Uint32Array) {
      this.starts[this.length] = Number(start);
      this.ends[this.length] = Number(end);
    } else {
      (this.starts as bigint[]).push(start);
      (this.ends as bigint[]).push(end);
    }
    this.values[this.length++] = value;
  }
}

/** Min-heap of range numbers by rank (smaller range first, then file order). */
class RankHeap {
  private readonly items: Uint32Array;
  size = 0;

  constructor(
    capacity: number,
    private readonly rank: Uint32Array,
  ) {
    this.items = new Uint32Array(Math.max(1, capacity));
  }

  top(): number {
    return this.items[0];
  }

  push(item: number): void {
    const { items, rank } = this;
    let at = this.size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (rank[items[parent]] <= rank[item]) break;
      items[at] = items[parent];
      at = parent;
    }
    items[at] = item;
  }

  pop(): void {
    const { items, rank } = this;
    const last = items[--this.size];
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && rank[items[child + 1]] < rank[items[child]]) child++;
      if (rank[items[child]] >= rank[last]) break;
      items[at] = items[child];
      at = child;
    }
    items[at] = last;
  }
}

interface SweepInput<K extends number | bigint> {
  length: number;
  starts: ArrayLike<K>;
  ends: ArrayLike<K>;
  values: ArrayLike<number>;
  next: (k: K) => K;
  previous: (k: K) => K;
  max: K;
  /** range numbers, smaller ranges first (ties: file order) */
  bySize: Uint32Array;
}

/**
 * Cuts the address space into segments where one range wins (the smallest covering one) and hands
 * each to `out`; also counts ranges that cross the innermost open range instead of nesting in it.
 */
function sweep<K extends number | bigint>(input: SweepInput<K>, out: (start: K, end: K, value: number) => void): number {
  const { length, starts, ends, values, next, previous, max } = input;
  const rank = new Uint32Array(length);
  for (let r = 0; r < length; r++) rank[input.bySize[r]] = r;
  const order = new Uint32Array(length);
  for (let i = 0; i < length; i++) order[i] = i;
  // by start, the wider first at one start, so an enclosing range opens before what it encloses
  order.sort((a, b) => (starts[a] < starts[b] ? -1 : starts[a] > starts[b] ? 1 : ends[a] > ends[b] ? -1 : ends[a] < ends[b] ? 1 : a - b));

  let overlaps = 0;
  const open = new Uint32Array(length);
  let depth = 0;
  for (let i = 0; i < length; i++) {
    const r = order[i];
    while (depth > 0 && ends[open[depth - 1]] < starts[r]) depth--;
    if (depth > 0 && ends[open[depth - 1]] < ends[r]) overlaps++;
    open[depth++] = r;
  }

  const heap = new RankHeap(length, rank);
  let queued = 0;
  let position = max;
  for (;;) {
    if (heap.size === 0) {
      if (queued === length) break;
      position = starts[order[queued]];
    }
    while (queued < length && starts[order[queued]] <= position) heap.push(order[queued++]);
    while (heap.size > 0 && ends[heap.top()] < position) heap.pop();
    if (heap.size === 0) continue;
    const winner = heap.top();
    let end = ends[winner];
    if (queued < length && starts[order[queued]] <= end) end = previous(starts[order[queued]]);
    out(position, end, values[winner]);
    if (end === max) break;
    position = next(end);
  }
  return overlaps;
}

interface Segments {
  starts: Uint32Array | bigint[];
  ends: Uint32Array | bigint[];
  /** mailbox numbers */
  values: Uint32Array;
  overlaps: number;
}

/** The winning mailbox segments of one family's deciding ranges, joined and without the stops. */
function segmentsOf(ranges: DecidingRanges): Segments {
  const { length, values } = ranges;
  const bySize = new Uint32Array(length);
  for (let i = 0; i < length; i++) bySize[i] = i;
  if (ranges.starts instanceof Uint32Array && ranges.ends instanceof Uint32Array) {
    const starts = ranges.starts;
    const ends = ranges.ends;
    bySize.sort((a, b) => ends[a] - starts[a] - (ends[b] - starts[b]) || a - b);
    // nested ranges cut the space into up to 2n - 1 segments; most real ones end where their parent does
    let outStarts = new Uint32Array(length + 16);
    let outEnds = new Uint32Array(length + 16);
    let mailbox = new Uint32Array(length + 16);
    let count = 0;
    const overlaps = sweep<number>(
      { length, starts, ends, values, next: (k) => k + 1, previous: (k) => k - 1, max: IPV4_MAX, bySize },
      (start, end, value) => {
        if (value === NO_CONTACT) return;
        if (count > 0 && mailbox[count - 1] === value && outEnds[count - 1] + 1 === start) {
          outEnds[count - 1] = end;
          return;
        }
        if (count === mailbox.length) [outStarts, outEnds, mailbox] = [grown(outStarts), grown(outEnds), grown(mailbox)];
        outStarts[count] = start;
        outEnds[count] = end;
        mailbox[count++] = value;
      },
    );
    return { starts: outStarts.slice(0, count), ends: outEnds.slice(0, count), values: mailbox.slice(0, count), overlaps };
  }
  const starts = ranges.starts as bigint[];
  const ends = ranges.ends as bigint[];
  bySize.sort((a, b) => {
    const sizeA = ends[a] - starts[a];
    const sizeB = ends[b] - starts[b];
    return sizeA < sizeB ? -1 : sizeA > sizeB ? 1 : a - b;
  });
  const outStarts: bigint[] = [];
  const outEnds: bigint[] = [];
  const mailbox: number[] = [];
  const overlaps = sweep<bigint>(
    { length, starts, ends, values, next: (k) => k + 1n, previous: (k) => k - 1n, max: IPV6_MAX, bySize },
    (start, end, value) => {
      if (value === NO_CONTACT) return;
      const count = mailbox.length;
      if (count > 0 && mailbox[count - 1] === value && outEnds[count - 1] + 1n === start) {
        outEnds[count - 1] = end;
        return;
      }
      outStarts.push(start);
      outEnds.push(end);
      mailbox.push(value);
    },
  );
  return { starts: outStarts, ends: outEnds, values: Uint32Array.from(mailbox), overlaps };
}

/** One range and its decision: a mailbox number, or -1 for "no contact here" (which hides the ranges around it). */
export interface DecidingRange {
  start: bigint;
  end: bigint;
  value: number;
}

/**
 * The sweep on its own, for ranges given whole: at every address the smallest covering range
 * decides (ties: the earlier in the list); returns the segments with a mailbox number, sorted,
 * disjoint, adjacent ones of one number joined.
 */
export function mostSpecificRanges(family: 4 | 6, ranges: readonly DecidingRange[]): DecidingRange[] {
  const collected = new DecidingRanges(family);
  for (const range of ranges) collected.add(range.start, range.end, range.value);
  const { starts, ends, values } = segmentsOf(collected);
  return Array.from(values, (value, i) => ({ start: BigInt(starts[i]), end: BigInt(ends[i]), value }));
}

type ContactClass = 'role' | 'organisation' | 'irt';
type RangeClass = 'inetnum' | 'inet6num';

/** The classes a file is given for: a file given for one class only is a split file of that class. */
function classesGivenFor(files: AbuseDumpFiles, file: string): string[] {
  return Object.entries(files)
    .filter(([, other]) => other === file)
    .map(([name]) => name);
}

/** The files and the classes each is read for, in the order first given. */
function filesFor<C extends string>(files: AbuseDumpFiles, classes: readonly C[]): Map<string, C[]> {
  const byFile = new Map<string, C[]>();
  for (const name of classes) {
    const file = files[name as keyof AbuseDumpFiles];
    if (file === undefined) continue;
    const list = byFile.get(file) ?? [];
    list.push(name);
    byFile.set(file, list);
  }
  return byFile;
}

/** Reads the dumps of one RIR and derives its abuse mailboxes (see the module comment). */
export async function readAbuseContacts(
  files: AbuseDumpFiles,
  registry: AbuseRegistry,
  bounds: Pick<RpslDumpOptions, 'maxLineLength' | 'maxBytes' | 'maxObjectLength' | 'maxAttributes'> = {},
): Promise<AbuseContacts> {
  const counts = new Map<string, AbuseDumpCounts>();
  const countsOf = (file: string): AbuseDumpCounts => {
    let entry = counts.get(file);
    if (entry === undefined) {
      entry = { file, objects: 0, ranges: 0, withMailbox: 0, mailboxesDropped: 0 };
      counts.set(file, entry);
    }
    return entry;
  };
  const contactClasses: ContactClass[] = registry === 'ripencc' ? ['role', 'organisation'] : ['role', 'organisation', 'irt'];
  for (const name of ['inetnum', 'inet6num', ...contactClasses] as const) {
    const file = files[name];
    if (file !== undefined) countsOf(file);
  }

  const mailboxes: string[] = [];
  const mailboxNumbers = new Map<string, number>();
  const intern = (mailbox: string): number => {
    let number = mailboxNumbers.get(mailbox);
    if (number === undefined) {
      number = mailboxes.length;
      mailboxes.push(mailbox);
      mailboxNumbers.set(mailbox, number);
    }
    return number;
  };

  // Contacts first: roles, organisations and irts are few and small; a range is then decided as it is read.
  const roleMailbox = new Map<string, number>();
  const irtMailbox = new Map<string, number>();
  const organisationAbuseC = new Map<string, string>();
  const defined = new Map<string, number>();
  for (const [file, classes] of filesFor(files, contactClasses)) {
    const keep = Object.fromEntries(classes.map((name) => [name, CONTACT_ATTRIBUTES[name]]));
    const read: RpslDumpCounts = { objects: 0, kept: 0 };
    const split = classesGivenFor(files, file).length === 1;
    for await (const object of readRpslDump(file, {
      ...bounds,
      keep,
      classes: split ? classes : undefined,
      encoding: 'latin1',
      counts: read,
    })) {
      const keyName = object.class === 'role' ? 'nic-hdl' : object.class;
      const key = first(object, keyName)?.toUpperCase() ?? '';
      if (key === '') throw new SourceFormatError(file, object.line, `a ${object.class} without ${keyName}`);
      const definedKey = `${object.class} ${key}`;
      const earlier = defined.get(definedKey);
      if (earlier !== undefined)
        throw new SourceFormatError(file, object.line, `${object.class} ${key} is defined twice (first on line ${earlier})`);
      defined.set(definedKey, object.line);
      if (object.class === 'organisation') {
        const abuseC = first(object, 'abuse-c');
        if (abuseC !== null && abuseC !== '') organisationAbuseC.set(key, abuseC.toUpperCase());
        continue;
      }
      const mailbox = first(object, 'abuse-mailbox');
      if (mailbox === null) continue;
      if (!isAbuseMailbox(mailbox)) {
        countsOf(file).mailboxesDropped++;
        continue;
      }
      (object.class === 'role' ? roleMailbox : irtMailbox).set(key, intern(mailbox));
    }
    countsOf(file).objects = Math.max(countsOf(file).objects, read.objects);
  }

  const usesIrt = registry !== 'ripencc';
  const decide = (object: RpslObject): number | null => {
    const own = first(object, 'abuse-c');
    const ownMailbox = own === null ? undefined : roleMailbox.get(own.toUpperCase());
    if (ownMailbox !== undefined) return ownMailbox;
    const organisation = first(object, 'org');
    const abuseC = organisation === null ? undefined : organisationAbuseC.get(organisation.toUpperCase());
    const organisationMailbox = abuseC === undefined ? undefined : roleMailbox.get(abuseC);
    if (organisationMailbox !== undefined) return organisationMailbox;
    if (usesIrt) {
      for (const irt of listOf(object, 'mnt-irt')) {
        const irtBox = irtMailbox.get(irt);
        if (irtBox !== undefined) return irtBox;
      }
    }
    if (registry === 'ripencc' && [...listOf(object, 'mnt-by'), ...listOf(object, 'mnt-lower')].some((m) => RIPE_NCC_MAINTAINERS.has(m))) {
      return NO_CONTACT;
    }
    return null;
  };

  const ipv4 = new DecidingRanges(4);
  const ipv6 = new DecidingRanges(6);
  const rangeClasses: RangeClass[] = ['inetnum', 'inet6num'];
  for (const [file, classes] of filesFor(files, rangeClasses)) {
    const keep = Object.fromEntries(classes.map((name) => [name, RANGE_ATTRIBUTES]));
    const read: RpslDumpCounts = { objects: 0, kept: 0 };
    const split = classesGivenFor(files, file).length === classes.length;
    const entry = countsOf(file);
    const seen = new Set<string>();
    for await (const object of readRpslDump(file, {
      ...bounds,
      keep,
      classes: split ? classes : undefined,
      encoding: 'latin1',
      counts: read,
    })) {
      const bad = (problem: string) => new SourceFormatError(file, object.line, problem);
      const key = cleanRpslValue(object.attributes[0][1]);
      seen.add(object.class);
      let start: bigint;
      let end: bigint;
      if (object.class === 'inetnum') {
        const m = INETNUM.exec(key);
        const low = m === null ? -1 : parseIPv4(m[1]);
        const high = m === null ? -1 : parseIPv4(m[2]);
        if (low < 0 || high < 0) throw bad(`inetnum "${key.slice(0, 80)}" is not "a.b.c.d - e.f.g.h"`);
        if (low > high) throw bad(`inetnum "${key}" ends before it starts`);
        [start, end] = [BigInt(low), BigInt(high)];
      } else {
        const m = INET6NUM.exec(key);
        if (m === null || !parseIPv6(m[1], words) || Number(m[2]) > 128) throw bad(`inet6num "${key.slice(0, 80)}" is not "prefix/length"`);
        start = ipv6Value(words);
        const hostMask = (1n << BigInt(128 - Number(m[2]))) - 1n;
        if ((start & hostMask) !== 0n) throw bad(`inet6num "${key}" has bits set past its /${m[2]}`);
        end = start | hostMask;
      }
      entry.ranges++;
      const value = decide(object);
      if (value === null) continue;
      if (value !== NO_CONTACT) entry.withMailbox++;
      (object.class === 'inetnum' ? ipv4 : ipv6).add(start, end, value);
    }
    entry.objects = Math.max(entry.objects, read.objects);
    // a file without a single range is not the dump (an error page, an emptied mirror)
    for (const name of classes) if (!seen.has(name)) throw new SourceFormatError(file, 0, `no ${name} object in the file`);
  }

  const four = segmentsOf(ipv4);
  const six = segmentsOf(ipv6);
  // keep the mailboxes some range names (a role's mailbox may serve no range), numbered as first used
  const renumber = new Int32Array(mailboxes.length).fill(-1);
  const used: string[] = [];
  for (const values of [four.values, six.values]) {
    for (let i = 0; i < values.length; i++) {
      if (renumber[values[i]] < 0) renumber[values[i]] = used.push(mailboxes[values[i]]) - 1;
      values[i] = renumber[values[i]];
    }
  }
  return {
    registry,
    ipv4: new AbuseRangeTable(4, four.starts, four.ends, four.values, used),
    ipv6: new AbuseRangeTable(6, six.starts, six.ends, six.values, used),
    mailboxes: used,
    files: [...counts.values()],
    overlaps: four.overlaps + six.overlaps,
  };
}
