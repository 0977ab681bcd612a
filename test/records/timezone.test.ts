import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { IpAnswer } from '../../src/engine/answers.js';
import { zoneTime } from '../../src/records/ipRecord.js';
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

  it('zones without DST, half- and quarter-hour offsets, the southern hemisphere, negative DST', () => {
    const at = (zone: string, iso: string) => zoneTime(zone, Date.parse(iso));
    for (const iso of ['2026-01-15T12:00:00Z', '2026-07-15T12:00:00Z']) {
      expect(at('Asia/Tokyo', iso)).toMatchObject({ utc_offset: '+09:00', is_dst: false });
      expect(at('UTC', iso)).toMatchObject({ utc_offset: '+00:00', is_dst: false });
      expect(at('Asia/Kolkata', iso)).toMatchObject({ utc_offset: '+05:30', is_dst: false });
      expect(at('Asia/Kathmandu', iso)).toMatchObject({ utc_offset: '+05:45', is_dst: false });
      expect(at('America/Phoenix', iso)).toMatchObject({ utc_offset: '-07:00', is_dst: false });
    }
    expect(at('Asia/Tokyo', '2026-11-22T13:05:09Z')!.current_time).toBe('2026-11-22T22:05:09+09:00');
    expect(at('Australia/Sydney', '2026-01-15T12:00:00Z')).toMatchObject({ utc_offset: '+11:00', is_dst: true });
    expect(at('Australia/Sydney', '2026-07-15T12:00:00Z')).toMatchObject({ utc_offset: '+10:00', is_dst: false });
    expect(at('Australia/Lord_Howe', '2026-01-15T12:00:00Z')).toMatchObject({ utc_offset: '+11:00', is_dst: true });
    expect(at('Australia/Lord_Howe', '2026-07-15T12:00:00Z')).toMatchObject({ utc_offset: '+10:30', is_dst: false });
    expect(at('America/St_Johns', '2026-01-15T12:00:00Z')).toMatchObject({
      utc_offset: '-03:30',
      is_dst: false,
      current_time: '2026-01-15T08:30:00-03:30',
    });
    // Europe/Dublin: IANA calls winter GMT the "negative DST"; as people understand it, summer is DST.
    expect(at('Europe/Dublin', '2026-07-15T12:00:00Z')).toMatchObject({ utc_offset: '+01:00', is_dst: true });
    expect(at('Europe/Dublin', '2026-01-15T12:00:00Z')).toMatchObject({ utc_offset: '+00:00', is_dst: false });
    expect(at('Mars/Olympus_Mons', '2026-01-15T12:00:00Z')).toBeNull();
  });

  it('agrees with an independent Intl rendering for random instants and zones', () => {
    const zones = [
      'America/New_York',
      'Europe/Berlin',
      'Australia/Sydney',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'America/St_Johns',
      'Europe/Dublin',
      'Africa/Casablanca',
      'America/Sao_Paulo',
      'Pacific/Apia',
      'Asia/Tehran',
      'UTC',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }), (zone, ms) => {
        const t = zoneTime(zone, ms)!;
        const local = new Date(ms).toLocaleString('sv-SE', { timeZone: zone, hourCycle: 'h23' });
        expect(t.current_time.slice(0, 19).replace('T', ' ')).toBe(local);
        expect(t.current_time.endsWith(t.utc_offset)).toBe(true);
        expect(Date.parse(t.current_time)).toBe(Math.floor(ms / 1000) * 1000);
        expect(t.utc_offset).toMatch(/^[+-]\d\d:\d\d$/);
      }),
      { numRuns: 3000 },
    );
  });
});
