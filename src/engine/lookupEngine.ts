/**
 * The lookup engine's API: text in, plain answers out. Parsing and reserved-range classification
 * happen here in TypeScript; the range search, OUI match and MAC bits happen in WASM; records are
 * decoded from the tables. Platform-neutral: give it the WASM bytes and the table bytes.
 */
import { ApiError } from '../errors.js';
import type { IpTable } from '../tables/format/ipTable.js';
import { NONE } from '../tables/format/ipTableLayout.js';
import type { MacTable } from '../tables/format/macTable.js';
import type { TableMeta } from '../tables/format/tableMeta.js';
import { formatIPv4, formatIPv6, ipv4MappedOf, parseIPv4, parseIPv6, type IpVersion, type ParsedIp } from '../address/ipAddress.js';
import { invalidMac, parseMac, type MacParts } from '../address/macAddress.js';
import { MacAnswers } from './macAnswers.js';
import { reservedIPv4, reservedIPv6, type ReservedRange } from '../address/reservedRange.js';
import { instantiateEngine, placeTables, type PlacedTables, type TableNames, type TableSources } from './wasmEngine.js';
import type { IpAnswer, IpBlock, MacAnswer, NetworkAnswer } from './answers.js';
import { IpJsonWriter, MacJsonWriter, type IpJsonShape, type MacJsonShape } from './recordJson.js';

export type { IpAnswer, MacAnswer } from './answers.js';

export interface TableInfo<K extends string = 'ip4' | 'ip6' | 'mac'> {
  kind: K;
  file: string;
  checksum: string;
  built_at: string;
  /** the newest date a source of the table states (not the build time); null when none states one */
  source_date: string | null;
  bytes: number;
  meta: TableMeta;
}

export class LookupEngine {
  private readonly words = new Uint32Array(4);
  private readonly blockStart = new Uint32Array(4);
  private readonly blockEnd = new Uint32Array(4);
  private readonly mac: MacParts = { hi24: 0, lo24: 0, digits: 0 };
  /**
   * The WASM IPv4 search, or a function that throws `unavailable` when there is no IPv4 table:
   * chosen once, so that a single lookup costs one field load before the call into WASM.
   */
  private readonly v4Find: (address: number) => number;

  private readonly macAnswers: MacAnswers | null;
  private readonly ipJsonWriters = new WeakMap<IpJsonShape, IpJsonWriter | null>();
  private readonly macJsonWriters = new WeakMap<MacJsonShape, MacJsonWriter | null>();

  private constructor(private readonly placed: PlacedTables) {
    this.macAnswers = placed.mac ? new MacAnswers(placed.exports, placed.mac) : null;
    this.v4Find = placed.ip4
      ? placed.exports.v4Find
      : () => {
          throw notLoaded('IPv4');
        };
  }

  /** Instantiates the WASM module and loads the given tables; throws on any bad table. */
  static async create(wasm: BufferSource | WebAssembly.Module, tables: TableSources, names: TableNames = {}): Promise<LookupEngine> {
    const exports = await instantiateEngine(wasm);
    return new LookupEngine(await placeTables(exports, tables, names));
  }

  get ip4(): IpTable | null {
    return this.placed.ip4;
  }

  get ip6(): IpTable | null {
    return this.placed.ip6;
  }

  get macTable(): MacTable | null {
    return this.placed.mac;
  }

  tables(): TableInfo[] {
    const list: TableInfo[] = [];
    for (const kind of ['ip4', 'ip6', 'mac'] as const) {
      const table = this.placed[kind];
      if (!table) continue;
      list.push({
        kind,
        file: table.file,
        checksum: table.header.checksum,
        built_at: table.header.builtAt.toISOString(),
        source_date: table.header.sourceDate?.toISOString() ?? null,
        bytes: table.header.fileLength,
        meta: table.meta,
      });
    }
    return list;
  }

  /**
   * The WASM writer of found IP records' JSON for a record shape (one per shape and table set,
   * made on first use), or null when these tables have none: the object path then answers.
   */
  ipJsonWriter(shape: IpJsonShape): IpJsonWriter | null {
    let writer = this.ipJsonWriters.get(shape);
    if (writer === undefined) this.ipJsonWriters.set(shape, (writer = IpJsonWriter.of(this.placed, shape)));
    return writer;
  }

  /** The same for MAC records. */
  macJsonWriter(shape: MacJsonShape): MacJsonWriter | null {
    let writer = this.macJsonWriters.get(shape);
    if (writer === undefined) this.macJsonWriters.set(shape, (writer = MacJsonWriter.of(this.placed, shape)));
    return writer;
  }

  // Every search below throws ApiError unavailable ("The IPv4 table is not loaded.") when its
  // table is not loaded: the WASM search would read unconfigured memory.

  /** Range index of an IPv4 address (u32), the hot path. */
  findIPv4(address: number): number {
    return this.v4Find(address);
  }

  /** Range index of an IPv6 address given as four 32-bit words, most significant first. */
  findIPv6(words: ArrayLike<number>): number {
    this.requireTable(this.placed.ip6, 'IPv6');
    return this.placed.exports.v6FindWords(words[0], words[1], words[2], words[3]);
  }

  /** Range index of an IPv4 address in text, or -1 when the text is not an IPv4 address. */
  findIPv4Text(text: string): number {
    this.requireTable(this.placed.ip4, 'IPv4');
    const address = parseIPv4(text);
    return address < 0 ? -1 : this.v4Find(address);
  }

  /** Block row of a MAC address or prefix in text (-1: no block), or -2 when the text is not one. */
  findOuiText(text: string): number {
    this.requireTable(this.placed.mac, 'MAC');
    const parts = this.mac;
    if (!parseMac(text, parts)) return -2;
    return this.placed.exports.ouiFind(parts.hi24, parts.lo24, parts.digits * 4);
  }

  /** Answers an IP address in text. Throws ApiError invalid_ip for anything not an address. */
  lookupIp(text: string): IpAnswer {
    const v4 = parseIPv4(text);
    if (v4 >= 0) return this.answerIPv4(v4);
    const words = this.words;
    if (!parseIPv6(text, words)) throw new ApiError('invalid_ip');
    const mapped = ipv4MappedOf(words);
    if (mapped >= 0) return this.answerIPv4(mapped);
    return this.answerIPv6(words);
  }

  /** The answer for an address parsed once (parseIp): no second parse. */
  answerOf(ip: ParsedIp): IpAnswer {
    return ip.v4 >= 0 ? this.answerIPv4(ip.v4) : this.answerIPv6(ip.words);
  }

  /**
   * The index of the range holding a parsed address in its family's table: every table fact of the
   * address (location, network, block for IPv4) is the range's. -1 for special-purpose space, which
   * no table answers. Throws `unavailable` when the family's table is not loaded.
   */
  rangeOf(ip: ParsedIp): number {
    if (ip.v4 >= 0) {
      if (reservedIPv4(ip.v4)) return -1;
      return this.findIPv4(ip.v4);
    }
    if (reservedIPv6(ip.words)) return -1;
    return this.findIPv6(ip.words);
  }

  /** The CIDR block around an IPv6 address within its range's network (the one per-address part of an IPv6 answer). */
  blockOfIPv6(words: ArrayLike<number>, range: number): IpBlock {
    const table = this.requireTable(this.placed.ip6, 'IPv6');
    if (!Number.isInteger(range) || range < 0 || range >= table.rangeCount)
      throw new RangeError(`range ${range} is not a range of the IPv6 table`);
    for (let i = 0; i < 4; i++) this.words[i] = words[i];
    return this.block(table, range, table.rangeNetwork[range]);
  }

  answerIPv4(address: number): IpAnswer {
    const ip = formatIPv4(address);
    const reserved = reservedIPv4(address);
    if (reserved) return reservedAnswer(ip, 4, reserved);
    const table = this.requireTable(this.placed.ip4, 'IPv4');
    const range = this.v4Find(address);
    this.words[0] = address;
    return this.rangeAnswer(table, range, ip, 4);
  }

  answerIPv6(words: ArrayLike<number>): IpAnswer {
    const ip = formatIPv6(words);
    const reserved = reservedIPv6(words);
    if (reserved) return reservedAnswer(ip, 6, reserved);
    const table = this.requireTable(this.placed.ip6, 'IPv6');
    const range = this.placed.exports.v6FindWords(words[0], words[1], words[2], words[3]);
    for (let i = 0; i < 4; i++) this.words[i] = words[i];
    return this.rangeAnswer(table, range, ip, 6);
  }

  private requireTable<T>(table: T | null, what: string): T {
    if (!table) throw notLoaded(what);
    return table;
  }

  private rangeAnswer(table: IpTable, range: number, ip: string, version: IpVersion): IpAnswer {
    const locationRow = table.rangeLocation[range];
    const networkRow = table.rangeNetwork[range];
    if (locationRow === NONE && networkRow === NONE) {
      return { ip, version, status: 'not_found', reserved: null, location: null, country: null, network: null, block: null, range };
    }
    const location = locationRow === NONE ? null : table.location(locationRow);
    const country = location?.country_code ? (table.countries.get(location.country_code) ?? null) : null;
    const network = networkRow === NONE ? null : networkAnswer(table, networkRow);
    return { ip, version, status: 'found', reserved: null, location, country, network, block: this.block(table, range, networkRow), range };
  }

  /** The network block (ASN range) when there is one, else the range of constant answer. */
  private block(table: IpTable, range: number, networkRow: number): IpBlock {
    const start = this.blockStart;
    const end = this.blockEnd;
    if (networkRow !== NONE) {
      table.networkBlock(networkRow, start, end);
    } else {
      table.rangeStart(range, start);
      if (range + 1 < table.rangeCount) {
        table.rangeStart(range + 1, end);
        decrement(end, table.family);
      } else if (table.family === 4) {
        end[0] = 0xffffffff;
      } else {
        end.fill(0xffffffff);
      }
    }
    if (table.family === 4) {
      return { start: formatIPv4(start[0]), end: formatIPv4(end[0]), size: end[0] - start[0] + 1, prefix: null };
    }
    const prefix = cidrPrefixWithin(start, end, this.words);
    maskWords(this.words, prefix, start, end);
    return { start: formatIPv6(start), end: formatIPv6(end), size: null, prefix };
  }

  /** Answers a MAC address or OUI prefix in text. Throws ApiError invalid_mac. */
  lookupMac(text: string): MacAnswer {
    if (!this.macAnswers) {
      if (!parseMac(text, this.mac)) throw invalidMac(text);
      this.requireTable(this.placed.mac, 'MAC');
    }
    // The full table (kind mac) always gives the vendor its address.
    return this.macAnswers!.lookup(text) as MacAnswer;
  }
}

function notLoaded(what: string): ApiError {
  return new ApiError('unavailable', `The ${what} table is not loaded.`);
}

function reservedAnswer(ip: string, version: IpVersion, reserved: ReservedRange): IpAnswer {
  return { ip, version, status: 'reserved', reserved, location: null, country: null, network: null, block: null, range: -1 };
}

function networkAnswer(table: IpTable, networkRow: number): NetworkAnswer {
  const as = table.asRow(table.asRowOfNetwork(networkRow));
  // the AS row is the network answer, but for AS 0 (no AS) given as null
  return { ...as, asn: as.asn === 0 ? null : as.asn };
}

function decrement(words: Uint32Array, family: 4 | 6): void {
  if (family === 4) {
    words[0] = words[0] - 1;
    return;
  }
  for (let i = 3; i >= 0; i--) {
    words[i] = words[i] - 1;
    if (words[i] !== 0xffffffff) return;
  }
}

/** Compares two 128-bit values given as four words, most significant first. */
function compareWords(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** First and last address of the /prefix block holding `address`. */
function maskWords(address: ArrayLike<number>, prefix: number, first: Uint32Array, last: Uint32Array): void {
  for (let i = 0; i < 4; i++) {
    const bits = Math.min(32, Math.max(0, prefix - 32 * i));
    const mask = bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
    first[i] = (address[i] & mask) >>> 0;
    last[i] = (address[i] | ~mask) >>> 0;
  }
}

const firstScratch = new Uint32Array(4);
const lastScratch = new Uint32Array(4);

/**
 * The shortest prefix whose block around `address` lies within [start, end], i.e. the largest
 * CIDR block of the network that holds the address. Blocks shrink as the prefix grows, so a
 * binary search over 0..128 finds it.
 */
export function cidrPrefixWithin(start: ArrayLike<number>, end: ArrayLike<number>, address: ArrayLike<number>): number {
  let low = 0;
  let high = 128;
  while (low < high) {
    const middle = (low + high) >>> 1;
    maskWords(address, middle, firstScratch, lastScratch);
    if (compareWords(firstScratch, start) >= 0 && compareWords(lastScratch, end) <= 0) high = middle;
    else low = middle + 1;
  }
  return low;
}
