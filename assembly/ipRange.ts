// Longest-prefix range search over packed, sorted range tables.
//
// A table tiles its whole address space with ranges: KEYS[i] is the first address of range i,
// strictly ascending, KEYS[0] = 0, so every address falls in exactly one range: the last i with
// KEYS[i] <= address. A bucket index on the top bits narrows the search: INDEX[b] is the first
// range whose key has top bits >= b, so the answer lies in [INDEX[b] - 1, INDEX[b + 1] - 1].
// Inside the bucket a branchless binary search runs; the batch form steps LANES searches in
// lockstep so that their memory loads overlap instead of waiting on each other.

const LANES: i32 = 16;

let v4Index: usize = 0;
let v4Keys: usize = 0;
let v4Shift: u32 = 0;

let v6Index: usize = 0;
let v6KeysHi: usize = 0;
let v6KeysLo: usize = 0;
let v6Shift: u64 = 0;

// Scratch for the lockstep batches: base and remaining length of each lane.
const laneBase = memory.data(LANES * 4);
const laneLen = memory.data(LANES * 4);

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

/** Range index of an IPv4 address. */
export function v4Find(ip: u32): i32 {
  let base = v4Start(ip);
  let len = v4End(ip) - base;
  while (len > 1) {
    const half = len >>> 1;
    const probe = base + half;
    base = load<u32>(v4Keys + (<usize>probe << 2)) <= ip ? probe : base;
    len -= half;
  }
  return base;
}

/** Range indexes of `count` IPv4 addresses (u32 each at `input`) written as i32 at `output`. */
export function v4FindBatch(input: usize, output: usize, count: i32): void {
  let done: i32 = 0;
  while (done + LANES <= count) {
    v4Lockstep(input + (<usize>done << 2), output + (<usize>done << 2));
    done += LANES;
  }
  for (; done < count; done++) {
    store<i32>(output + (<usize>done << 2), v4Find(load<u32>(input + (<usize>done << 2))));
  }
}

@inline function v4Lockstep(input: usize, output: usize): void {
  let longest: i32 = 0;
  for (let lane: i32 = 0; lane < LANES; lane++) {
    const ip = load<u32>(input + (<usize>lane << 2));
    const base = v4Start(ip);
    const len = v4End(ip) - base;
    store<i32>(laneBase + (<usize>lane << 2), base);
    store<i32>(laneLen + (<usize>lane << 2), len);
    longest = len > longest ? len : longest;
  }
  while (longest > 1) {
    longest = 0;
    for (let lane: i32 = 0; lane < LANES; lane++) {
      const at = <usize>lane << 2;
      let len = load<i32>(laneLen + at);
      const half = len >>> 1;
      const base = load<i32>(laneBase + at);
      const probe = base + half;
      const ip = load<u32>(input + at);
      store<i32>(laneBase + at, load<u32>(v4Keys + (<usize>probe << 2)) <= ip ? probe : base);
      len -= half;
      store<i32>(laneLen + at, len);
      longest = len > longest ? len : longest;
    }
  }
  memory.copy(output, laneBase, LANES << 2);
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

