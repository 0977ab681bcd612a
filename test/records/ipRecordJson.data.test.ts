/**
 * The hot path's JSON text of IP records, written by the WASM engine, against the object path: for
 * random addresses of both families, both levels, random instants (across years and daylight-saving
 * changes) and with or without threat facts, the renderer must give exactly
 * `JSON.stringify(ipRecord(...))`, byte for byte. Addresses share ranges and zones on purpose, so a
 * value kept per range, zone or minute that should not be would show.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatIPv4, parseIp } from '../../src/address/ipAddress.js';
import { UNKNOWN_THREAT_FACTS } from '../../src/blacklist/threatFacts.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { withEnding } from '../../src/engine/recordText.js';
import { ipRecord, type FieldLevel, type IpRecordFeeds } from '../../src/records/ipRecord.js';
import { IpRecordRenderer } from '../../src/records/ipRecordJson.js';

let engine: LookupEngine;
beforeAll(async () => {
  engine = await loadEngine();
});

/** Daylight-saving changes: Europe and the US in March and in October/November 2026, Sydney in April and October. */
const DST_CHANGES = [
  Date.UTC(2026, 2, 29, 1),
  Date.UTC(2026, 9, 25, 1),
  Date.UTC(2026, 2, 8, 7),
  Date.UTC(2026, 10, 1, 6),
  Date.UTC(2026, 3, 4, 16),
  Date.UTC(2026, 9, 3, 16),
];

const threat: IpRecordFeeds = {
  threat: {
    is_threat: true,
    threat_type: 'brute-force',
    threat_confidence: 73,
    threat_reports: 4,
    threat_last_seen: '2026-11-20 08:01:02',
  },
};

/** A text's UTF-8 bytes, one per character of a Latin-1 string: what renderUtf8 gives. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

const META_ENDING = ',"meta":{"plan":"pro","fields":"full","quota":{"limit":100000,"used":7,"remaining":99993}}}';

describe('IpRecordRenderer', () => {
  const levels: FieldLevel[] = ['basic', 'full'];

  it('gives the object path JSON for random IPv4 and IPv6 addresses, instants, levels and threat facts (known or not)', () => {
    const renderer = new IpRecordRenderer();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6(),
          fc.constantFrom('8.8.8.8', '8.8.4.4', '2001:4860:4860::8888', '2001:4860:4860::8844', '10.0.0.1', '::1'),
        ),
        fc.constantFrom(...levels),
        fc.oneof(
          fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
          // the seconds around daylight-saving changes of both hemispheres
          fc.tuple(fc.constantFrom(...DST_CHANGES), fc.integer({ min: -90_000, max: 90_000 })).map(([change, offset]) => change + offset),
        ),
        fc.oneof(
          fc.constantFrom<IpRecordFeeds | undefined>(undefined, threat, { threat: UNKNOWN_THREAT_FACTS }),
          // feed facts: verdicts (a VPN changes the connection type), RPKI, abuse, hostnames, any mix
          fc.record<IpRecordFeeds>(
            {
              threat: fc.constantFrom(undefined, threat.threat, UNKNOWN_THREAT_FACTS),
              security: fc.constantFrom(
                null,
                { is_vpn: false, vpn_provider: null, is_proxy: false, is_tor: true, listed_by: ['Tor bulk exit list'] },
                { is_vpn: true, vpn_provider: 'Mullvad VPN', is_proxy: null, is_tor: false, listed_by: ['Mullvad VPN server list'] },
                { is_vpn: false, vpn_provider: null, is_proxy: false, is_tor: false, listed_by: [] },
              ),
              rpki: fc.constantFrom(null, 'valid', 'invalid', 'not_found', 'unrouted' as const),
              abuse: fc.constantFrom(null, 'abuse@example.net', 'a"b\\c@example.org'),
              hostname: fc.constantFrom(null, 'dns.google', 'host-"quoted"-é'),
            },
            { requiredKeys: [] },
          ),
        ),
        (text, level, ms, feeds) => {
          const ip = parseIp(text)!;
          const now = new Date(ms);
          const json = JSON.stringify(ipRecord(engine.lookupIp(text), level, now, feeds));
          expect(renderer.render(engine, ip, level, now, feeds)).toBe(json);
          // a metered answer's meta in place of the closing brace, whichever path wrote the record
          expect(renderer.render(engine, ip, level, now, feeds, META_ENDING)).toBe(withEnding(json, META_ENDING));
          const bytes = renderer.renderUtf8(engine, ip, level, now, feeds, META_ENDING);
          if (bytes !== null) expect(bytes).toBe(utf8Bytes(withEnding(json, META_ENDING)));
        },
      ),
      { numRuns: 6000 },
    );
  });

  it('gives the UTF-8 bytes of every record the engine writes whole, and null for the others', () => {
    const renderer = new IpRecordRenderer();
    const now = new Date(Date.UTC(2026, 10, 24, 12));
    // ASCII, Latin-1 (the yen sign) and beyond (the rouble sign) records, IPv4 and IPv6
    for (const text of ['8.8.8.8', '133.11.0.1', '77.88.8.8', '2a00:1450:4001::1', '2a02:6b8::1'])
      for (const level of levels) {
        const json = JSON.stringify(ipRecord(engine.lookupIp(text), level, now));
        expect(renderer.renderUtf8(engine, parseIp(text)!, level, now), text).toBe(utf8Bytes(json));
        expect(renderer.renderUtf8(engine, parseIp(text)!, level, now, undefined, META_ENDING), text).toBe(
          utf8Bytes(withEnding(json, META_ENDING)),
        );
      }
    // the object path's records: reserved, threat facts at the full level
    expect(renderer.renderUtf8(engine, parseIp('10.0.0.1')!, 'full', now)).toBeNull();
    expect(renderer.renderUtf8(engine, parseIp('8.8.8.8')!, 'full', now, threat)).toBeNull();
    expect(renderer.renderUtf8(engine, parseIp('8.8.8.8')!, 'basic', now, threat)).toBe(
      utf8Bytes(JSON.stringify(ipRecord(engine.lookupIp('8.8.8.8'), 'basic', now, threat))),
    );
  });

  it('follows each zone through the minutes and daylight-saving changes, second by second', () => {
    const renderer = new IpRecordRenderer();
    // Berlin, New York, Sydney, São Paulo, Tokyo, Delhi, Kathmandu and their IPv6 neighbours
    const texts = ['81.0.0.1', '8.8.8.8', '1.1.1.1', '200.147.67.142', '133.11.0.1', '49.44.0.1', '202.166.192.1', '2a00:1450:4001::1'];
    for (const change of DST_CHANGES) {
      for (let ms = change - 65_000; ms < change + 65_000; ms += 3_700) {
        const now = new Date(ms);
        for (const text of texts)
          expect(renderer.render(engine, parseIp(text)!, 'full', now)).toBe(JSON.stringify(ipRecord(engine.lookupIp(text), 'full', now)));
      }
    }
  });

  it('gives each address of one range its own ip (and IPv6 block), and each second its own clock', () => {
    const renderer = new IpRecordRenderer();
    for (let i = 0; i < 256; i++) {
      const address = (0x08080800 | i) >>> 0;
      const text = formatIPv4(address);
      // One second per address, across a minute boundary.
      const now = new Date(Date.UTC(2026, 2, 29, 0, 59, 0) + i * 1000);
      for (const level of levels)
        expect(renderer.render(engine, parseIp(text)!, level, now)).toBe(JSON.stringify(ipRecord(engine.lookupIp(text), level, now)));
    }
    // every octet value in every position, and IPv6 groups of one to four digits, with and without letters
    const texts = ['2001:4860:4860::1', '2001:4860:4860:1::1', '2001:4860:4800::1', '2a00:1450:4001::1', '::ffff:8.8.8.8'];
    for (let i = 0; i < 256; i++) texts.push(`${i}.8.8.8`, `8.${i}.8.8`, `81.2.${i}.160`);
    for (const group of ['1', 'a', '1f', 'ab', '100', 'fff', '1000', 'abcd', 'ffff'])
      texts.push(`2001:4860:${group}::${group}:1`, `2a00:${group}:4001::1`);
    for (const text of texts) {
      expect(renderer.render(engine, parseIp(text)!, 'full', new Date(0))).toBe(
        JSON.stringify(ipRecord(engine.lookupIp(text), 'full', new Date(0))),
      );
    }
  });
});
