/** IP records that need no built table: the reserved ranges and the usage estimate (the rest: ipRecord.data.test.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReservedType } from '../../src/address/reservedRange.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { ipRecord, usageOf } from '../../src/records/ipRecord.js';
import { connectionTypes } from '../../src/tables/format/ipTable.js';
import { tinyEngine } from '../tables/tinyTables.js';
import { expectShape, reservedSchema } from './schema.js';

const NOW = new Date('2026-11-22T13:05:09.250Z');

let engine: LookupEngine;
beforeAll(async () => {
  engine = await tinyEngine();
});

describe('reserved records', () => {
  const cases: [string, ReservedType][] = [
    ['10.1.2.3', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.10.20', 'link_local'],
    ['fe80::1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['224.0.0.251', 'multicast'],
    ['ff02::fb', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['198.18.0.1', 'benchmark'],
    ['2001:2::1', 'benchmark'],
    ['240.0.0.1', 'reserved'],
    ['::', 'reserved'],
  ];
  for (const [ip, type] of cases) {
    it(`${ip} is ${type} on both levels`, () => {
      const answer = engine.lookupIp(ip);
      for (const level of ['basic', 'full'] as const) {
        const record = ipRecord(answer, level, NOW);
        expectShape(record, reservedSchema);
        expect(record).toMatchObject({
          success: true,
          ip: answer.ip,
          version: ip.includes(':') ? 6 : 4,
          reserved: true,
          reserved_type: type,
          security: { is_private: type === 'private', is_cgnat: type === 'cgnat' },
        });
        expect((record as { description: string }).description.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('network.usage: the documented estimate from the connection type (docs/tables.md "Estimates and rules")', () => {
  it('maps every connection type, and unknown to null', () => {
    for (const type of connectionTypes) {
      if (type === null) expect(usageOf(type)).toBeNull();
      else expect(typeof usageOf(type), type).toBe('string');
    }
    expect(usageOf('hosting')).toBe('hosting/cloud');
    expect(usageOf('residential')).toBe('consumer access');
    expect(usageOf('cable')).toBe('consumer access');
    expect(usageOf('mobile')).toBe('mobile access');
    expect(usageOf('backbone')).toBe('transit/backbone');
  });
});
