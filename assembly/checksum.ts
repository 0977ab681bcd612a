// The table checksum: four independent multiply-xor lanes over little-endian u32 words (so that
// the multiplications of one lane do not wait on another), folded into 64 bits. Each step is a
// bijection of the lane state for a fixed word, so any change to one word changes the result.
// src/tables/format/checksum.ts is the same function in TypeScript; a test holds them equal.
// The host feeds the data in chunks: V8 runs a long first call in its baseline compiler, and
// only later calls in optimised code.

const PRIME: u32 = 0x01000193;

let laneA: u32 = 0;
let laneB: u32 = 0;
let laneC: u32 = 0;
let laneD: u32 = 0;

export function checksumReset(): void {
  laneA = 0x811c9dc5;
  laneB = 0x050c5d1f;
  laneC = 0x1b873593;
  laneD = 0xcc9e2d51;
}

/** Adds `length` bytes at `ptr` (a multiple of 16) to the running checksum. */
export function checksumUpdate(ptr: usize, length: usize): void {
  let a = laneA;
  let b = laneB;
  let c = laneC;
  let d = laneD;
  const end = ptr + length;
  for (let p = ptr; p < end; p += 16) {
    a = (a ^ load<u32>(p)) * PRIME;
    b = (b ^ load<u32>(p, 4)) * PRIME;
    c = (c ^ load<u32>(p, 8)) * PRIME;
    d = (d ^ load<u32>(p, 12)) * PRIME;
  }
  laneA = a;
  laneB = b;
  laneC = c;
  laneD = d;
}

export function checksumHigh(): u32 {
  return (laneA ^ rotl<u32>(laneC, 13)) * PRIME;
}

export function checksumLow(): u32 {
  return (laneB ^ rotl<u32>(laneD, 7)) * PRIME;
}
