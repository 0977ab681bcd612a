import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zoneTime } from '../../src/records/zoneClock.js';

describe('zoneTime', () => {
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
