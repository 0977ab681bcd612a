/**
 * The records' JSON written by the WASM engine straight from the tables in its memory
 * (assembly/ipRecordJson.ts, assembly/macRecordJson.ts): no answer object, no JSON.stringify.
 *
 * The engine knows where the values go, not what the records look like: the records layer hands
 * it a shape (IpJsonShape, MacJsonShape) with the object path's own JSON split at the values and
 * the fragments it rendered (country facts, connection types, security blocks, clocks). Placed in
 * the JSON area of WASM memory once per loaded table set, they are bounded by the tables' country
 * list (a few hundred), the time zones their rows name (a few hundred, one slot each, refreshed
 * once per UTC minute) and a few constants: nothing grows with traffic.
 *
 * The JSON area: the output (one record at a time), the MAC input text, then the fragments,
 * allocated upwards. A table set whose fragments do not fit has no writer (the object path serves).
 * What the engine wrote there becomes a string in recordText.ts.
 */
import type { ParsedIp } from '../address/ipAddress.js';
import { invalidMac, parseMac, type MacParts } from '../address/macAddress.js';
import type { IpTable } from '../tables/format/ipTable.js';
import type { MacTable } from '../tables/format/macTable.js';
import { IP_SECTION } from '../tables/format/ipTableLayout.js';
import { MAC_SECTION } from '../tables/format/macTableLayout.js';
import { SHARED_SECTION } from '../tables/format/containerLayout.js';
import type { CountryFacts } from '../tables/format/tableMeta.js';
import {
  ADDRESS_PARTS,
  COUNTRY_FRAGMENTS,
  descriptionBytes,
  FRAGMENT,
  IP_DESCRIPTION,
  IS_HOSTING,
  MAC_DESCRIPTION,
  NEED_ZONE,
  OBJECT_PATH_VALUE,
  VM_PREFIX,
  UTF8_RECORD,
  ZONE_SLOT,
} from './recordJsonLayout.js';
import type { PlacedTables, WasmExports } from './wasmEngine.js';
import { READS_LATIN1, recordBytes, recordReader, type RecordReader } from './recordText.js';

export type JsonLevel = 'basic' | 'full';

/** The object path's JSON of a found IP record and what it is made of; see assembly/ipRecordJson.ts. */
export interface IpJsonShape {
  /** the record's JSON split at its values (recordJsonLayout.ts, ipHoles), by family and level */
  templates: Readonly<Record<4 | 6, Readonly<Record<JsonLevel, readonly string[]>>>>;
  /** JSON of the country's fragments for a country (null: none); null: the object path */
  country(facts: CountryFacts | null): Readonly<Record<keyof typeof COUNTRY_FRAGMENTS, string>> | null;
  /**
   * The full level's location JSON around a datacenter address, which goes after is_eu where the AS
   * row's datacenter is in the location row's country: before the address's value, and after it.
   */
  address: readonly [string, string];
  /** JSON of each connection type, by its code in the tables (0: unknown) */
  connectionTypes: readonly string[];
  /** JSON of network.usage for each connection type, by its code in the tables (0: unknown) */
  usages: readonly string[];
  /** the security block without any feed or threat facts, for is_hosting false, true and null */
  quietSecurity: readonly [string, string, string];
  /**
   * The full level's timezone JSON of a zone (null: none) at instant `ms`, for the whole UTC
   * minute: [head, tail] around the two digits of the seconds, or [text] when it does not tick;
   * null sends the zone to the object path.
   */
  clock(zone: string | null, ms: number): readonly [string] | readonly [string, string] | null;
}

/** The object path's JSON of a MAC record and its fragments; see assembly/macRecordJson.ts. */
export interface MacJsonShape {
  /** the record's JSON split at its values (recordJsonLayout.ts, macHoles), found or not and by level */
  templates: Readonly<Record<'found' | 'missing', Readonly<Record<JsonLevel, readonly string[]>>>>;
  /** JSON of the vendor's country name for a country (null: none) */
  countryName(facts: CountryFacts | null): string;
  /** JSON of each block type, by its code in the table */
  blockTypes: readonly string[];
  /** JSON of a virtualisation platform's name */
  platform(name: string): string;
  /** the JSON of a special range's object split at its values (recordJsonLayout.ts, MAC_SPECIAL_HOLES) */
  special: readonly string[];
}

const OUTPUT_BYTES = 64 << 10;
/** Room past the output's checked end for everything of bounded size: a record's few dozen fragments of at most FRAGMENT_LIMIT bytes. */
const OUTPUT_SLACK = 64 << 10;
const FRAGMENT_LIMIT = 1024;
const MAC_INPUT_BYTES = 64;
const COUNTRY_SLOTS = 1024;
const ZONE_SLOTS = 2048;
const ZONE_LIMIT = 1024;
/** no record written: the object path answers */
const NOT_WRITTEN = -1;
const LEVEL = { basic: 0, full: 1 } as const;

class OutOfArea extends Error {}

/** 0 for ASCII text, 1 with characters beyond ASCII, 3 with some beyond Latin-1 (assembly/jsonWriter.ts). */
function charactersOf(text: string): number {
  let characters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) return 3;
    if (c > 0x7f) characters = 1;
  }
  return characters;
}

/** Allocation in the JSON area, upwards from past the output and the MAC input. */
class JsonArea {
  readonly output: number;
  readonly utf16Output: number;
  readonly macInput: number;
  private next: number;
  private readonly end: number;
  private readonly memory: Uint8Array;
  private readonly words: DataView;
  private readonly encoder = new TextEncoder();

  constructor(
    readonly exports: WasmExports,
    start: number,
    bytes: number,
  ) {
    this.output = start;
    this.utf16Output = start + OUTPUT_BYTES + OUTPUT_SLACK;
    this.macInput = this.utf16Output + 2 * (OUTPUT_BYTES + OUTPUT_SLACK);
    this.next = this.macInput + MAC_INPUT_BYTES;
    this.end = start + bytes;
    this.memory = new Uint8Array(exports.memory.buffer);
    this.words = new DataView(exports.memory.buffer);
    exports.jsonOutput(this.output, this.output + OUTPUT_BYTES, this.utf16Output, READS_LATIN1);
  }

  /** `bytes` zeroed bytes at a multiple of 8. */
  allocate(bytes: number): number {
    const at = Math.ceil(this.next / 8) * 8;
    if (at + bytes > this.end) throw new OutOfArea();
    this.next = at + bytes;
    this.memory.fill(0, at, at + bytes);
    return at;
  }

  /** Writes UTF-8 text at `at`; its byte length. */
  writeText(at: number, text: string, room: number): number {
    const { read, written } = this.encoder.encodeInto(text, this.memory.subarray(at, at + room));
    if (read !== text.length) throw new OutOfArea();
    return written;
  }

  /** A list of fragments of JSON texts, its address. */
  fragments(texts: readonly string[]): number {
    const refs = this.allocate(FRAGMENT.bytes * texts.length);
    texts.forEach((text, i) => this.fragment(refs + FRAGMENT.bytes * i, text));
    return refs;
  }

  /** A list of fragments laid out by name (COUNTRY_FRAGMENTS, ADDRESS_PARTS), its address. */
  namedFragments<L extends Readonly<Record<string, number>>>(layout: L, texts: { readonly [K in keyof L]: string }): number {
    const refs = this.allocate(FRAGMENT.bytes * Object.keys(layout).length);
    for (const name of Object.keys(layout) as (keyof L & string)[]) this.fragment(refs + layout[name], texts[name]);
    return refs;
  }

  /** Writes the words of a description (IP_DESCRIPTION, MAC_DESCRIPTION) at `at`, allocated with descriptionBytes. */
  describe<L extends Readonly<Record<string, number>>>(at: number, layout: L, words: { readonly [K in keyof L]: number }): void {
    for (const name of Object.keys(layout) as (keyof L & string)[]) this.setU32(at + layout[name], words[name]);
  }

  /** Places a JSON text and its fragment at `ref`. */
  fragment(ref: number, text: string): void {
    const room = text.length * 3;
    if (room > FRAGMENT_LIMIT * 3) throw new OutOfArea();
    const at = this.allocate(room);
    const length = this.writeText(at, text, room);
    if (length > FRAGMENT_LIMIT) throw new OutOfArea();
    this.setU32(ref + FRAGMENT.address, at);
    this.words.setUint16(ref + FRAGMENT.length, length, true);
    this.words.setUint16(ref + FRAGMENT.characters, charactersOf(text), true);
  }

  setU32(at: number, value: number): void {
    this.words.setUint32(at, value, true);
  }

  setF64(at: number, value: number): void {
    this.words.setFloat64(at, value, true);
  }

  /** A small map (assembly/smallMap.ts) of `slots` slots, a power of two. */
  map(slots: number): { at: number; mask: number } {
    return { at: this.allocate(8 * slots), mask: slots - 1 };
  }

  /** Countries by packed code: their fragments, or the object path where `render` gives none. */
  countries(map: { at: number; mask: number }, facts: Map<string, CountryFacts>, render: (facts: CountryFacts) => number | null): void {
    for (const [code, country] of facts) {
      // the tables store a code as two bytes; no other code can be asked for
      if (code.length !== 2 || code.charCodeAt(0) > 255 || code.charCodeAt(1) > 255) continue;
      const packed = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
      if (packed === 0) continue;
      if (!this.exports.mapSet(map.at, map.mask, packed, render(country) ?? OBJECT_PATH_VALUE)) throw new OutOfArea();
    }
  }
}

/** The JSON area of a placed table set, shared by its IP and MAC writers. */
function areaOf(placed: PlacedTables): JsonArea | null {
  let area = areas.get(placed);
  if (area === undefined && placed.jsonAreaBytes > 0) {
    area = new JsonArea(placed.exports, placed.jsonArea, placed.jsonAreaBytes);
    areas.set(placed, area);
  }
  return area ?? null;
}
const areas = new WeakMap<PlacedTables, JsonArea>();

class FamilyWriter {
  /** zone string id → its slot, in WASM memory */
  private readonly zones: { at: number; mask: number };
  /** the same on this side: slots are made once and rewritten */
  private readonly slots = new Map<number, number>();

  constructor(
    private readonly area: JsonArea,
    private readonly table: IpTable,
    private readonly shape: IpJsonShape,
  ) {
    const { exports } = area;
    const d = area.allocate(descriptionBytes(IP_DESCRIPTION));
    const section = (id: string) => table.bytes.byteOffset + table.sectionOffset(id);
    const countries = area.map(COUNTRY_SLOTS);
    area.countries(countries, table.countries, (facts) => {
      const texts = shape.country(facts);
      return texts && area.namedFragments(COUNTRY_FRAGMENTS, texts);
    });
    const noCountry = shape.country(null);
    if (!noCountry) throw new OutOfArea();
    this.zones = area.map(ZONE_SLOTS);
    const templates = shape.templates[table.family];
    area.describe(d, IP_DESCRIPTION, {
      rangeLocations: table.rangeLocation.byteOffset,
      rangeNetworks: table.rangeNetwork.byteOffset,
      locationRows: section(IP_SECTION.locationRows),
      networkRows: section(IP_SECTION.networkRows),
      asRows: section(IP_SECTION.asRows),
      stringOffsets: section(SHARED_SECTION.stringOffsets),
      stringBytes: section(SHARED_SECTION.strings),
      keysHigh: table.family === 4 ? table.keys!.byteOffset : table.keysHi!.byteOffset,
      keysLow: table.family === 4 ? 0 : table.keysLo!.byteOffset,
      rangeCount: table.rangeCount,
      countries: countries.at,
      countryMask: countries.mask,
      noCountry: area.namedFragments(COUNTRY_FRAGMENTS, noCountry),
      zones: this.zones.at,
      zoneMask: this.zones.mask,
      templateBasic: area.fragments(templates.basic),
      templateFull: area.fragments(templates.full),
      connectionTypes: area.fragments(shape.connectionTypes),
      quietSecurity: area.fragments(shape.quietSecurity),
      usages: area.fragments(shape.usages),
      address: area.namedFragments(ADDRESS_PARTS, { before: shape.address[0], after: shape.address[1] }),
    });
    exports.ipJsonConfigure(table.family, d);
  }

  /** Gives the zone (string id) its slot for the UTC minute of `ms`; false when it has none. */
  refreshZone(id: number, ms: number): boolean {
    const { area } = this;
    const clock = this.shape.clock(this.table.strings.get(id), ms);
    let value = OBJECT_PATH_VALUE;
    try {
      const slot = clock === null ? 0 : this.slotOf(id);
      if (clock !== null && slot !== 0) {
        const room = ZONE_SLOT.bytes - ZONE_SLOT.text;
        const head = area.writeText(slot + ZONE_SLOT.text, clock[0], room);
        const tail = clock.length === 2 ? area.writeText(slot + ZONE_SLOT.text + head, clock[1], room - head) : 0;
        area.setF64(slot + ZONE_SLOT.minute, Math.floor(ms / 60000));
        area.setU32(slot + ZONE_SLOT.constant, clock.length === 2 ? 0 : 1);
        area.setU32(slot + ZONE_SLOT.headLength, head);
        area.setU32(slot + ZONE_SLOT.tailLength, tail);
        area.setU32(slot + ZONE_SLOT.characters, charactersOf(clock.join('')));
        value = slot;
      }
    } catch (error) {
      if (!(error instanceof OutOfArea)) throw error;
    }
    return area.exports.mapSet(this.zones.at, this.zones.mask, id, value) && value !== OBJECT_PATH_VALUE;
  }

  /** The slot of a zone, made on its first request (0: past ZONE_LIMIT zones). */
  private slotOf(id: number): number {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      if (this.slots.size >= ZONE_LIMIT) return 0;
      slot = this.area.allocate(ZONE_SLOT.bytes);
      this.slots.set(id, slot);
    }
    return slot;
  }
}

/** The found IP records of one loaded table set as JSON text, written by the WASM engine. */
export class IpJsonWriter {
  private readonly families: Partial<Record<4 | 6, FamilyWriter>> = {};
  private readonly exports: WasmExports;
  private readonly text: RecordReader;
  private readonly bytes: RecordReader | null;

  private constructor(area: JsonArea, placed: PlacedTables, shape: IpJsonShape) {
    this.exports = area.exports;
    this.text = recordReader(area);
    this.bytes = recordBytes(area);
    if (placed.ip4) this.families[4] = new FamilyWriter(area, placed.ip4, shape);
    if (placed.ip6) this.families[6] = new FamilyWriter(area, placed.ip6, shape);
  }

  /** The writer of a placed table set, or null when it has no JSON area or the shape does not fit. */
  static of(placed: PlacedTables, shape: IpJsonShape): IpJsonWriter | null {
    const area = areaOf(placed);
    if (area === null) return null;
    try {
      return new IpJsonWriter(area, placed, shape);
    } catch (error) {
      if (error instanceof OutOfArea) return null;
      throw error;
    }
  }

  /** is_hosting of the last record written without its security block: false, true or null. */
  get hosting(): boolean | null {
    const state = this.exports.jsonHosting();
    return state === IS_HOSTING.null ? null : state === IS_HOSTING.true;
  }

  /**
   * The JSON text of the found record of a public (not special-purpose) address at `ms`, or null
   * when the object path must answer (not found, or a value this writer does not print). `quiet`
   * false: the text stops where the security block's value starts (`hosting` tells its is_hosting)
   * at the full level. `ending` (ASCII) takes the place of a whole record's closing brace.
   */
  write(ip: ParsedIp, level: JsonLevel, ms: number, quiet: boolean, ending = ''): string | null {
    const result = this.written(ip, LEVEL[level], ms, quiet);
    return result < 0 ? null : this.text(result, ending);
  }

  /**
   * The same whole record (`quiet`) as its UTF-8 bytes in a Latin-1 string (see recordBytes); null
   * as for write(), and where there is no Node Buffer.
   */
  writeUtf8(ip: ParsedIp, level: JsonLevel, ms: number, ending = ''): string | null {
    if (this.bytes === null) return null;
    const result = this.written(ip, LEVEL[level] + UTF8_RECORD, ms, true);
    return result < 0 ? null : this.bytes(result, ending);
  }

  /** finish()'s result for the record, or a negative code (the object path). */
  private written(ip: ParsedIp, level: number, ms: number, quiet: boolean): number {
    const family = this.families[ip.v4 >= 0 ? 4 : 6];
    if (family === undefined || !Number.isFinite(ms)) return NOT_WRITTEN;
    const { exports } = this;
    for (let attempt = 0; attempt < 2; attempt++) {
      const result =
        ip.v4 >= 0
          ? exports.ip4Json(ip.v4, level, ms, quiet ? 1 : 0)
          : exports.ip6Json(ip.words[0], ip.words[1], ip.words[2], ip.words[3], level, ms, quiet ? 1 : 0);
      if (result !== NEED_ZONE) return result;
      if (!family.refreshZone(exports.jsonPendingZone(), ms)) return NOT_WRITTEN;
    }
    return NOT_WRITTEN;
  }
}

/** MAC records of one loaded MAC table (kind mac) as JSON text, written by the WASM engine. */
export class MacJsonWriter {
  private readonly parts: MacParts = { hi24: 0, lo24: 0, digits: 0 };
  private readonly exports: WasmExports;
  private readonly input: Uint8Array;
  private readonly text: RecordReader;

  private constructor(area: JsonArea, table: MacTable, shape: MacJsonShape) {
    this.exports = area.exports;
    this.input = new Uint8Array(area.exports.memory.buffer, area.macInput, MAC_INPUT_BYTES);
    this.text = recordReader(area);
    const section = (id: string) => table.bytes.byteOffset + table.sectionOffset(id);
    const countries = area.map(COUNTRY_SLOTS);
    area.countries(countries, table.countries, (facts) => area.fragments([shape.countryName(facts)]));
    const vm = area.allocate(VM_PREFIX.bytes * table.vmPrefixes.length);
    table.vmPrefixes.forEach((prefix, i) => {
      const at = vm + VM_PREFIX.bytes * i;
      const value = parseInt(prefix.prefix.padEnd(12, '0'), 16);
      area.setU32(at + VM_PREFIX.value, value % 2 ** 32);
      area.setU32(at + VM_PREFIX.value + 4, Math.floor(value / 2 ** 32));
      area.setU32(at + VM_PREFIX.digits, prefix.prefix.length);
      area.fragment(at + VM_PREFIX.platform, shape.platform(prefix.platform));
    });
    const words = {
      blockRows: section(MAC_SECTION.blockRows),
      companyRows: section(MAC_SECTION.companyRows),
      stringOffsets: section(SHARED_SECTION.stringOffsets),
      stringBytes: section(SHARED_SECTION.strings),
      countries: countries.at,
      countryMask: countries.mask,
      noCountry: area.fragments([shape.countryName(null)]),
      templateFoundBasic: area.fragments(shape.templates.found.basic),
      templateFoundFull: area.fragments(shape.templates.found.full),
      templateMissingBasic: area.fragments(shape.templates.missing.basic),
      templateMissingFull: area.fragments(shape.templates.missing.full),
      blockTypes: area.fragments(shape.blockTypes),
      vmPrefixes: vm,
      vmPrefixCount: table.vmPrefixes.length,
      specialParts: area.fragments(shape.special),
    };
    const d = area.allocate(descriptionBytes(MAC_DESCRIPTION));
    area.describe(d, MAC_DESCRIPTION, words);
    area.exports.macJsonConfigure(d);
  }

  /** The writer of a placed MAC table, or null without one (or for the compact set, whose vendors have no address). */
  static of(placed: PlacedTables, shape: MacJsonShape): MacJsonWriter | null {
    const area = areaOf(placed);
    if (area === null || !placed.mac || placed.mac.kind !== 'mac') return null;
    try {
      return new MacJsonWriter(area, placed.mac, shape);
    } catch (error) {
      if (error instanceof OutOfArea) return null;
      throw error;
    }
  }

  /**
   * The JSON text of the record of a MAC address or prefix, `ending` (ASCII) in place of its closing
   * brace; throws ApiError invalid_mac; null: the object path.
   */
  write(text: string, level: JsonLevel, ending = ''): string | null {
    const parts = this.parts;
    if (!parseMac(text, parts)) throw invalidMac(text);
    // parseMac accepts only hex digits and separators: one byte per character
    const input = this.input;
    for (let i = 0; i < text.length; i++) input[i] = text.charCodeAt(i);
    const result = this.exports.macJson(parts.hi24, parts.lo24, parts.digits, LEVEL[level], this.input.byteOffset, text.length);
    return result < 0 ? null : this.text(result, ending);
  }
}
