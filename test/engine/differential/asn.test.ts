/**
 * Differential test of the AS answers: prefix counts, address totals and prefix lists of the
 * engine (src/engine/asnIndex.ts over the built tables) against a plain computation over the rows
 * of the installed ASN CSVs (@ip-location-db/asn, numeric files), read by reference.ts and not by
 * src/.
 *
 * The rule the two share: a prefix is one CSV row, its end cut where the next row starts inside it
 * (effectiveBounds; the later, more specific row owns the addresses from its start). Rows are not
 * joined and the location table does not split them. The sample: well-known AS numbers, the AS
 * numbers of overlapping rows, and every 50th AS number of each file.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { asnAnswer, asnPrefixes } from '../../../src/engine/asnIndex.js';
import { loadEngine } from '../../../src/engine/node.js';
import type { LookupEngine } from '../../../src/engine/lookupEngine.js';
import { effectiveBounds, ipv4Text, ipv6Canonical, loadAsnRows, modulePath, type AsnRows } from './reference.js';

interface Expected {
  prefixes: { start: bigint; end: bigint }[];
  addresses: bigint;
}

const WELL_KNOWN = [15169, 13335, 174, 16509, 4134, 3356, 749, 7922, 8075, 3320, 1, 4294967294];

let engine: LookupEngine;
const files: Record<4 | 6, AsnRows> = {} as Record<4 | 6, AsnRows>;
const expected: Record<4 | 6, Map<number, Expected>> = { 4: new Map(), 6: new Map() };

beforeAll(async () => {
  engine = await loadEngine({ kinds: ['ip4', 'ip6'] });
  for (const family of [4, 6] as const) {
    const rows = loadAsnRows(modulePath('@ip-location-db', 'asn', `asn-ipv${family}-num.csv`));
    files[family] = rows;
    for (let i = 0; i < rows.start.length; i++) {
      const bounds = effectiveBounds(rows, i);
      let entry = expected[family].get(rows.asn[i]);
      if (!entry) expected[family].set(rows.asn[i], (entry = { prefixes: [], addresses: 0n }));
      entry.prefixes.push(bounds);
      entry.addresses += bounds.end - bounds.start + 1n;
    }
  }
});

function sample(): number[] {
  const asns = new Set(WELL_KNOWN);
  for (const family of [4, 6] as const) {
    const rows = files[family];
    for (const { a, b } of rows.overlaps) asns.add(rows.asn[a]).add(rows.asn[b]);
    [...expected[family].keys()].forEach((asn, i) => i % 50 === 0 && asns.add(asn));
  }
  return [...asns];
}

const plain = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));

const text = (family: 4 | 6, address: bigint) => (family === 4 ? ipv4Text(Number(address)) : ipv6Canonical(address));

/** The CIDR blocks, back to numbers: aligned, in order, without gaps, exactly from start to end. */
function cidrsCover(family: 4 | 6, cidrs: string[], start: bigint, end: bigint, parse: (address: string) => bigint): boolean {
  const width = family === 4 ? 32 : 128;
  let at = start;
  for (const cidr of cidrs) {
    const [address, length] = cidr.split('/');
    const first = parse(address);
    const size = 1n << BigInt(width - Number(length));
    if (first !== at || first % size !== 0n) return false;
    at = first + size;
  }
  return at === end + 1n;
}

function parseIpv4(address: string): bigint {
  return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
}

function parseIpv6(address: string): bigint {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

describe('AS answers against the ASN CSVs', () => {
  it('the sample is wide: well-known AS numbers, overlapping rows and every 50th AS number', () => {
    expect(sample().length).toBeGreaterThan(1500);
    // the files this test reads are the ones the tables were built from
    const installed = JSON.parse(fs.readFileSync(modulePath('@ip-location-db', 'asn', 'package.json'), 'utf8')).version;
    for (const table of [engine.ip4!, engine.ip6!])
      expect(table.meta.sources.find((s) => s.origin === '@ip-location-db/asn')?.version).toBe(installed);
  });

  it('prefix counts and address totals equal the CSV rows of each AS number', () => {
    const wrong: string[] = [];
    for (const asn of sample()) {
      const answer = asnAnswer(engine, asn);
      const v4 = expected[4].get(asn);
      const v6 = expected[6].get(asn);
      const want = {
        found: v4 !== undefined || v6 !== undefined,
        ipv4: { prefixes: v4?.prefixes.length ?? 0, addresses: v4?.addresses ?? 0n },
        ipv6: { prefixes: v6?.prefixes.length ?? 0, addresses: v6?.addresses ?? 0n },
      };
      const got = { found: answer.found, ipv4: answer.ipv4, ipv6: answer.ipv6 };
      if (plain(got) !== plain(want)) wrong.push(`AS${asn}: ${plain(got)}, CSV ${plain(want)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('prefix lists are the CSV rows in address order, IPv4 then IPv6, with CIDR blocks that cover each exactly', () => {
    const wrong: string[] = [];
    for (const asn of sample()) {
      const want = ([4, 6] as const).flatMap((family) => (expected[family].get(asn)?.prefixes ?? []).map((p) => ({ family, ...p })));
      const got = asnPrefixes(engine, asn, 0, want.length + 1);
      if (got.length !== want.length) {
        wrong.push(`AS${asn}: ${got.length} prefixes, ${want.length} rows`);
        continue;
      }
      got.forEach((prefix, i) => {
        const { family, start, end } = want[i];
        const parse = family === 4 ? parseIpv4 : parseIpv6;
        if (prefix.version !== family || prefix.start !== text(family, start) || prefix.end !== text(family, end))
          wrong.push(`AS${asn} #${i}: ${prefix.start}–${prefix.end}, CSV ${text(family, start)}–${text(family, end)}`);
        else if (!cidrsCover(family, prefix.cidrs, start, end, parse)) wrong.push(`AS${asn} #${i}: CIDR blocks ${prefix.cidrs.join(' ')}`);
      });
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('the AS facts are those the IP record gives for the addresses of its first prefix', () => {
    for (const asn of WELL_KNOWN) {
      const answer = asnAnswer(engine, asn);
      const [first] = asnPrefixes(engine, asn, 0, 1);
      if (!first) continue;
      expect(engine.lookupIp(first.start).network, `AS${asn} at ${first.start}`).toEqual(answer.network);
    }
  });
});
