import { beforeAll, describe, expect, it } from 'vitest';
import type { IpAnswer } from '../../src/engine/answers.js';
import { tinyEngine } from '../tables/tinyTables.js';
import { timezoneAt } from './timezoneAt.js';

let berlin: IpAnswer;
let newYork: IpAnswer;
beforeAll(async () => {
  const engine = await tinyEngine();
  berlin = engine.lookupIp('2a00:1450:4001:80b::200e');
  expect(berlin.location?.timezone).toBe('Europe/Berlin');
  const found = engine.lookupIp('81.0.0.1');
  newYork = { ...found, location: { ...found.location!, timezone: 'America/New_York' } };
});

describe('timezone fields across DST changes', () => {
  it('America/New_York, 2026-03-08 02:00 EST -> 03:00 EDT (07:00 UTC)', () => {
    expect(timezoneAt(newYork, '2026-03-08T06:59:59.999Z')).toEqual({
      id: 'America/New_York',
      utc_offset: '-05:00',
      is_dst: false,
      current_time: '2026-03-08T01:59:59-05:00',
    });
    expect(timezoneAt(newYork, '2026-03-08T07:00:00.000Z')).toEqual({
      id: 'America/New_York',
      utc_offset: '-04:00',
      is_dst: true,
      current_time: '2026-03-08T03:00:00-04:00',
    });
    // and back in November: 02:00 EDT -> 01:00 EST (06:00 UTC)
    expect(timezoneAt(newYork, '2026-11-01T05:59:59Z')).toMatchObject({
      utc_offset: '-04:00',
      is_dst: true,
      current_time: '2026-11-01T01:59:59-04:00',
    });
    expect(timezoneAt(newYork, '2026-11-01T06:00:00Z')).toMatchObject({
      utc_offset: '-05:00',
      is_dst: false,
      current_time: '2026-11-01T01:00:00-05:00',
    });
  });

  it('Europe/Berlin, 2026-10-25 03:00 CEST -> 02:00 CET (01:00 UTC)', () => {
    expect(timezoneAt(berlin, '2026-10-25T00:59:59Z')).toEqual({
      id: 'Europe/Berlin',
      utc_offset: '+02:00',
      is_dst: true,
      current_time: '2026-10-25T02:59:59+02:00',
    });
    expect(timezoneAt(berlin, '2026-10-25T01:00:00Z')).toEqual({
      id: 'Europe/Berlin',
      utc_offset: '+01:00',
      is_dst: false,
      current_time: '2026-10-25T02:00:00+01:00',
    });
    // spring: 2026-03-29 02:00 CET -> 03:00 CEST (01:00 UTC)
    expect(timezoneAt(berlin, '2026-03-29T00:59:59Z')).toMatchObject({
      utc_offset: '+01:00',
      is_dst: false,
      current_time: '2026-03-29T01:59:59+01:00',
    });
    expect(timezoneAt(berlin, '2026-03-29T01:00:00Z')).toMatchObject({
      utc_offset: '+02:00',
      is_dst: true,
      current_time: '2026-03-29T03:00:00+02:00',
    });
  });

  it('stays right when calls go back and forth across the change (per-minute cache)', () => {
    const before = '2026-10-25T00:59:30Z';
    const after = '2026-10-25T01:00:30Z';
    for (let i = 0; i < 3; i++) {
      expect(timezoneAt(berlin, before).utc_offset).toBe('+02:00');
      expect(timezoneAt(berlin, after).utc_offset).toBe('+01:00');
    }
    expect(timezoneAt(berlin, '2026-10-25T00:59:00Z').current_time).toBe('2026-10-25T02:59:00+02:00');
    expect(timezoneAt(berlin, '2026-10-25T00:59:59Z').current_time).toBe('2026-10-25T02:59:59+02:00');
  });
});
