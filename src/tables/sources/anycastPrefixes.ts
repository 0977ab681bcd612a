/**
 * Reader of data/curated/anycast-prefixes.csv (`prefix,operator,source`): address blocks that their
 * operators announce from many places at once. A position for such an address is the position
 * of one of many sites, so the builder gives it no accuracy radius (see accuracyRadius.ts).
 */
import fs from 'node:fs';
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import type { Family } from '../format/ipTable.js';
import { parseCsv } from './csv.js';

export interface AnycastPrefix {
  family: Family;
  start: bigint;
  end: bigint;
  operator: string;
}

/** The prefixes of the file, by family, sorted by start; overlapping prefixes stop the build. */
export function loadAnycastPrefixes(file: string): Record<Family, AnycastPrefix[]> {
  const out: Record<Family, AnycastPrefix[]> = { 4: [], 6: [] };
  parseCsv(fs.readFileSync(file, 'utf8')).forEach((row, i) => {
    const where = `${file}: row ${i + 2}`;
    if (!row.source) throw new Error(`${where} names no source`);
    if (!row.operator) throw new Error(`${where} names no operator`);
    out[familyOf(row.prefix)].push({ ...cidrBounds(row.prefix ?? '', where), operator: row.operator });
  });
  for (const family of [4, 6] as const) {
    const list = out[family].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      if (list[i].start <= list[i - 1].end) throw new Error(`${file}: prefixes of ${list[i - 1].operator} and ${list[i].operator} overlap`);
    }
  }
  return out;
}

function familyOf(prefix: string | undefined): Family {
  return prefix !== undefined && prefix.includes(':') ? 6 : 4;
}

/** First and last address of a CIDR block; a block with host bits set is refused. */
export function cidrBounds(text: string, where: string): { family: Family; start: bigint; end: bigint } {
  const slash = text.indexOf('/');
  const family = familyOf(text);
  const width = family === 4 ? 32 : 128;
  const length = slash < 0 ? NaN : Number(text.slice(slash + 1));
  if (!Number.isInteger(length) || length < 0 || length > width || !/^\d+$/.test(text.slice(slash + 1))) {
    throw new Error(`${where}: ${JSON.stringify(text)} is not a CIDR block`);
  }
  const address = text.slice(0, slash);
  let start: bigint;
  if (family === 4) {
    const n = parseIPv4(address);
    if (n < 0) throw new Error(`${where}: ${JSON.stringify(text)} is not a CIDR block`);
    start = BigInt(n);
  } else {
    const words = new Uint32Array(4);
    if (!parseIPv6(address, words)) throw new Error(`${where}: ${JSON.stringify(text)} is not a CIDR block`);
    start = ipv6Value(words);
  }
  const size = 1n << BigInt(width - length);
  if (start % size !== 0n) throw new Error(`${where}: ${text} has host bits set`);
  return { family, start, end: start + size - 1n };
}
