/**
 * Seeded inputs shared by every contender of bench/engine.ts: the same PRNG seed gives the same
 * addresses on every run and every machine.
 */
import fs from 'node:fs';
import { formatIPv4, formatIPv6 } from '../src/address/ipAddress.js';
import { reservedIPv4, reservedIPv6 } from '../src/address/reservedRange.js';

/** sfc32: small, fast, good enough for test inputs, and fully determined by its seed. */
export function prng(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

/**
 * The same text as a flat sequential one-byte string, as a server gets it from a request buffer.
 * Template literals and `+=` build cons strings, which every parser would first have to flatten
 * (≈ 10 ns per IPv4 parse here); all contenders get the flat copies.
 */
export function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

export interface IPv4Inputs {
  numbers: Uint32Array;
  texts: string[];
}

/** `count` distinct uniform random IPv4 addresses outside every special-purpose block. */
export function ipv4Inputs(count: number, seed: number): IPv4Inputs {
  const random = prng(seed);
  const seen = new Set<number>();
  const numbers = new Uint32Array(count);
  let n = 0;
  while (n < count) {
    const address = random();
    if (seen.has(address) || reservedIPv4(address)) continue;
    seen.add(address);
    numbers[n++] = address;
  }
  return { numbers, texts: Array.from(numbers, (n) => flat(formatIPv4(n))) };
}

export interface IPv6Inputs {
  texts: string[];
  /** four words per address, most significant first */
  words: Uint32Array;
  /** candidates drawn, to report how many the filter refused */
  drawn: number;
}

const MASK32 = 0xffffffffn;

/**
 * `count` distinct IPv6 addresses, each uniform inside a uniformly chosen row of the ASN CSV
 * (start,end,asn,org with decimal 128-bit bounds), kept only when `accept` (maxmind has a record)
 * says yes and the address is not special-purpose.
 */
export function ipv6Inputs(count: number, seed: number, csvFile: string, accept: (text: string) => boolean): IPv6Inputs {
  const random = prng(seed);
  const rows: [bigint, bigint][] = [];
  for (const line of fs.readFileSync(csvFile, 'utf8').split('\n')) {
    const comma = line.indexOf(',');
    if (comma < 0) continue;
    const second = line.indexOf(',', comma + 1);
    rows.push([BigInt(line.slice(0, comma)), BigInt(line.slice(comma + 1, second))]);
  }
  const seen = new Set<string>();
  const texts: string[] = [];
  const words = new Uint32Array(count * 4);
  const w = new Uint32Array(4);
  let drawn = 0;
  while (texts.length < count) {
    if (++drawn > count * 50) throw new Error(`only ${texts.length} IPv6 inputs found after ${drawn} draws`);
    const [start, end] = rows[random() % rows.length];
    const span = end - start + 1n;
    const r128 = (BigInt(random()) << 96n) | (BigInt(random()) << 64n) | (BigInt(random()) << 32n) | BigInt(random());
    const address = start + (r128 % span);
    for (let i = 0; i < 4; i++) w[i] = Number((address >> BigInt(96 - 32 * i)) & MASK32);
    const text = flat(formatIPv6(w));
    if (seen.has(text) || reservedIPv6(w) || !accept(text)) continue;
    seen.add(text);
    words.set(w, texts.length * 4);
    texts.push(text);
  }
  return { texts, words, drawn };
}

const HEX = '0123456789ABCDEF';

/**
 * `count` distinct full MAC addresses: 7 in 8 inside a uniformly chosen IEEE block of oui-data
 * (6, 7 or 9 hex digit prefix, the rest random), 1 in 8 fully random. Text forms rotate:
 * `AA:BB:CC:DD:EE:FF` (half), `aa-bb-cc-dd-ee-ff` (a quarter) and `aabbccddeeff` (a quarter).
 */
export function macInputs(count: number, seed: number, prefixes: string[]): string[] {
  const random = prng(seed);
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    let hex = random() % 8 === 0 ? '' : prefixes[random() % prefixes.length];
    while (hex.length < 12) hex += HEX[random() & 15];
    if (seen.has(hex)) continue;
    seen.add(hex);
    const pairs = hex.match(/../g)!;
    const form = out.length % 4;
    out.push(flat(form < 2 ? pairs.join(':') : form === 2 ? pairs.join('-').toLowerCase() : hex.toLowerCase()));
  }
  return out;
}
