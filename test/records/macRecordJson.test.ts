/**
 * The hot path's JSON text of MAC records, written by the WASM engine, against the object path: for
 * registered prefixes of every block size, random addresses, every input format and both levels,
 * it must give exactly `JSON.stringify(macRecord(...))`. Many inputs share a block on purpose.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { macRecord } from '../../src/records/macRecord.js';
import { macRecordJson } from '../../src/records/macRecordJson.js';
import { modulePath } from '../engine/differential/reference.js';

let engine: LookupEngine;
let prefixes: string[];
beforeAll(async () => {
  engine = await loadEngine({ kinds: ['mac'] });
  prefixes = Object.keys(JSON.parse(fs.readFileSync(modulePath('oui-data', 'index.json'), 'utf8')) as Record<string, string>);
});

/** A MAC or prefix in one of the accepted formats, from hex digits. */
function formatted(hex: string, style: number): string {
  const pairs = hex.match(/.{1,2}/g) ?? [];
  switch (style) {
    case 0:
      return pairs.join(':');
    case 1:
      return pairs.join('-').toUpperCase();
    case 2:
      return (hex.match(/.{1,4}/g) ?? []).join('.');
    default:
      return hex;
  }
}

describe('macRecordJson', () => {
  it('gives the object path JSON for registered prefixes, random addresses and every format', () => {
    const hexDigits = (n: number) =>
      fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(fc.nat(), hexDigits(6)).map(([i, tail]) => (prefixes[i % prefixes.length] + tail).slice(0, 12).toLowerCase()),
          hexDigits(12),
          fc.integer({ min: 6, max: 12 }).chain((n) => hexDigits(n)),
          fc.constantFrom('005056123456', '0242ac110002', '080027aabbcc', 'ffffffffffff', '000000'),
        ),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('basic' as const, 'full' as const),
        (hex, style, level) => {
          // Grouped formats need whole groups; bare hex takes any length from 6 to 12.
          const text = formatted(hex, style);
          const input = hex.length === 12 || style === 3 || (style < 2 && hex.length % 2 === 0) ? text : hex;
          expect(macRecordJson(engine, input, level)).toBe(JSON.stringify(macRecord(engine.lookupMac(input), level)));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('writes every byte value in every position of the address, and every virtualisation prefix with its neighbours', () => {
    const same = (text: string) =>
      expect(macRecordJson(engine, text, 'full')).toBe(JSON.stringify(macRecord(engine.lookupMac(text), 'full')));
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    for (let b = 0; b < 256; b++) {
      const bytes = [b, b ^ 0x5a, 255 - b, (b * 7) & 255, b ^ 0xa5, (b + 128) & 255];
      for (let shift = 0; shift < 6; shift++) same([...bytes.slice(shift), ...bytes.slice(0, shift)].map(hex).join(':'));
    }
    for (const { prefix } of engine.macTable!.vmPrefixes) {
      const value = parseInt(prefix.padEnd(12, '0'), 16);
      const unit = 16 ** (12 - prefix.length);
      for (const address of [value, value + unit - 1, value - 1, value + unit, value + 0x10000000000, value - 0x10000000000])
        if (address >= 0 && address < 2 ** 48) same(address.toString(16).padStart(12, '0'));
    }
  });

  it('refuses what is not a MAC address as the object path does', () => {
    for (const text of ['', '00:11', 'zz:zz:zz', '00:11:22:33:44:55:66', '"00:11:22"'])
      expect(() => macRecordJson(engine, text, 'full')).toThrow(expect.objectContaining({ code: 'invalid_mac' }));
  });
});
