/** The record's local time over the built tables: the capitals' zones. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { CAPITAL_ADDRESSES } from '../engine/differential/capitals.js';
import { timezoneAt } from './timezoneAt.js';

let engine: LookupEngine;
beforeAll(async () => {
  engine = await loadEngine({ kinds: ['ip4', 'ip6'] });
});

describe('timezone fields over the built tables', () => {
  it('gives the local time of the capitals whose own zones the tables now carry', () => {
    for (const { ip, zone, january, july } of CAPITAL_ADDRESSES) {
      const answer = engine.lookupIp(ip);
      expect(timezoneAt(answer, '2026-01-15T12:00:00Z'), ip).toMatchObject({ id: zone, utc_offset: january, is_dst: false });
      expect(timezoneAt(answer, '2026-07-15T12:00:00Z'), ip).toMatchObject({ id: zone, utc_offset: july, is_dst: january !== july });
    }
    expect(timezoneAt(engine.lookupIp('14.251.101.0'), '2026-11-22T13:05:09Z').current_time).toBe('2026-11-22T20:05:09+07:00');
  });
});
