/**
 * The MMDB reader on databases written here byte by byte: tiny valid ones read back with each record
 * size, and a bad-data corpus that must be refused with MmdbFormatError, promptly and within bounded
 * memory. The layout is the MaxMind DB format 2.0 (https://maxmind.github.io/MaxMind-DB/; stored
 * copy: maxmind/MaxMind-DB, MaxMind-DB-spec.md); the bad shapes follow MaxMind's own corpus
 * (maxmind/MaxMind-DB, bad-data/ and pkg/writer/: oversized map and array, 600-deep nesting,
 * records into the separator, pointer fan-out and payload amplification).
 */
import { describe, expect, it } from 'vitest';
import { MmdbFile, MmdbFormatError, type MmdbValue } from '../../src/tables/sources/mmdb.js';

type Bytes = number[];

/** Joins byte runs without spreading them into arguments (some runs are megabytes long). */
function cat(...parts: Bytes[]): Bytes {
  const out: Bytes = [];
  for (const part of parts) for (const b of part) out.push(b);
  return out;
}

const utf8 = (s: string): Bytes => [...new TextEncoder().encode(s)];

/** A control byte (and extended type byte, and size bytes) for a type and a payload size or count. */
function ctrl(type: number, size: number): Bytes {
  let sizeBits: number;
  const extra: Bytes = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) {
    sizeBits = 29;
    extra.push(size - 29);
  } else if (size < 65_821) {
    sizeBits = 30;
    extra.push((size - 285) >> 8, (size - 285) & 0xff);
  } else {
    sizeBits = 31;
    const s = size - 65_821;
    extra.push((s >> 16) & 0xff, (s >> 8) & 0xff, s & 0xff);
  }
  return type <= 7 ? [(type << 5) | sizeBits, ...extra] : [sizeBits, type - 7, ...extra];
}

function bigEndian(value: bigint, length: number): Bytes {
  const out: Bytes = [];
  for (let i = length - 1; i >= 0; i--) out.push(Number((value >> BigInt(8 * i)) & 0xffn));
  return out;
}

/** Unsigned integers in as few bytes as they need, as MaxMind's writers store them. */
function unsigned(type: 5 | 6 | 9 | 10, value: number | bigint): Bytes {
  let v = BigInt(value);
  const payload: Bytes = [];
  while (v > 0n) {
    payload.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return cat(ctrl(type, payload.length), payload);
}

const str = (s: string): Bytes => {
  const b = utf8(s);
  return cat(ctrl(2, b.length), b);
};
const uint16 = (n: number) => unsigned(5, n);
const uint32 = (n: number) => unsigned(6, n);
const uint64 = (n: bigint) => unsigned(9, n);
const uint128 = (n: bigint) => unsigned(10, n);
const int32 = (n: number) => cat(ctrl(8, 4), bigEndian(BigInt.asUintN(32, BigInt(n)), 4));
const bool = (b: boolean) => ctrl(14, b ? 1 : 0);
const bytes = (b: Bytes) => cat(ctrl(4, b.length), b);
function double(x: number): Bytes {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return cat(ctrl(3, 8), [...new Uint8Array(v.buffer)]);
}
function float(x: number): Bytes {
  const v = new DataView(new ArrayBuffer(4));
  v.setFloat32(0, x);
  return cat(ctrl(15, 4), [...new Uint8Array(v.buffer)]);
}
const map = (entries: [string | Bytes, Bytes][]): Bytes =>
  cat(ctrl(7, entries.length), ...entries.map(([k, v]) => cat(typeof k === 'string' ? str(k) : k, v)));
const array = (items: Bytes[]): Bytes => cat(ctrl(11, items.length), ...items);

/** A pointer to an offset of its section, in the smallest of the four forms that holds it. */
function pointer(target: number): Bytes {
  if (target < 2048) return [0x20 | (target >> 8), target & 0xff];
  if (target < 526_336) {
    const t = target - 2048;
    return [0x28 | (t >> 16), (t >> 8) & 0xff, t & 0xff];
  }
  if (target < 134_744_064) {
    const t = target - 526_336;
    return [0x30 | (t >> 24), (t >> 16) & 0xff, (t >> 8) & 0xff, t & 0xff];
  }
  return [0x38, ...bigEndian(BigInt(target), 4)];
}

/** Values laid one after another, with the offset of each. */
function section(...values: Bytes[]): { bytes: Bytes; at: number[] } {
  const at: number[] = [];
  let offset = 0;
  for (const v of values) {
    at.push(offset);
    offset += v.length;
  }
  return { bytes: cat(...values), at };
}

type RecordSize = 24 | 28 | 32;

function nodeBytes(recordSize: RecordSize, left: number, right: number): Bytes {
  if (recordSize === 24) return cat(bigEndian(BigInt(left), 3), bigEndian(BigInt(right), 3));
  if (recordSize === 32) return cat(bigEndian(BigInt(left), 4), bigEndian(BigInt(right), 4));
  const middle = (((left >>> 24) & 0x0f) << 4) | ((right >>> 24) & 0x0f);
  return cat(bigEndian(BigInt(left & 0xffffff), 3), [middle], bigEndian(BigInt(right & 0xffffff), 3));
}

/** A network's data offset, or the IPv4 root node (the node at ::/96), which MaxMind's IPv6 files alias. */
type Target = number | 'ipv4';

interface Trie {
  child: [Trie | Target | undefined, Trie | Target | undefined];
}

/** The search tree of networks given as bit strings ('10' is 128.0.0.0/2 in IPv4), each to its target. */
function searchTree(recordSize: RecordSize, networks: [string, Target][]): { nodeCount: number; bytes: Bytes } {
  const root: Trie = { child: [undefined, undefined] };
  for (const [bits, data] of networks) {
    let node = root;
    for (let i = 0; i < bits.length - 1; i++) {
      const side = Number(bits[i]) as 0 | 1;
      const next = node.child[side];
      if (typeof next === 'object') node = next;
      else node = node.child[side] = { child: [undefined, undefined] };
    }
    node.child[Number(bits[bits.length - 1]) as 0 | 1] = data;
  }
  const order: Trie[] = [root];
  for (let i = 0; i < order.length; i++) for (const c of order[i].child) if (typeof c === 'object') order.push(c);
  const nodeCount = order.length;
  let ipv4Root: Trie | Target | undefined = root;
  for (let i = 0; i < 96 && typeof ipv4Root === 'object'; i++) ipv4Root = ipv4Root.child[0];
  const value = (c: Trie | Target | undefined): number => {
    if (c === undefined) return nodeCount;
    if (c === 'ipv4') return typeof ipv4Root === 'object' ? order.indexOf(ipv4Root) : value(ipv4Root);
    return typeof c === 'number' ? nodeCount + 16 + c : order.indexOf(c);
  };
  return { nodeCount, bytes: cat(...order.map((n) => nodeBytes(recordSize, value(n.child[0]), value(n.child[1])))) };
}

const MARKER = cat([0xab, 0xcd, 0xef], utf8('MaxMind.com'));

type MetadataFields = Record<string, Bytes | null>;

function metadataEntries(nodeCount: number, recordSize: number, ipVersion: number, fields: MetadataFields = {}): [string, Bytes][] {
  const all: MetadataFields = {
    binary_format_major_version: uint16(2),
    binary_format_minor_version: uint16(0),
    build_epoch: uint64(1_000_000_000n),
    database_type: str('Test'),
    description: map([['en', str('tiny test database')]]),
    ip_version: uint16(ipVersion),
    languages: array([str('en')]),
    node_count: uint32(nodeCount),
    record_size: uint16(recordSize),
    ...fields,
  };
  return Object.entries(all).filter((e): e is [string, Bytes] => e[1] !== null);
}

const metadata = (nodeCount: number, recordSize: number, ipVersion: number, fields?: MetadataFields): Bytes =>
  map(metadataEntries(nodeCount, recordSize, ipVersion, fields));

interface DatabaseOptions {
  recordSize?: RecordSize;
  ipVersion?: 4 | 6;
  networks: [string, Target][];
  data: Bytes;
  metadata?: MetadataFields;
}

function database(o: DatabaseOptions): Uint8Array {
  const recordSize = o.recordSize ?? 24;
  const ipVersion = o.ipVersion ?? 4;
  const tree = searchTree(recordSize, o.networks);
  return Uint8Array.from(
    cat(tree.bytes, new Array<number>(16).fill(0), o.data, MARKER, metadata(tree.nodeCount, recordSize, ipVersion, o.metadata)),
  );
}

/** Where the parts of a database written by `database` start. */
function layout(o: DatabaseOptions): { tree: number; data: number; marker: number; metadata: number; end: number } {
  const tree = searchTree(o.recordSize ?? 24, o.networks);
  const data = tree.bytes.length + 16;
  const marker = data + o.data.length;
  return { tree: 0, data, marker, metadata: marker + MARKER.length, end: database(o).length };
}

interface Leaf {
  network: string;
  value: MmdbValue;
}

/** Everything a table build takes from a file: metadata, every leaf of both families, every record. */
function readAll(file: Uint8Array): { file: MmdbFile; leaves: Leaf[] } {
  const mmdb = new MmdbFile(file, 'test.mmdb');
  const leaves: Leaf[] = [];
  for (const family of [4, 6] as const) {
    const found: [string, number][] = [];
    mmdb.walk(family, (start, prefix, dataOffset) => {
      const words = family === 4 ? [start[0]] : [...start];
      found.push([`${family}:${words.map((w) => w.toString(16)).join('.')}/${prefix}`, dataOffset]);
    });
    for (const [network, offset] of found) leaves.push({ network, value: mmdb.record(offset) });
  }
  return { file: mmdb, leaves };
}

/** The message of the MmdbFormatError reading the file throws; fails on success or on any other error. */
function refusal(file: Uint8Array): string {
  try {
    readAll(file);
  } catch (error) {
    if (error instanceof MmdbFormatError) return error.message;
    throw error;
  }
  throw new Error('the file was read without complaint');
}

// A record with every data type and pointers to shared values, as a city database has.
const shared = section(str('Europe'), map([['code', str('EU')]]));
const CITY = map([
  ['city', str('Zürich')],
  ['continent', pointer(shared.at[0])],
  ['region', pointer(shared.at[1])],
  ['latitude', double(47.3769)],
  ['longitude', float(8.5)],
  ['geoname_id', uint32(2_657_896)],
  ['metro', uint16(0)],
  ['offset', int32(-3600)],
  ['big', uint64(18_446_744_073_709_551_615n)],
  ['v6', uint128(0x2001_0db8_0000_0000_0000_0000_0000_0001n)],
  ['eu', bool(true)],
  ['anycast', bool(false)],
  ['raw', bytes([0, 1, 2, 255])],
  ['languages', array([str('de'), str('fr'), pointer(shared.at[0])])],
  [
    'names',
    map([
      ['en', str('Zurich')],
      ['long', str('x'.repeat(300))],
    ]),
  ],
]);
const CITY_VALUE = {
  city: 'Zürich',
  continent: 'Europe',
  region: { code: 'EU' },
  latitude: 47.3769,
  longitude: 8.5,
  geoname_id: 2_657_896,
  metro: 0,
  offset: -3600,
  big: 18_446_744_073_709_551_615n,
  v6: 0x2001_0db8_0000_0000_0000_0000_0000_0001n,
  eu: true,
  anycast: false,
  raw: Uint8Array.from([0, 1, 2, 255]),
  languages: ['de', 'fr', 'Europe'],
  names: { en: 'Zurich', long: 'x'.repeat(300) },
};
const tinyData = section(shared.bytes, CITY, map([['city', str('Bern')]]));
const CITY_AT = tinyData.at[1];
const BERN_AT = tinyData.at[2];
/** 0.0.0.0/1 → Zürich, 128.0.0.0/2 → Bern, 192.0.0.0/2 nothing. */
const TINY: DatabaseOptions = {
  networks: [
    ['0', CITY_AT],
    ['10', BERN_AT],
  ],
  data: tinyData.bytes,
};

describe('tiny valid databases', () => {
  for (const recordSize of [24, 28, 32] as const) {
    it(`are read back with ${recordSize}-bit records`, () => {
      const { file, leaves } = readAll(database({ ...TINY, recordSize }));
      expect(file.metadata).toEqual({
        binaryFormatMajorVersion: 2,
        binaryFormatMinorVersion: 0,
        buildEpoch: 1_000_000_000,
        databaseType: 'Test',
        ipVersion: 4,
        nodeCount: 2,
        recordSize,
        languages: ['en'],
        description: { en: 'tiny test database' },
      });
      expect(leaves).toEqual([
        { network: '4:0/1', value: CITY_VALUE },
        { network: '4:80000000/2', value: { city: 'Bern' } },
      ]);
    });
  }

  it('with IPv6 trees: IPv4 is the subtree at ::/96, and its aliases (::ffff:0:0/96, 2002::/16) are not walked as IPv6', () => {
    const v4 = (bits: string) => '0'.repeat(96) + bits;
    for (const recordSize of [24, 28, 32] as const) {
      const o: DatabaseOptions = {
        recordSize,
        ipVersion: 6,
        networks: [
          [v4('0'), CITY_AT],
          [v4('11'), BERN_AT],
          ['0'.repeat(80) + '1'.repeat(16), 'ipv4'],
          ['0010000000000010', 'ipv4'],
          ['0011', BERN_AT],
        ],
        data: tinyData.bytes,
      };
      const { leaves } = readAll(database(o));
      expect(leaves.map((l) => l.network)).toEqual(['4:0/1', '4:c0000000/2', '6:30000000.0.0.0/4']);
      expect(leaves.map((l) => l.value)).toEqual([CITY_VALUE, { city: 'Bern' }, { city: 'Bern' }]);
    }
  });

  it('with record values above 2^24 (the high nibble of 28-bit records, the high byte of 32-bit ones)', () => {
    const far = section(new Array<number>(1 << 24).fill(0), map([['city', str('Far')]]), map([['city', str('Farther')]]));
    for (const recordSize of [28, 32] as const) {
      const { leaves } = readAll(
        database({
          recordSize,
          networks: [
            ['0', far.at[1]],
            ['1', far.at[2]],
          ],
          data: far.bytes,
        }),
      );
      expect(leaves).toEqual([
        { network: '4:0/1', value: { city: 'Far' } },
        { network: '4:80000000/1', value: { city: 'Farther' } },
      ]);
    }
  });

  it('with metadata pointers relative to the metadata, as MaxMind-DB-test-metadata-pointers.mmdb has them', () => {
    const tree = searchTree(24, TINY.networks);
    const head = cat(ctrl(7, 9), str('description'), ctrl(7, 1), str('en'));
    const meta = cat(
      head,
      str('Test'),
      ...metadataEntries(tree.nodeCount, 24, 4, { description: null, database_type: pointer(head.length) }).map(([k, v]) => cat(str(k), v)),
    );
    const file = Uint8Array.from(cat(tree.bytes, new Array<number>(16).fill(0), TINY.data, MARKER, meta));
    const { metadata: m } = readAll(file).file;
    expect([m.databaseType, m.description]).toEqual(['Test', { en: 'Test' }]);
  });

  it('at the limits: maps and arrays 512 deep, 2^16 values and 2 MiB of strings in one record', () => {
    let nested = str('x');
    for (let i = 0; i < 512; i++) nested = array([nested]);
    expect(readAll(database({ networks: [['0', 0]], data: nested })).leaves).toHaveLength(1);

    // One array and 65,535 pointers to one value: 65,536 values.
    const wide = section(uint16(7), array(new Array<Bytes>(65_535).fill(pointer(0))));
    const [leaf] = readAll(database({ networks: [['0', wide.at[1]]], data: wide.bytes })).leaves;
    expect((leaf.value as MmdbValue[]).length).toBe(65_535);

    // 32 copies of 65,535 bytes and one of 32: 2 MiB exactly (MaxMind's payload-limit fixture).
    const heavy = section(bytes(new Array<number>(32).fill(1)), bytes(new Array<number>(65_535).fill(2)));
    const heavyData = cat(heavy.bytes, array([...new Array<Bytes>(32).fill(pointer(heavy.at[1])), pointer(0)]));
    expect(readAll(database({ networks: [['0', heavy.bytes.length]], data: heavyData })).leaves).toHaveLength(1);
  });
});

/** A database around a search tree written as given (cycles and shared subtrees that `searchTree` cannot make). */
function rawDatabase(nodes: [number, number][], data: Bytes, fields: MetadataFields = {}): Uint8Array {
  const tree = cat(...nodes.map(([left, right]) => nodeBytes(24, left, right)));
  return Uint8Array.from(cat(tree, new Array<number>(16).fill(0), data, MARKER, metadata(nodes.length, 24, 4, fields)));
}

/** A database whose one record, for 0.0.0.0/1, is the value at `top` of the data section. */
const withRecord = (data: Bytes, top = 0) => database({ networks: [['0', top]], data });

describe('bad data is refused with MmdbFormatError naming the file and the problem', () => {
  const tiny = database(TINY);
  const at = layout(TINY);

  it('truncated anywhere: every proper prefix of a tiny database', () => {
    for (let length = 0; length < tiny.length; length++) {
      expect(refusal(tiny.subarray(0, length)), `truncated to ${length} bytes`).toMatch(/^test\.mmdb: not a usable MaxMind DB file: /);
    }
  });

  it('truncated in the search tree, in the data section, in the metadata marker and in the metadata', () => {
    expect(refusal(tiny.subarray(0, at.tree + 4))).toMatch(/metadata marker not found/);
    expect(refusal(tiny.subarray(0, at.data + 30))).toMatch(/metadata marker not found/);
    expect(refusal(tiny.subarray(0, at.marker + 7))).toMatch(/metadata marker not found/);
    expect(refusal(tiny.subarray(0, at.metadata))).toMatch(/at byte \d+: field past the end of the section/);
    expect(refusal(tiny.subarray(0, at.metadata + 1))).toMatch(/at byte \d+: map of 9 entries in the 0 bytes left/);
    expect(refusal(tiny.subarray(0, at.metadata + 40))).toMatch(
      /at byte \d+: (map of \d+ entries in the \d+ bytes left|.* runs past the end of the section)/,
    );
    expect(refusal(tiny.subarray(0, at.end - 1))).toMatch(/at byte \d+: uint16 of 1 bytes runs past the end of the section/);
  });

  it('a search tree cut short under its metadata: more nodes than the file holds', () => {
    // 100 nodes of 6 bytes fit the file, not the part before the metadata marker.
    expect(refusal(database({ ...TINY, metadata: { node_count: uint32(100) } }))).toMatch(
      /search tree of 100 nodes and its separator \(616 bytes\) run past the metadata marker at byte \d+/,
    );
    expect(refusal(database({ ...TINY, metadata: { node_count: uint32(1000) } }))).toMatch(/node count 1000 does not fit the file/);
    expect(refusal(database({ ...TINY, metadata: { node_count: uint32(0xff_ffff) } }))).toMatch(
      /node count 16777215 does not fit the file/,
    );
    expect(refusal(database({ ...TINY, recordSize: 32, metadata: { node_count: uint32(0xffff_ffff) } }))).toMatch(
      /node count 4294967295 does not fit/,
    );
  });

  it('a data section cut short under its metadata, at every length', () => {
    for (let length = 0; length < TINY.data.length; length++) {
      const cut = database({ ...TINY, data: TINY.data.slice(0, length) });
      expect(refusal(cut), `data cut to ${length} bytes`).toMatch(/points past the data section|at byte \d+: /);
    }
  });

  it('no metadata marker, a marker with nothing after it, a marker more than 128 KiB from the end', () => {
    const noMarker = Uint8Array.from(tiny);
    noMarker[at.marker + 3] = 'm'.charCodeAt(0);
    expect(refusal(noMarker)).toMatch(/metadata marker not found/);
    expect(refusal(Uint8Array.from(MARKER))).toMatch(/at byte 14: field past the end of the section \(byte 14\)/);
    expect(refusal(Uint8Array.from(cat([...tiny], new Array<number>(128 * 1024).fill(0))))).toMatch(/metadata marker not found/);
    expect(refusal(Uint8Array.from(cat(MARKER, str('map'))))).toMatch(/metadata is not a map/);
  });

  it('metadata fields of the wrong type or value', () => {
    const cases: [MetadataFields, RegExp][] = [
      [{ node_count: str('2') }, /metadata field node_count is not an unsigned integer \(the string "2"\)/],
      [{ node_count: double(2.5) }, /metadata field node_count is not an unsigned integer \(number 2\.5\)/],
      [{ node_count: null }, /metadata field node_count missing/],
      [{ record_size: uint16(33) }, /record size 33/],
      [{ record_size: str('24') }, /metadata field record_size is not an unsigned integer/],
      [{ ip_version: uint16(5) }, /ip version 5/],
      [{ binary_format_major_version: uint16(3) }, /binary format version 3 is not 2/],
      [{ binary_format_minor_version: null }, /metadata field binary_format_minor_version missing/],
      [{ build_epoch: int32(-1) }, /metadata field build_epoch is not an unsigned integer \(number -1\)/],
      [{ database_type: uint16(1) }, /metadata field database_type is not a string \(number 1\)/],
      [{ database_type: null }, /metadata field database_type is not a string \(missing\)/],
      [{ languages: array([str('en'), uint16(1)]) }, /metadata field languages is not an array of strings/],
      [{ languages: str('en') }, /metadata field languages is not an array of strings/],
      [{ description: str('tiny') }, /metadata field description is not a map of strings/],
      [{ description: map([['en', array([])]]) }, /metadata field description is not a map of strings/],
    ];
    for (const [fields, message] of cases)
      expect(refusal(database({ ...TINY, metadata: fields })), JSON.stringify(Object.keys(fields))).toMatch(message);
  });

  it('cyclic pointers: a map holding a pointer to itself, two maps pointing at each other, metadata pointing at itself', () => {
    expect(refusal(withRecord(map([['self', pointer(0)]])))).toMatch(/at byte \d+: maps and arrays nested deeper than 512/);
    const pair = section(map([['b', pointer(9)]]), [0, 0, 0, 0], map([['a', pointer(0)]]));
    expect(pair.at[2]).toBe(9);
    expect(refusal(withRecord(pair.bytes))).toMatch(/nested deeper than 512/);
    expect(refusal(withRecord(array([pointer(0)])))).toMatch(/nested deeper than 512/);
    expect(refusal(database({ ...TINY, metadata: { languages: pointer(0) } }))).toMatch(/nested deeper than 512/);
  });

  it('a pointer to a pointer, a pointer to itself, a pointer past the section, a pointer cut short', () => {
    const chain = section(str('x'), pointer(0), map([['k', pointer(2)]]));
    expect(refusal(withRecord(chain.bytes, chain.at[2]))).toMatch(/at byte \d+: pointer to 2, which is another pointer/);
    expect(refusal(withRecord(cat(map([['k', pointer(5)]]), pointer(5))))).toMatch(/pointer to 5, which is another pointer/);
    expect(refusal(withRecord(map([['k', pointer(5000)]])))).toMatch(/at byte \d+: pointer to 5000 past the end of the section/);
    expect(refusal(withRecord(map([['k', [0x28, 0x01]]])))).toMatch(/at byte \d+: pointer past the end of the section/);
    expect(refusal(database({ ...TINY, metadata: { database_type: pointer(100_000) } }))).toMatch(/pointer to 100000 past the end/);
  });

  it('nesting beyond 512 (arrays, and maps as in libmaxminddb-deep-nesting.mmdb)', () => {
    let arrays = str('x');
    for (let i = 0; i < 513; i++) arrays = array([arrays]);
    expect(refusal(withRecord(arrays))).toMatch(/at byte \d+: maps and arrays nested deeper than 512/);
    let maps = str('x');
    for (let i = 0; i < 600; i++) maps = map([['a', maps]]);
    expect(refusal(withRecord(maps))).toMatch(/nested deeper than 512/);
  });

  it('a map or an array claiming more entries than the bytes left (libmaxminddb-oversized-map.mmdb, -array)', () => {
    expect(refusal(withRecord(cat(ctrl(7, 1_000_000), str('k'), str('v'))))).toMatch(
      /at byte \d+: map of 1000000 entries in the 4 bytes left/,
    );
    expect(refusal(withRecord(cat(ctrl(11, 1_000_000), str('x'), str('y'))))).toMatch(
      /at byte \d+: array of 1000000 entries in the 4 bytes left/,
    );
    expect(refusal(withRecord(cat(ctrl(7, 4), str('k'), str('v'), str('k2'))))).toMatch(/map of 4 entries in the 7 bytes left/);
    // Enough bytes for the count, too few for the entries: the first read past the end stops it.
    expect(refusal(withRecord(cat(ctrl(7, 2), str('k'), str('v'), str('k'))))).toMatch(/field past the end of the section/);
  });

  it('a search tree pointing past the data section or into its separator', () => {
    expect(refusal(database({ ...TINY, networks: [['0', TINY.data.length]] }))).toMatch(
      /search tree record \d+ at depth 1 points past the data section/,
    );
    expect(
      refusal(
        database({
          ...TINY,
          networks: [
            ['0', CITY_AT],
            ['11', 1 << 20],
          ],
        }),
      ),
    ).toMatch(/at depth 2 points past the data section/);
    for (const intoSeparator of [-1, -15]) {
      expect(refusal(database({ ...TINY, networks: [['0', intoSeparator]] }))).toMatch(
        /search tree record \d+ at depth 1 points into the data section separator/,
      );
    }
  });

  it('a search tree with a cycle or with shared subtrees (2^32 paths through 32 nodes) is refused, not walked', () => {
    // A cycle through fewer nodes than address bits revisits a node before it is 32 deep; through more, the other way round.
    expect(
      refusal(
        rawDatabase(
          [
            [1, 2],
            [0, 2],
          ],
          map([]),
        ),
      ),
    ).toMatch(/search tree walk passes more than its 2 nodes/);
    const ring: [number, number][] = [];
    for (let i = 0; i < 40; i++) ring.push([(i + 1) % 40, 40]);
    expect(refusal(rawDatabase(ring, map([])))).toMatch(/search tree deeper than 32 bits at node 32/);
    const fanOut: [number, number][] = [];
    for (let i = 0; i < 32; i++) fanOut.push(i < 31 ? [i + 1, i + 1] : [32 + 16, 32 + 16]);
    expect(refusal(rawDatabase(fanOut, map([])))).toMatch(/search tree walk passes more than its 32 nodes \(shared or cyclic subtrees\)/);
  });

  it('unknown data types: the data cache container, the end marker, types past 15 and an extended 7', () => {
    for (const [field, type] of [
      [[0x00, 0x05], 12],
      [[0x00, 0x06], 13],
      [[0x00, 0x09], 16],
      [[0x00, 0xff], 262],
      [[0x00, 0x00], 7],
    ] as const) {
      expect(refusal(withRecord(map([['k', [...field]]])))).toMatch(new RegExp(`at byte \\d+: unknown data type ${type}$`));
    }
  });

  it('fixed-size types of another size, a non-string map key, text that is not UTF-8', () => {
    const cases: [Bytes, RegExp][] = [
      [cat(ctrl(3, 4), [0, 0, 0, 0]), /double of 4 bytes$/],
      [cat(ctrl(15, 8), new Array<number>(8).fill(0)), /float of 8 bytes$/],
      [cat(ctrl(5, 3), [1, 2, 3]), /uint16 of 3 bytes$/],
      [cat(ctrl(6, 5), [1, 2, 3, 4, 5]), /uint32 of 5 bytes$/],
      [cat(ctrl(8, 5), [1, 2, 3, 4, 5]), /int32 of 5 bytes$/],
      [cat(ctrl(9, 9), new Array<number>(9).fill(1)), /uint64 of 9 bytes$/],
      [cat(ctrl(10, 17), new Array<number>(17).fill(1)), /uint128 of 17 bytes$/],
      [ctrl(14, 2), /boolean of 2 bytes$/],
      [cat(ctrl(2, 2), [0xc3, 0x28]), /string of 2 bytes is not UTF-8$/],
    ];
    for (const [field, message] of cases) expect(refusal(withRecord(map([['k', field]])))).toMatch(message);
    expect(refusal(withRecord(map([[uint16(1), str('v')]])))).toMatch(/at byte \d+: map key is not a string/);
  });

  it('a field running past the end of the data section: payload, size bytes, extended type byte', () => {
    expect(refusal(withRecord(map([['k', cat(ctrl(2, 50), utf8('abc'))]])))).toMatch(
      /at byte \d+: string of 50 bytes runs past the end of the section \(byte \d+\)/,
    );
    expect(refusal(withRecord(map([['k', cat(ctrl(4, 70_000), [1])]])))).toMatch(/bytes of 70000 bytes runs past the end/);
    expect(refusal(withRecord(map([['k', [0x5f, 0x01]]])))).toMatch(/at byte \d+: size bytes past the end of the section/);
    expect(refusal(withRecord(map([['k', [0x04]]])))).toMatch(/at byte \d+: extended type byte past the end of the section/);
    expect(refusal(withRecord(map([['k', cat(ctrl(3, 8), [1, 2, 3])]])))).toMatch(/double of 8 bytes runs past the end/);
  });

  it('pointers fanning out to shared values (MaxMind-DB-test-pointer-decoder-dos.mmdb and its kin)', () => {
    // 40 levels of arrays of two pointers to the level below: 2^40 values if followed naively.
    const levels: Bytes[] = [uint16(0)];
    let offset = levels[0].length;
    let below = 0;
    for (let i = 0; i < 40; i++) {
      const level = array([pointer(below), pointer(below)]);
      levels.push(level);
      below = offset;
      offset += level.length;
    }
    expect(refusal(withRecord(cat(...levels), below))).toMatch(/at byte \d+: more than 65536 values in one record/);
    // One array and 65,536 pointers: one value over the limit.
    const wide = section(uint16(7), array(new Array<Bytes>(65_536).fill(pointer(0))));
    expect(refusal(withRecord(wide.bytes, wide.at[1]))).toMatch(/more than 65536 values/);
    // 8,192 pointers to one 65,535-byte value: 512 MiB if each were copied.
    for (const type of [2, 4]) {
      const big = cat(ctrl(type, 65_535), new Array<number>(65_535).fill(0x61));
      const top = big.length;
      expect(refusal(withRecord(cat(big, array(new Array<Bytes>(8192).fill(pointer(0)))), top))).toMatch(
        /at byte \d+: more than 2097152 bytes of strings and bytes in one record/,
      );
    }
    // 32 copies of 65,535 bytes and one of 33: one byte over 2 MiB.
    const heavy = section(bytes(new Array<number>(33).fill(1)), bytes(new Array<number>(65_535).fill(2)));
    const top = heavy.bytes.length;
    expect(refusal(withRecord(cat(heavy.bytes, array([...new Array<Bytes>(32).fill(pointer(heavy.at[1])), pointer(0)])), top))).toMatch(
      /more than 2097152 bytes/,
    );
  });

  it('metadata over the payload limit (MaxMind-DB-test-metadata-payload-limit.mmdb)', () => {
    const tree = searchTree(24, TINY.networks);
    const entries = metadataEntries(tree.nodeCount, 24, 4, { database_type: str('T'.repeat(65_535)), languages: null });
    let databaseType = ctrl(7, entries.length + 1).length;
    for (const [key, value] of entries) {
      databaseType += str(key).length;
      if (key === 'database_type') break;
      databaseType += value.length;
    }
    const meta = cat(map(entries).slice(1), str('languages'), array(new Array<Bytes>(33).fill(pointer(databaseType))));
    const file = Uint8Array.from(cat(tree.bytes, new Array<number>(16).fill(0), TINY.data, MARKER, ctrl(7, entries.length + 1), meta));
    expect(refusal(file)).toMatch(/at byte \d+: more than 2097152 bytes of strings and bytes in one record/);
  });

  it('record offsets outside the data section', () => {
    const file = new MmdbFile(tiny, 'test.mmdb');
    for (const offset of [-1, 1.5, TINY.data.length, 2 ** 32]) {
      expect(() => file.record(offset)).toThrow(new MmdbFormatError('test.mmdb', `record offset ${offset} outside the data section`));
    }
  });

  it('any one byte of a tiny database changed to any value: read, or refused with MmdbFormatError', () => {
    let read = 0;
    let refused = 0;
    for (let i = 0; i < tiny.length; i++) {
      const file = Uint8Array.from(tiny);
      for (let value = 0; value < 256; value++) {
        if (value === tiny[i]) continue;
        file[i] = value;
        try {
          readAll(file);
          read++;
        } catch (error) {
          if (!(error instanceof MmdbFormatError)) throw new Error(`byte ${i} set to ${value}: ${String(error)}`, { cause: error });
          refused++;
        }
      }
    }
    expect(read + refused).toBe(tiny.length * 255);
    expect(refused).toBeGreaterThan(0);
  });
});
