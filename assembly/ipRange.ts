// Longest-prefix range search over packed, sorted range tables.
//
// A table tiles its whole address space with ranges: KEYS[i] is the first address of range i,
// strictly ascending, KEYS[0] = 0, so every address falls in exactly one range: the last i with
// KEYS[i] <= address. A bucket index on the top bits narrows the search: INDEX[b] is the first
// range whose key has top bits >= b, so the answer lies in [INDEX[b] - 1, INDEX[b + 1] - 1].
// Inside the bucket a branchless binary search runs.

let v4Index: usize = 0;
let v4Keys: usize = 0;
let v4Shift: u32 = 0;

let v6Index: usize = 0;
let v6KeysHi: usize = 0;
let v6KeysLo: usize = 0;
let v6Shift: u64 = 0;

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
