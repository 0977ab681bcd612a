// Load-time checks of range tables, the WASM twins of the checks in src/tables/format/ipTable.ts
// (a test holds them equal). Each works on positions [from, to) and needs no state between calls,
// so that the host can call it in chunks.

// src/tables/FORMAT.md, "ip4 and ip6": a row reference is 0xFFFFFFFF "where no source covers it"
// (NONE of src/tables/format/ipTableLayout.ts; test/tables/layout.test.ts holds the two equal).
const NONE: u32 = 0xffffffff;

/** First position in [from, to) whose row reference is >= limit (NONE excepted), or -1. */
export function firstRowAtOrAbove(rows: usize, from: i32, to: i32, limit: u32): i32 {
  for (let i = from; i < to; i++) {
    const row = load<u32>(rows + (<usize>i << 2));
    if (row >= limit && row != NONE) return i;
  }
  return -1;
}

/**
 * First position in [from, to) where the u32 keys do not ascend strictly or the bucket index
 * (INDEX[b] = first key whose top bits are >= b) disagrees, or -1.
 */
export function firstBadKey4(keys: usize, index: usize, shift: u32, from: i32, to: i32): i32 {
  let previous: i64 = from > 0 ? <i64>load<u32>(keys + (<usize>(from - 1) << 2)) : -1;
  for (let i = from; i < to; i++) {
    const key = load<u32>(keys + (<usize>i << 2));
    if (<i64>key <= previous) return i;
    const firstBucket: i64 = previous < 0 ? 0 : (previous >>> shift) + 1;
    for (let b = firstBucket; b <= <i64>(key >>> shift); b++) {
      if (load<u32>(index + (<usize>b << 2)) != <u32>i) return i;
    }
    previous = key;
  }
  return -1;
}

/** The same for 128-bit keys stored as u64 halves; the index is on the high half. */
export function firstBadKey6(keysHi: usize, keysLo: usize, index: usize, shift: u64, from: i32, to: i32): i32 {
  let hasPrevious = from > 0;
  let previousHi: u64 = hasPrevious ? load<u64>(keysHi + (<usize>(from - 1) << 3)) : 0;
  let previousLo: u64 = hasPrevious ? load<u64>(keysLo + (<usize>(from - 1) << 3)) : 0;
  for (let i = from; i < to; i++) {
    const hi = load<u64>(keysHi + (<usize>i << 3));
    const lo = load<u64>(keysLo + (<usize>i << 3));
    if (hasPrevious && (hi < previousHi || (hi == previousHi && lo <= previousLo))) return i;
    const firstBucket: u64 = hasPrevious ? (previousHi >>> shift) + 1 : 0;
    for (let b = firstBucket; b <= (hi >>> shift); b++) {
      if (load<u32>(index + (<usize>b << 2)) != <u32>i) return i;
    }
    previousHi = hi;
    previousLo = lo;
    hasPrevious = true;
  }
  return -1;
}
