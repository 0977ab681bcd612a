/**
 * Differential test, MAC: the engine against a naive longest-prefix search over the registries as
 * published (the `oui-data` keys of 6, 7 and 9 hex digits, and IEEE's CSV of the IAB registry in
 * data/registry, read by csv-parse rather than by the builder's reader of the text listing) and
 * against the IEEE 802 bit definitions of the first octet. Every block must answer its own
 * assignee; a block registered as "Private" must answer found, with no company. Special addresses
 * against a naive search over data/curated/mac-group-addresses.csv read by csv-parse (not the
 * builder's reader): the smallest range holding the input's addresses.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine } from '../../../src/engine/node.js';
import type { LookupEngine, MacAnswer } from '../../../src/engine/lookupEngine.js';
import { Mismatches, modulePath, Random, ROOT, seedOf } from './reference.js';

const RANDOM_CASES = 100_000;
const PARTIAL_CASES = 50_000;
const SEED = seedOf(0x0c0ffee5);

let engine: LookupEngine;
/** every registered block by its hex digits: the assignee as published and the registry */
const registered = new Map<string, { company: string; registry: string }>();
let keys: string[];

const REGISTRY_OF_LENGTH: Record<number, string> = { 6: 'MA-L', 7: 'MA-M', 9: 'MA-S' };

beforeAll(async () => {
  engine = await loadEngine({ kinds: ['mac'] });
  const oui = JSON.parse(fs.readFileSync(modulePath('oui-data', 'index.json'), 'utf8')) as Record<string, string>;
  for (const [key, value] of Object.entries(oui))
    registered.set(key, { company: value.split('\n')[0].trim(), registry: REGISTRY_OF_LENGTH[key.length] });
  const iab = parseCsv(fs.readFileSync(path.join(ROOT, 'data', 'registry', 'iab.csv')), { columns: true, bom: true }) as Record<
    string,
    string
  >[];
  // IEEE's text listing, which the table is built from, leaves out the quotation marks of names.
  for (const row of iab)
    registered.set(row.Assignment, { company: row['Organization Name'].trim().replace(/"/g, ''), registry: row.Registry });
  keys = [...registered.keys()];
});

/** The naive reference: the longest registered key among the first 9, 7, 6 digits the input gives. */
function reference(hex: string): string | undefined {
  for (const length of [9, 7, 6]) {
    if (hex.length >= length && registered.has(hex.slice(0, length))) return hex.slice(0, length);
  }
  return undefined;
}

/** The company the answer must name: the registered one, none for a private registration. */
const companyOf = (key: string): string | null => (registered.get(key)!.company === 'Private' ? null : registered.get(key)!.company);

/** The 12 hex digits of a MAC written in one of the usual notations. */
function writeMac(hex: string, random: Random): string {
  const pairs = hex.match(/../g)!;
  switch (random.int(5)) {
    case 0:
      return pairs.join(':');
    case 1:
      return pairs.join('-').toLowerCase();
    case 2:
      return `${hex.slice(0, 4)}.${hex.slice(4, 8)}.${hex.slice(8)}`.toLowerCase();
    case 3:
      return hex.toLowerCase();
    default:
      return hex;
  }
}

/** Locally administered unicast, by the second hex digit: x2, x6, xA, xE. */
const RANDOMIZED_SECOND_DIGIT = new Set(['2', '6', 'A', 'E']);

class Checker {
  readonly vendor: Mismatches;
  readonly bits: Mismatches;
  cases = 0;
  found = 0;
  byType: Record<string, number> = { 'MA-L': 0, 'MA-M': 0, 'MA-S': 0, IAB: 0 };
  private = 0;

  constructor(label: string) {
    this.vendor = new Mismatches(`${label} vendor`);
    this.bits = new Mismatches(`${label} bits`);
  }

  /** `hex`: the upper-case digits the input gives (6..12); `text`: the input as written. */
  check(hex: string, text: string): MacAnswer {
    const { vendor, bits } = this;
    this.cases++;
    const answer = engine.lookupMac(text);
    const label = `${text} (${hex})`;
    vendor.check(label, 'oui', answer.oui, hex.slice(0, 6).match(/../g)!.join(':'));
    vendor.check(label, 'normalized', answer.normalized, hex.length === 12 ? hex.match(/../g)!.join(':') : null);

    const first = parseInt(hex.slice(0, 2), 16);
    bits.check(label, 'is_multicast', answer.is_multicast, (first & 0b01) !== 0);
    bits.check(label, 'is_local', answer.is_local, (first & 0b10) !== 0);
    bits.check(label, 'is_randomized', answer.is_randomized, RANDOMIZED_SECOND_DIGIT.has(hex[1]));

    const key = reference(hex);
    vendor.check(label, 'found', answer.found, key !== undefined);
    if (key === undefined) {
      vendor.check(label, 'vendor', answer.vendor, null);
      vendor.check(label, 'block', answer.block, null);
      return answer;
    }
    this.found++;
    const { registry } = registered.get(key)!;
    this.byType[registry]++;
    const company = companyOf(key);
    if (company === null) this.private++;
    vendor.check(label, 'vendor.company', answer.vendor?.company, company);
    vendor.check(label, 'vendor.is_private', answer.vendor?.is_private, company === null);
    vendor.check(label, 'block.registry', answer.block?.registry, registry);
    vendor.check(label, 'block.type', answer.block?.type, registry === 'IAB' ? 'MA-S' : registry);
    vendor.check(label, 'block.start', answer.block?.start, key.padEnd(12, '0'));
    vendor.check(label, 'block.end', answer.block?.end, key.padEnd(12, 'F'));
    vendor.check(label, 'block.size', answer.block?.size, 16 ** (12 - key.length));
    return answer;
  }

  report(): number {
    console.log(`  found ${this.found} of ${this.cases} (by reference registry: ${JSON.stringify(this.byType)}; private ${this.private})`);
    this.vendor.report(this.cases);
    this.bits.report(this.cases);
    return this.vendor.count + this.bits.count;
  }
}

describe('MAC differential (oui-data and the IAB registry)', () => {
  it('every registered prefix: a MAC inside it, and the prefix itself', () => {
    const started = Date.now();
    const random = new Random(SEED);
    const lengths: Record<number, number> = {};
    for (const key of keys) lengths[key.length] = (lengths[key.length] ?? 0) + 1;
    console.log(
      `[mac prefixes] seed ${SEED} (set DIFF_SEED to change); oui-data and IAB: ${keys.length} prefixes ${JSON.stringify(lengths)}`,
    );
    const inside = new Checker('mac prefixes: MAC inside');
    const own = new Checker('mac prefixes: prefix form');
    for (const key of keys) {
      const hex = key + random.hex(12 - key.length);
      inside.check(hex, writeMac(hex, random));
      const answer = own.check(key, random.int(2) === 0 ? key : key.toLowerCase());
      // The prefix form must name its own block (the reference above already says so; this makes
      // the claim of the brief explicit: found, with the company of that very key).
      own.vendor.check(key, 'own found', answer.found, true);
      own.vendor.check(key, 'own company', answer.vendor?.company, companyOf(key));
      own.vendor.check(key, 'own block.registry', answer.block?.registry, registered.get(key)!.registry);
    }
    console.log(
      `[mac prefixes] ${keys.length} prefixes, ${inside.cases + own.cases} lookups (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    const failed = inside.report() + own.report();
    expect(failed).toBe(0);
  });

  it(`${RANDOM_CASES} random MACs (half uniform, half under a registered prefix)`, () => {
    const started = Date.now();
    const seed = (SEED ^ 0x9e3779b9) >>> 0;
    const random = new Random(seed);
    console.log(`[mac random] seed ${seed}`);
    const uniform = new Checker('mac random: uniform 48-bit');
    const registered = new Checker('mac random: registered prefix');
    for (let k = 0; k < RANDOM_CASES; k++) {
      let hex: string;
      let checker: Checker;
      if (k % 2 === 0) {
        hex = random.hex(12);
        checker = uniform;
      } else {
        const key = random.pick(keys);
        hex = key + random.hex(12 - key.length);
        checker = registered;
      }
      checker.check(hex, writeMac(hex, random));
    }
    console.log(`[mac random] ${RANDOM_CASES} lookups (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const failed = uniform.report() + registered.report();
    expect(failed).toBe(0);
  });

  it(`${PARTIAL_CASES} partial inputs of 6 to 11 hex digits (only the digits given may match)`, () => {
    const started = Date.now();
    const seed = (SEED ^ 0x85ebca6b) >>> 0;
    const random = new Random(seed);
    console.log(`[mac partial] seed ${seed}`);
    const checker = new Checker('mac partial');
    for (let k = 0; k < PARTIAL_CASES; k++) {
      const key = random.pick(keys);
      const full = random.int(4) === 0 ? random.hex(12) : key + random.hex(12 - key.length);
      const hex = full.slice(0, 6 + random.int(6));
      checker.check(hex, random.int(2) === 0 ? hex : hex.toLowerCase());
    }
    console.log(`[mac partial] ${PARTIAL_CASES} lookups (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    expect(checker.report()).toBe(0);
  });
});

describe('MAC special addresses (data/curated/mac-group-addresses.csv)', () => {
  /** The curated ranges as csv-parse reads them, with 48-bit bounds. */
  const rows = parseCsv(fs.readFileSync(path.join(ROOT, 'data', 'curated', 'mac-group-addresses.csv')), { columns: true }) as Record<
    string,
    string
  >[];
  const ranges = rows.map((row) => ({
    first: parseInt(row.first.replaceAll('-', ''), 16),
    last: parseInt(row.last.replaceAll('-', ''), 16),
    name: row.name,
    protocol: row.protocol,
    assigned_by: row.assigned_by,
    reference: row.reference,
  }));
  const hex12 = (n: number) => n.toString(16).toUpperCase().padStart(12, '0');

  /** The smallest range holding every address of the `digits` first hex digits of `hex`. */
  function naive(hex: string): (typeof ranges)[number] | null {
    const start = parseInt(hex.padEnd(12, '0'), 16);
    const end = parseInt(hex.padEnd(12, 'F'), 16);
    let best: (typeof ranges)[number] | null = null;
    for (const r of ranges) if (r.first <= start && end <= r.last && (!best || r.last - r.first < best.last - best.first)) best = r;
    return best;
  }

  function check(mismatches: Mismatches, hex: string, text: string): void {
    const expected = naive(hex);
    const special = engine.lookupMac(text).special;
    const facts = (
      s: { name: string; protocol: string | null; assigned_by: string; reference: string; start: string; end: string } | null,
    ) => JSON.stringify(s && [s.name, s.protocol, s.assigned_by, s.reference, s.start, s.end]);
    mismatches.check(
      text,
      'special',
      facts(special),
      facts(
        expected && {
          ...expected,
          protocol: expected.protocol || null,
          start: hex12(expected.first),
          end: hex12(expected.last),
        },
      ),
    );
  }

  it('every range: its first, last and middle address, and prefixes of them', () => {
    const random = new Random((SEED ^ 0x27d4eb2f) >>> 0);
    const mismatches = new Mismatches('mac special ranges');
    let cases = 0;
    for (const r of ranges) {
      for (const value of [r.first, r.last, r.first + Math.floor((r.last - r.first) / 2)]) {
        const hex = hex12(value);
        check(mismatches, hex, writeMac(hex, random));
        const prefix = hex.slice(0, 6 + random.int(6));
        check(mismatches, prefix, prefix);
        cases += 2;
      }
    }
    mismatches.report(cases);
    expect(mismatches.count).toBe(0);
  });

  it(`${RANDOM_CASES} random MACs near the ranges (their first 16 bits) and uniform`, () => {
    const random = new Random((SEED ^ 0x165667b1) >>> 0);
    const mismatches = new Mismatches('mac special random');
    let special = 0;
    for (let k = 0; k < RANDOM_CASES; k++) {
      const near = hex12(random.pick(ranges).first).slice(0, 4 + random.int(8));
      const hex = (k % 4 === 0 ? '' : near) + random.hex(12 - (k % 4 === 0 ? 0 : near.length));
      if (naive(hex)) special++;
      check(mismatches, hex, writeMac(hex, random));
    }
    console.log(`  [mac special random] ${special} of ${RANDOM_CASES} in a special range`);
    mismatches.report(RANDOM_CASES);
    expect(special).toBeGreaterThan(RANDOM_CASES / 10);
    expect(mismatches.count).toBe(0);
  });
});
