/**
 * Differential test of the WASM record writer against the object path over the built tables:
 * every location row and every network row (so every AS row a range reaches) of ip4 and ip6, each
 * through one public address of a range that points to it, and every MAC block through its first
 * address and its prefix, at both field levels: the JSON must equal
 * `JSON.stringify(ipRecord(...))` / `JSON.stringify(macRecord(...))` byte for byte.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6, parseIp } from '../../../src/address/ipAddress.js';
import { formatMac, formatMacPrefix } from '../../../src/address/macAddress.js';
import { reservedIPv4, reservedIPv6 } from '../../../src/address/reservedRange.js';
import type { LookupEngine } from '../../../src/engine/lookupEngine.js';
import { loadEngine } from '../../../src/engine/node.js';
import { ipRecord } from '../../../src/records/ipRecord.js';
import { IpRecordRenderer } from '../../../src/records/ipRecordJson.js';
import { macRecord } from '../../../src/records/macRecord.js';
import { macRecordJson } from '../../../src/records/macRecordJson.js';
import type { IpTable } from '../../../src/tables/format/ipTable.js';
import { NONE } from '../../../src/tables/format/ipTableLayout.js';

let engine: LookupEngine;
beforeAll(async () => {
  engine = await loadEngine();
});

/** Lets the test worker answer the runner between long stretches of synchronous work. */
const breather = () => new Promise((resolve) => setImmediate(resolve));

/** One range for each location row and each network row: the first public-starting range that points to it. */
function rangesCoveringEveryRow(table: IpTable): number[] {
  const byLocation = new Int32Array(table.locationCount).fill(-1);
  const byNetwork = new Int32Array(table.networkCount).fill(-1);
  const start = new Uint32Array(4);
  for (let range = 0; range < table.rangeCount; range++) {
    const location = table.rangeLocation[range];
    const network = table.rangeNetwork[range];
    const needed = (location !== NONE && byLocation[location] < 0) || (network !== NONE && byNetwork[network] < 0);
    if (!needed) continue;
    table.rangeStart(range, start);
    if (table.family === 4 ? reservedIPv4(start[0]) : reservedIPv6(start)) continue;
    if (location !== NONE && byLocation[location] < 0) byLocation[location] = range;
    if (network !== NONE && byNetwork[network] < 0) byNetwork[network] = range;
  }
  return [...new Set([...byLocation, ...byNetwork].filter((range) => range >= 0))].sort((a, b) => a - b);
}

describe('record JSON written by the engine, every row of the built tables', () => {
  const now = new Date(Date.UTC(2026, 6, 1, 12, 34, 56, 789));

  for (const family of [4, 6] as const) {
    it(`IPv${family}: every location and network row, both levels`, async () => {
      const table = family === 4 ? engine.ip4! : engine.ip6!;
      const renderer = new IpRecordRenderer();
      const start = new Uint32Array(4);
      const ranges = rangesCoveringEveryRow(table);
      let mismatches = 0;
      for (const [i, range] of ranges.entries()) {
        if (i % 20_000 === 0) await breather();
        table.rangeStart(range, start);
        const text = family === 4 ? formatIPv4(start[0]) : formatIPv6(start);
        const ip = parseIp(text)!;
        const answer = engine.answerOf(ip);
        for (const level of ['basic', 'full'] as const) {
          const json = renderer.render(engine, ip, level, now);
          if (json !== JSON.stringify(ipRecord(answer, level, now)) && mismatches++ < 5)
            expect(json, `${text} ${level}`).toBe(JSON.stringify(ipRecord(answer, level, now)));
        }
      }
      expect(mismatches).toBe(0);
      // every row has a range here unless all its ranges start in special-purpose space
      expect(ranges.length).toBeGreaterThan(Math.max(table.locationCount, table.networkCount) / 2);
    });
  }

  it('MAC: every block, by its first address and by its prefix, both levels', async () => {
    const table = engine.macTable!;
    let mismatches = 0;
    for (let row = 0; row < table.blockCount; row++) {
      if (row % 20_000 === 0) await breather();
      const block = table.block(row);
      for (const text of [formatMac(block.hi24, block.lo24), formatMacPrefix(block.hi24, block.lo24, block.bits / 4)]) {
        for (const level of ['basic', 'full'] as const) {
          const json = macRecordJson(engine, text, level);
          const expected = JSON.stringify(macRecord(engine.lookupMac(text), level));
          if (json !== expected && mismatches++ < 5) expect(json, `${text} ${level}`).toBe(expected);
        }
      }
    }
    expect(mismatches).toBe(0);
  });

  it('MAC: every special range, by its first and last address and by prefixes of its first, both levels', () => {
    const table = engine.macTable!;
    expect(table.specialCount).toBeGreaterThan(0);
    let mismatches = 0;
    for (let row = 0; row < table.specialCount; row++) {
      const { first, last } = table.special(row);
      const [hi, lo] = [Math.floor(first / 2 ** 24), first % 2 ** 24];
      const texts = [formatMac(hi, lo), formatMac(Math.floor(last / 2 ** 24), last % 2 ** 24)];
      for (let digits = 6; digits < 12; digits++) texts.push(formatMacPrefix(hi, lo, digits));
      for (const text of texts) {
        for (const level of ['basic', 'full'] as const) {
          const json = macRecordJson(engine, text, level);
          const expected = JSON.stringify(macRecord(engine.lookupMac(text), level));
          if (json !== expected && mismatches++ < 5) expect(json, `${text} ${level}`).toBe(expected);
          if (mismatches === 0 && text === texts[0]) expect(JSON.parse(json).special, text).not.toBeNull();
        }
      }
    }
    expect(mismatches).toBe(0);
  });
});
