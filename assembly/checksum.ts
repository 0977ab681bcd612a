// The table checksum: four independent multiply-xor lanes over little-endian u32 words (so that
// the multiplications of one lane do not wait on another), folded into 64 bits. Each step is a
// bijection of the lane state for a fixed word, so any change to one word changes the result.
// src/tables/format/checksum.ts is the same function in TypeScript; a test holds them equal.

const PRIME: u32 = 0x01000193;

let resultHi: u32 = 0;

/** Checksum of `length` bytes at `ptr` (a multiple of 16); the high half via checksumHigh(). */
export function checksum(ptr: usize, length: usize): u32 {
  let a: u32 = 0x811c9dc5;
  let b: u32 = 0x050c5d1f;
  let c: u32 = 0x1b873593;
  let d: u32 = 0xcc9e2d51;
  const end = ptr + length;
  for (let p = ptr; p < end; p += 16) {
    a = (a ^ load<u32>(p)) * PRIME;
    b = (b ^ load<u32>(p, 4)) * PRIME;
    c = (c ^ load<u32>(p, 8)) * PRIME;
    d = (d ^ load<u32>(p, 12)) * PRIME;
  }
  resultHi = (a ^ rotl<u32>(c, 13)) * PRIME;
  return (b ^ rotl<u32>(d, 7)) * PRIME;
}

export function checksumHigh(): u32 {
  return resultHi;
}
