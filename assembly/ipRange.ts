// Longest-prefix range search over packed, sorted range tables.
//
// A table tiles its whole address space with ranges: KEYS[i] is the first address of range i,
// strictly ascending, KEYS[0] = 0, so every address falls in exactly one range: the last i with
// KEYS[i] <= address. A bucket index on the top bits narrows the search: INDEX[b] is the first
// range whose key has top bits >= b, so the answer lies in [INDEX[b] - 1, INDEX[b + 1] - 1].
// Inside the bucket a branchless binary search runs.
//
// A random address costs a cache and TLB miss for its bucket bounds and, when its bucket holds
// more than one range, another for its keys. The IPv4 batch therefore first orders its addresses
// by their top bits (a counting sort of their positions), so that it walks the index and the keys
// upwards: neighbouring lookups share lines and pages, and the hardware prefetcher runs ahead.
// It then takes the ordered addresses in blocks, reading every bucket's bounds before searching
// any, so that the bounds' misses of a block overlap instead of waiting behind the searches.

/** Addresses per block of the IPv4 batch: their bucket bounds stay in L1. */
const V4_BLOCK: i32 = 256;
/** Addresses ordered at a time by the IPv4 batch; longer batches are taken in parts. */
const V4_ORDERED: i32 = 65536;
/** The most top bits the IPv4 batch orders by (16,384 groups: a 64 KiB histogram). */
const V4_GROUP_BITS: i32 = 14;

let v4Index: usize = 0;
let v4Keys: usize = 0;
let v4Shift: u32 = 0;

let v6Index: usize = 0;
let v6KeysHi: usize = 0;
let v6KeysLo: usize = 0;
let v6Shift: u64 = 0;

// Scratch of the IPv4 batch: positions in address order, the group histogram, and the bucket
// bounds of a block.
const v4Order = memory.data(V4_ORDERED * 4);
const v4GroupStart = memory.data((1 << V4_GROUP_BITS) * 4);
const blockBase = memory.data(V4_BLOCK * 4);
const blockLen = memory.data(V4_BLOCK * 4);

export function v4Configure(index: usize, keys: usize, indexBits: u32): void {
  v4Index = index;
  v4Keys = keys;
  v4Shift = 32 - indexBits;
}

export function v6Configure(index: usize, keysHi: usize, keysLo: usize, indexBits: u32): void {
  v6Index = index;
  v6KeysHi = keysHi;
  v6KeysLo = keysLo;
  v6Shift = <u64>(64 - indexBits);
}

@inline function v4Start(ip: u32): i32 {
  const first = load<i32>(v4Index + (<usize>(ip >>> v4Shift) << 2));
  return first > 0 ? first - 1 : 0;
}

@inline function v4End(ip: u32): i32 {
  return load<i32>(v4Index + (<usize>((ip >>> v4Shift) + 1) << 2));
}

/** The range of `ip` among the `len` ranges from `base` (KEYS[base] <= ip). */
@inline function v4Within(ip: u32, base: i32, len: i32): i32 {
  while (len > 1) {
    const half = len >>> 1;
    const probe = base + half;
    base = load<u32>(v4Keys + (<usize>probe << 2)) <= ip ? probe : base;
    len -= half;
  }
  return base;
}

/** Range index of an IPv4 address. */
export function v4Find(ip: u32): i32 {
  const base = v4Start(ip);
  return v4Within(ip, base, v4End(ip) - base);
}

/** Range indexes of `count` IPv4 addresses (u32 each at `input`) written as i32 at `output`. */
export function v4FindBatch(input: usize, output: usize, count: i32): void {
  for (let done: i32 = 0; done < count; done += V4_ORDERED) {
    const at = <usize>done << 2;
    const part = min(V4_ORDERED, count - done);
    v4OrderByTopBits(input + at, part);
    for (let from: i32 = 0; from < part; from += V4_BLOCK) v4Block(input + at, output + at, from, min(V4_BLOCK, part - from));
  }
}

/** Writes the positions 0..count-1 to v4Order, ordered by the top bits of their addresses. */
function v4OrderByTopBits(input: usize, count: i32): void {
  // About four addresses per group: a short batch does not pay for a long histogram.
  const bits = <u32>max(1, min(V4_GROUP_BITS, 29 - <i32>clz(count)));
  const shift = 32 - bits;
  const groups = <usize>1 << bits;
  memory.fill(v4GroupStart, 0, groups << 2);
  for (let i: i32 = 0; i < count; i++) {
    const group = v4GroupStart + (<usize>(load<u32>(input + (<usize>i << 2)) >>> shift) << 2);
    store<u32>(group, load<u32>(group) + 1);
  }
  let start: u32 = 0;
  for (let g: usize = 0; g < groups; g++) {
    const n = load<u32>(v4GroupStart + (g << 2));
    store<u32>(v4GroupStart + (g << 2), start);
    start += n;
  }
  for (let i: i32 = 0; i < count; i++) {
    const group = v4GroupStart + (<usize>(load<u32>(input + (<usize>i << 2)) >>> shift) << 2);
    const slot = load<u32>(group);
    store<u32>(group, slot + 1);
    store<i32>(v4Order + (<usize>slot << 2), i);
  }
}

/** Searches the ordered positions [from, from + count) of a part. */
@inline function v4Block(input: usize, output: usize, from: i32, count: i32): void {
  const order = v4Order + (<usize>from << 2);
  for (let i: i32 = 0; i < count; i++) {
    const at = <usize>i << 2;
    const ip = load<u32>(input + (<usize>load<i32>(order + at) << 2));
    const base = v4Start(ip);
    store<i32>(blockBase + at, base);
    store<i32>(blockLen + at, v4End(ip) - base);
  }
  for (let i: i32 = 0; i < count; i++) {
    const at = <usize>i << 2;
    const position = <usize>load<i32>(order + at) << 2;
    store<i32>(output + position, v4Within(load<u32>(input + position), load<i32>(blockBase + at), load<i32>(blockLen + at)));
  }
}

@inline function v6KeyAtMost(i: i32, hi: u64, lo: u64): bool {
  const keyHi = load<u64>(v6KeysHi + (<usize>i << 3));
  return keyHi < hi || (keyHi == hi && load<u64>(v6KeysLo + (<usize>i << 3)) <= lo);
}

/** Range index of an IPv6 address given as two 64-bit halves. */
export function v6Find(hi: u64, lo: u64): i32 {
  const bucket = <usize>(hi >>> v6Shift);
  const first = load<i32>(v6Index + (bucket << 2));
  let base = first > 0 ? first - 1 : 0;
  let len = load<i32>(v6Index + ((bucket + 1) << 2)) - base;
  while (len > 1) {
    const half = len >>> 1;
    const probe = base + half;
    base = v6KeyAtMost(probe, hi, lo) ? probe : base;
    len -= half;
  }
  return base;
}

/** The same from four 32-bit words, most significant first: no BigInt crossing from JS. */
export function v6FindWords(w0: u32, w1: u32, w2: u32, w3: u32): i32 {
  return v6Find((<u64>w0 << 32) | <u64>w1, (<u64>w2 << 32) | <u64>w3);
}

/** Batch: `count` addresses of four u32 words each (most significant first) at `input`. */
export function v6FindBatch(input: usize, output: usize, count: i32): void {
  for (let i: i32 = 0; i < count; i++) {
    const at = input + (<usize>i << 4);
    const hi = (<u64>load<u32>(at) << 32) | <u64>load<u32>(at, 4);
    const lo = (<u64>load<u32>(at, 8) << 32) | <u64>load<u32>(at, 12);
    store<i32>(output + (<usize>i << 2), v6Find(hi, lo));
  }
}

