/**
 * The table checksum, identical to assembly/checksum.ts (a test holds them equal): four
 * multiply-xor lanes over little-endian u32 words, folded into 64 bits, returned as 16 hex digits.
 * `bytes` must start 4-byte aligned and have a length that is a multiple of 16.
 */
const PRIME = 0x01000193;

export function tableChecksum(bytes: Uint8Array): string {
  if (bytes.byteLength % 16 !== 0 || bytes.byteOffset % 4 !== 0) {
    throw new RangeError('checksum input must be 4-byte aligned and a multiple of 16 bytes');
  }
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  let c = 0x1b873593;
  let d = 0xcc9e2d51;
  for (let i = 0; i < words.length; i += 4) {
    a = Math.imul(a ^ words[i], PRIME);
    b = Math.imul(b ^ words[i + 1], PRIME);
    c = Math.imul(c ^ words[i + 2], PRIME);
    d = Math.imul(d ^ words[i + 3], PRIME);
  }
  const hi = Math.imul(a ^ rotl(c, 13), PRIME) >>> 0;
  const lo = Math.imul(b ^ rotl(d, 7), PRIME) >>> 0;
  return checksumHex(hi, lo);
}

export function checksumHex(hi: number, lo: number): string {
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}
