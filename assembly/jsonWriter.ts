// Writer primitives of the record JSON: bytes appended in the output area the host reserved.
// Every value is written exactly as JSON.stringify writes it, so that the records made here equal
// the object path's text byte for byte.
//
// Each primitive writes at `at` and returns where the next byte goes, so that the cursor lives in
// the caller's local: V8 keeps a module global in instance memory, where every byte would cost a
// load and a store of it. Values are written a word at a time: hex digits are made eight at once
// in a u64 (SWAR), and a store may write junk past the value's end, which the next value
// overwrites (the output has room past its end).
//
// Texts the host renders (template parts, per-country fragments, clock and security blocks) are
// "fragments": 8 bytes in memory, the address (u32) of UTF-8 JSON text, its byte length (u16) and
// its characters (u16: 0 ASCII, 1 some beyond ASCII, 3 some beyond Latin-1).
//
// A record is written as UTF-8 and handed over in the form its host turns into a string fastest
// (V8 keeps strings as Latin-1 or UTF-16; decoding UTF-8 with a non-ASCII character in it costs
// several times more than copying either): as it is when all ASCII, else converted to Latin-1 in
// place where every character fits and the host reads Latin-1, else to UTF-16.

let output: usize = 0;
let safeEnd: usize = 0;
let overflowed = false;
/** what the record holds: bit 0 some character beyond ASCII, bit 1 some beyond Latin-1 */
let characters: u32 = 0;
/** where the first character beyond ASCII may be (its value, or text holding it, starts there) */
let firstWide: usize = 0;
let utf16Output: usize = 0;
let latin1Allowed = false;
/** the record being written stays UTF-8 whatever its characters: its host sends the bytes */
let keepUtf8 = false;

/** A record the writer cannot give: the host takes the object path. */
export const OBJECT_PATH: i32 = -3;

// "null", "true" and "false" as little-endian words
const NULL_WORD: u32 = 0x6c6c756e;
const TRUE_WORD: u64 = 0x65757274;
const FALSE_WORD: u64 = 0x65736c6166;
/** Scratch for the digits of a number beyond 32 bits, written backwards. */
const DIGITS = memory.data(24);
/** "00" to "99" */
const PAIRS = memory.data(200);
/** 10^0 to 10^9, u32 */
const POWERS_OF_TEN = memory.data<u32>([1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000]);
/**
 * For dotted IPv4, per value 0 to 255 a u64: its decimal text and a dot (two to four bytes), the
 * length of that in the top byte.
 */
const OCTETS = memory.data(256 * 8);

function fillTables(): void {
  for (let i: u32 = 0; i < 100; i++) {
    store<u8>(PAIRS + (i << 1), <u8>(0x30 + i / 10));
    store<u8>(PAIRS + (i << 1) + 1, <u8>(0x30 + i % 10));
  }
  for (let i: u32 = 0; i < 256; i++) {
    let text: u64;
    let length: u64;
    if (i >= 100) {
      text = <u64>(0x30 + i / 100) | (<u64>load<u16>(PAIRS + ((i % 100) << 1)) << 8);
      length = 3;
    } else if (i >= 10) {
      text = <u64>load<u16>(PAIRS + (i << 1));
      length = 2;
    } else {
      text = <u64>(0x30 + i);
      length = 1;
    }
    store<u64>(OCTETS + (i << 3), text | (<u64>0x2e << (length << 3)) | ((length + 1) << 56));
  }
}

/**
 * Where records are written. The area past `end` leaves room for everything of bounded size
 * (fragments, numbers, addresses): only strings from the tables are checked against `end`.
 */
export function jsonOutput(at: usize, end: usize, utf16At: usize, latin1: bool): void {
  output = at;
  safeEnd = end;
  utf16Output = utf16At;
  latin1Allowed = latin1;
  fillTables();
}

/**
 * Added to a record's field level (0 basic, 1 full) by a host that sends the record's bytes rather
 * than the text they encode: the record stays UTF-8 (form 0) whatever its characters.
 */
export const UTF8_RECORD: u32 = 2;

/** Starts a record at `level` (see UTF8_RECORD): where its first byte goes. */
export function begin(level: u32): usize {
  overflowed = false;
  characters = 0;
  keepUtf8 = level >= UTF8_RECORD;
  return output;
}

/**
 * Record forms: ASCII (any UTF-8 with UTF8_RECORD) or Latin-1 bytes at the output, or UTF-16LE
 * code units at the UTF-16 output.
 */
const FORM_SHIFT = 20;
const LATIN1_FORM: i32 = 1 << FORM_SHIFT;
const UTF16_FORM: i32 = 2 << FORM_SHIFT;

/**
 * The record written, which ends before `end`: its length (bytes, or UTF-16 code units) plus its
 * form (0 ASCII, 1 Latin-1, 2 UTF-16, times 2^20), or OBJECT_PATH when a string did not fit.
 */
export function finish(end: usize): i32 {
  if (overflowed) return OBJECT_PATH;
  if (characters == 0 || keepUtf8) return <i32>(end - output);
  if (characters == 1 && latin1Allowed) return LATIN1_FORM | toLatin1(end);
  return UTF16_FORM | toUtf16(end);
}

/** Notes text of characters class `c` (see finish) written at `at`. */
@inline function noteWide(at: usize, c: u32): void {
  if (characters == 0) firstWide = at;
  characters |= c;
}

/**
 * Rewrites the UTF-8 output, all of whose characters are below 0x100, as Latin-1 in place; its
 * length. What comes before the first character beyond ASCII stays as it is.
 */
function toLatin1(stop: usize): i32 {
  let from = firstWide;
  let to = firstWide;
  while (from < stop) {
    if (from + 8 <= stop && (load<u64>(from) & HIGHS) == 0) {
      store<u64>(to, load<u64>(from));
      from += 8;
      to += 8;
      continue;
    }
    const c = <u32>load<u8>(from);
    if (c < 0x80) {
      store<u8>(to, <u8>c);
      from += 1;
    } else {
      store<u8>(to, <u8>(((c & 0x1f) << 6) | (<u32>load<u8>(from, 1) & 0x3f)));
      from += 2;
    }
    to += 1;
  }
  return <i32>(to - output);
}

/** Writes the UTF-8 output as UTF-16LE at the UTF-16 output; its length in code units. */
function toUtf16(stop: usize): i32 {
  let from = output;
  let to = utf16Output;
  while (from < stop) {
    if (from + 8 <= stop && (load<u64>(from) & HIGHS) == 0) {
      store<u64>(to, widen(load<u32>(from)));
      store<u64>(to, widen(load<u32>(from, 4)), 8);
      from += 8;
      to += 16;
      continue;
    }
    const c = <u32>load<u8>(from);
    let code: u32;
    if (c < 0x80) {
      code = c;
      from += 1;
    } else if (c < 0xe0) {
      code = ((c & 0x1f) << 6) | (<u32>load<u8>(from, 1) & 0x3f);
      from += 2;
    } else if (c < 0xf0) {
      code = ((c & 0x0f) << 12) | ((<u32>load<u8>(from, 1) & 0x3f) << 6) | (<u32>load<u8>(from, 2) & 0x3f);
      from += 3;
    } else {
      const point =
        ((c & 0x07) << 18) | ((<u32>load<u8>(from, 1) & 0x3f) << 12) | ((<u32>load<u8>(from, 2) & 0x3f) << 6) | (<u32>load<u8>(from, 3) & 0x3f);
      from += 4;
      store<u16>(to, <u16>(0xd800 + ((point - 0x10000) >>> 10)));
      to += 2;
      code = 0xdc00 + ((point - 0x10000) & 0x3ff);
    }
    store<u16>(to, <u16>code);
    to += 2;
  }
  return <i32>((to - utf16Output) >>> 1);
}

/** Four ASCII bytes as four UTF-16 code units. */
@inline function widen(x: u32): u64 {
  const w = <u64>x;
  return (w & 0xff) | ((w & 0xff00) << 8) | ((w & 0xff0000) << 16) | ((w & 0xff000000) << 24);
}


@inline export function byte(at: usize, c: u32): usize {
  store<u8>(at, <u8>c);
  return at + 1;
}

/**
 * Copies `length` bytes to `to` sixteen at a time, the first sixteen whatever the length: most
 * pieces are short, and memory.copy is a call out of the compiled code. It may read up to sixteen
 * bytes past the source (the host keeps memory there) and write as far past the end (the output
 * has room); a copy of earlier output to further on is right, since what it overwrites lies past
 * the source's end. Returns the end.
 */
@inline export function copy(to: usize, from: usize, length: usize): usize {
  let done: usize = 0;
  do {
    store<u64>(to + done, load<u64>(from + done));
    store<u64>(to + done, load<u64>(from + done, 8), 8);
    done += 16;
  } while (done < length);
  return to + length;
}

/** Text copied from elsewhere (a time zone's slot) to `at`, whose characters are of class `c` (see finish). */
@inline export function noteCharacters(at: usize, c: u32): void {
  if (c != 0) noteWide(at, c);
}

/** The JSON text of fragment `ref`. */
@inline export function fragment(at: usize, ref: usize): usize {
  const word = load<u64>(ref);
  if (word >= <u64>1 << 48) noteWide(at, <u32>(word >>> 48));
  return copy(at, <usize>(<u32>word), <usize>((word >>> 32) & 0xffff));
}

@inline export function writeNull(at: usize): usize {
  store<u32>(at, NULL_WORD);
  return at + 4;
}

@inline export function writeBool(at: usize, value: bool): usize {
  store<u64>(at, value ? TRUE_WORD : FALSE_WORD);
  return at + 5 - <usize>value;
}

/**
 * A quoted JSON string of UTF-8 bytes, escaped as JSON.stringify escapes: `"` and `\` with a
 * backslash, backspace, form feed, newline, carriage return and tab by their letters, other
 * control characters as \u00xx (lower-case hex), every other byte as it is.
 */
export function quoted(at: usize, from: usize, length: usize): usize {
  if (at + length * 6 > safeEnd) {
    overflowed = true;
    return at;
  }
  store<u8>(at, 0x22);
  // Copied eight bytes at a time while looking for bytes to escape; the usual string has none.
  const to = at + 1;
  let found: u64 = 0;
  let high: u64 = 0;
  let done: usize = 0;
  for (; done + 8 <= length; done += 8) {
    const w = load<u64>(from + done);
    store<u64>(to + done, w);
    found |= escapeBits(w);
    high |= w;
  }
  if (done < length) {
    // the last bytes, the rest of the word filled with a byte that needs no escaping
    const keep = (<u64>1 << (<u64>(length - done) << 3)) - 1;
    const w = load<u64>(from + done);
    store<u64>(to + done, w);
    found |= escapeBits((w & keep) | (ONES * 0x41 & ~keep));
    high |= w & keep;
  }
  if ((high & HIGHS) != 0) noteWide(at, charactersOf(from, length));
  if (found == 0) return byte(to + length, 0x22);
  const stop = from + length;
  let plain = from;
  let end = to;
  for (let p = from; p < stop; p++) {
    const c = <u32>load<u8>(p);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    end = escapeByte(copy(end, plain, p - plain), c);
    plain = p + 1;
  }
  return byte(copy(end, plain, stop - plain), 0x22);
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** 1 for UTF-8 text beyond ASCII, 3 when some character is beyond Latin-1 (a lead byte from 0xC4). */
function charactersOf(from: usize, length: usize): u32 {
  for (let p = from; p < from + length; p++) if (load<u8>(p) >= 0xc4) return 3;
  return 1;
}

/** Bits set where one of eight bytes is below 0x20, a quote or a backslash (0: none is). */
@inline function escapeBits(w: u64): u64 {
  const below = (w - ONES * 0x20) & ~w;
  const quote = w ^ (ONES * 0x22);
  const backslash = w ^ (ONES * 0x5c);
  return (below | ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)) & HIGHS;
}

function escapeByte(at: usize, c: u32): usize {
  let letter: u32 = 0;
  if (c == 0x22 || c == 0x5c) letter = c;
  else if (c == 0x08) letter = 0x62;
  else if (c == 0x0c) letter = 0x66;
  else if (c == 0x0a) letter = 0x6e;
  else if (c == 0x0d) letter = 0x72;
  else if (c == 0x09) letter = 0x74;
  if (letter != 0) {
    store<u16>(at, <u16>(0x5c | (letter << 8)));
    return at + 2;
  }
  // \u00 and two lower-case hex digits
  store<u32>(at, 0x3030755c);
  store<u16>(at + 4, <u16>hex8(c << 24, LOWER));
  return at + 6;
}

/**
 * String `id` of a table's pool (offsets STRO, bytes STRS) as JSON: id 0 stands for null, every
 * other id is a string, the empty one included.
 */
@inline export function poolString(at: usize, offsets: usize, bytes: usize, id: u32): usize {
  if (id == 0) return writeNull(at);
  const entry = offsets + (<usize>id << 2);
  const start = load<u32>(entry);
  return quoted(at, bytes + <usize>start, <usize>(load<u32>(entry, 4) - start));
}

/**
 * A country code packed as two bytes (first in the low byte; 0: none), which the TypeScript
 * reader turns into a string of two Latin-1 characters: quoted, escaped, UTF-8 encoded.
 */
export function countryCode(at: usize, packed: u32): usize {
  if (packed == 0) return writeNull(at);
  const first = packed & 0xff;
  const second = packed >>> 8;
  if (plainAscii(first) && plainAscii(second)) {
    store<u32>(at, 0x22000022 | (packed << 8));
    return at + 4;
  }
  return byte(latin1(latin1(byte(at, 0x22), first), second), 0x22);
}

/** An ASCII character JSON writes as it is. */
@inline function plainAscii(c: u32): bool {
  return c >= 0x20 && c < 0x80 && c != 0x22 && c != 0x5c;
}

function latin1(at: usize, c: u32): usize {
  if (c < 0x20 || c == 0x22 || c == 0x5c) return escapeByte(at, c);
  if (c < 0x80) return byte(at, c);
  noteWide(at, 1);
  store<u16>(at, <u16>((0xc0 | (c >>> 6)) | ((0x80 | (c & 0x3f)) << 8)));
  return at + 2;
}

/** An unsigned integer in decimal, written from its last digit back. */
export function unsigned(at: usize, n: u64): usize {
  if (n > 0xffffffff) {
    let digits = DIGITS + 24;
    do {
      digits--;
      store<u8>(digits, <u8>(0x30 + n % 10));
      n /= 10;
    } while (n != 0);
    return copy(at, digits, DIGITS + 24 - digits);
  }
  let m = <u32>n;
  const end = at + decimalLength(m);
  let p = end;
  while (m >= 100) {
    const rest = m % 100;
    m /= 100;
    p -= 2;
    store<u16>(p, load<u16>(PAIRS + (rest << 1)));
  }
  if (m >= 10) store<u16>(p - 2, load<u16>(PAIRS + (m << 1)));
  else store<u8>(p - 1, <u8>(0x30 + m));
  return end;
}

/**
 * The number of decimal digits of `m`: from its bit length (log10(2) ≈ 1233 / 4096), one less
 * when below that power of ten. `m | 1` gives 0 one digit and changes no other answer (the powers
 * from 10 on are even).
 */
@inline function decimalLength(m: u32): usize {
  const x = m | 1;
  const guess = ((32 - clz(x)) * 1233) >>> 12;
  return <usize>(guess + 1 - <u32>(x < load<u32>(POWERS_OF_TEN + (<usize>guess << 2))));
}

/** Two decimal digits (00 to 99). */
@inline export function twoDigits(at: usize, n: u32): usize {
  store<u16>(at, load<u16>(PAIRS + (n << 1)));
  return at + 2;
}

/**
 * `Math.round(x * 1e4) / 1e4` as JSON.stringify prints it, or 0 (nothing written) for values
 * whose text this does not produce (not finite, or too large for plain decimals). Math.round
 * rounds halves up; the quotient of an integer k below 1e9 by 1e4 is printed as the shortest
 * decimal that reads back to it, which is k / 10^4 written out (no other decimal of at most as
 * many digits lies as close), trailing zeros dropped. -0 prints as 0.
 */
export function rounded4(at: usize, x: f64): usize {
  const scaled = x * 1e4;
  if (!(Math.abs(scaled) < 1e9)) return 0;
  let whole = Math.floor(scaled);
  if (scaled - whole >= 0.5) whole += 1;
  if (whole < 0) {
    at = byte(at, 0x2d);
    whole = -whole;
  }
  const k = <u32>whole;
  at = unsigned(at, k / 10000);
  const fraction = k % 10000;
  if (fraction == 0) return at;
  // the four digits of the fraction as a word, the first in its low byte
  const digits = <u32>load<u16>(PAIRS + ((fraction / 100) << 1)) | (<u32>load<u16>(PAIRS + ((fraction % 100) << 1)) << 16);
  store<u8>(at, 0x2e);
  store<u32>(at, digits, 1);
  // trailing zeros dropped: the bytes "0" at the top of the word
  return at + 5 - <usize>(clz(digits ^ 0x30303030) >>> 3);
}

/** Dotted IPv4, without quotes. */
export function ipv4(at: usize, n: u32): usize {
  at = octet(at, n >>> 24);
  at = octet(at, (n >>> 16) & 255);
  at = octet(at, (n >>> 8) & 255);
  // the last octet's dot left out
  return octet(at, n & 255) - 1;
}

/** An octet and a dot. */
@inline function octet(at: usize, value: u32): usize {
  const entry = load<u64>(OCTETS + (value << 3));
  store<u64>(at, entry);
  return at + <usize>(entry >>> 56);
}

/**
 * RFC 5952 IPv6 text without quotes, as src/address/ipAddress.ts formatIPv6 writes it: lower case,
 * no leading zeros, the first longest run of two or more zero groups as `::`, IPv4-mapped
 * addresses with a dotted tail.
 */
export function ipv6(at: usize, hi: u64, lo: u64): usize {
  if (hi == 0 && lo >>> 32 == 0xffff) {
    // "::ffff:"
    store<u64>(at, 0x3a666666663a3a);
    return ipv4(at + 7, <u32>lo);
  }
  let bestStart: i32 = -1;
  let bestLength: i32 = 1;
  for (let g: i32 = 0; g < 8; g++) {
    if (groupOf(hi, lo, g) != 0) continue;
    let stop = g + 1;
    while (stop < 8 && groupOf(hi, lo, stop) == 0) stop++;
    if (stop - g > bestLength) {
      bestStart = g;
      bestLength = stop - g;
    }
    g = stop;
  }
  const after = bestStart + bestLength;
  for (let g: i32 = 0; g < 8; g++) {
    if (g == bestStart) {
      store<u16>(at, 0x3a3a);
      at += 2;
      g += bestLength - 1;
      continue;
    }
    if (g > 0 && g != after) at = byte(at, 0x3a);
    at = group(at, groupOf(hi, lo, g));
  }
  return at;
}

@inline function groupOf(hi: u64, lo: u64, g: i32): u32 {
  const word = g < 4 ? hi : lo;
  return <u32>(word >>> (<u64>(3 - (g & 3)) << 4)) & 0xffff;
}

/** A group of an IPv6 address: lower-case hex without leading zeros. */
@inline function group(at: usize, value: u32): usize {
  const digits = <u32>hex8(value << 16, LOWER);
  // one digit per started four bits, one for 0
  const length = (35 - clz(value | 1)) >>> 2;
  store<u32>(at, digits >>> ((4 - length) << 3));
  return at + <usize>length;
}

/** Twelve upper-case hex digits of a 48-bit value. */
export function upperHex48(at: usize, value: u64): usize {
  store<u64>(at, hex8(<u32>(value >>> 16), UPPER));
  store<u32>(at + 8, <u32>hex8(<u32>value << 16, UPPER));
  return at + 12;
}

/** A 24-bit value as three upper-case hex pairs separated by colons ("AA:BB:CC"). */
export function colonHex24(at: usize, value: u32): usize {
  const v = <u64>value;
  // each byte at a byte pair: at bytes 0, 3 and 6, then split into nibbles at bytes 0-1, 3-4, 6-7
  let t = ((v >>> 16) & 0xff) | (((v >>> 8) & 0xff) << 24) | ((v & 0xff) << 48);
  t = ((t >>> 4) & PAIR_NIBBLES) | ((t & PAIR_NIBBLES) << 8);
  store<u64>(at, asciiHex(t, PAIR_DIGITS, UPPER) | PAIR_COLONS);
  return at + 8;
}

const PAIR_NIBBLES: u64 = 0x000f00000f00000f;
const PAIR_DIGITS: u64 = 0x0101000101000101;
const PAIR_COLONS: u64 = 0x00003a00003a0000;

/** What takes a hex digit from 10 to its letter, past '0' + 10: upper or lower case. */
const UPPER: u64 = 7;
const LOWER: u64 = 0x27;

/**
 * The eight hex digits of `x` (`letters`: UPPER or LOWER) as ASCII in a u64 whose low byte is the
 * most significant digit, as text is laid out in memory.
 */
@inline function hex8(x: u32, letters: u64): u64 {
  // each nibble in its own byte, the most significant in the lowest: halves, then bytes, then nibbles
  let t = (<u64>x >>> 16) | ((<u64>x & 0xffff) << 32);
  t = ((t >>> 8) & 0x000000ff000000ff) | ((t & 0x000000ff000000ff) << 16);
  t = ((t >>> 4) & 0x000f000f000f000f) | ((t & 0x000f000f000f000f) << 8);
  return asciiHex(t, ONES, letters);
}

/** Nibbles (0 to 15) in the bytes `mask` has 1 in, as ASCII hex digits (no byte carries into the next). */
@inline function asciiHex(t: u64, mask: u64, letters: u64): u64 {
  const letter = ((t + mask * 6) >>> 4) & mask;
  return t + mask * 0x30 + letter * letters;
}
