/**
 * The hot path's JSON text of MAC records against the object path: for registered prefixes of
 * every block size, random addresses, every input format and both levels, the renderer must give
 * exactly `JSON.stringify(macRecord(...))`. Many inputs share a block (and so a template) on purpose.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { macRecord } from '../../src/records/macRecord.js';
import { MacRecordRenderer } from '../../src/records/macRecordJson.js';
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

describe('MacRecordRenderer', () => {
  it('gives the object path JSON for registered prefixes, random addresses and every format', () => {
    const renderer = new MacRecordRenderer();
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
          const answer = engine.lookupMac(hex.length === 12 || style === 3 || (style < 2 && hex.length % 2 === 0) ? text : hex);
          expect(renderer.render(answer, level)).toBe(JSON.stringify(macRecord(answer, level)));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
