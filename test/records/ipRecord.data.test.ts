import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ThreatFacts } from '../../src/blacklist/threatFacts.js';
import type { IpAnswer } from '../../src/engine/answers.js';
import { formatIPv6 } from '../../src/address/ipAddress.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { ipRecord, NOT_FOUND_MESSAGE, type IpRecordFull, type IpRecordBasic } from '../../src/records/ipRecord.js';
import { NONE } from '../../src/tables/format/ipTableLayout.js';
import {
  expectShape,
  ipBasicSchema,
  ipFullSchema,
  notFoundSchema,
  reservedSchema,
  schemaPaths,
  shapeErrors,
  type Schema,
} from './schema.js';

const NOW = new Date('2026-11-22T13:05:09.250Z');

let engine: LookupEngine;
beforeAll(async () => {
  engine = await loadEngine();
});

function schemaOf(answer: IpAnswer, level: 'basic' | 'full'): Schema {
  if (answer.status === 'reserved') return reservedSchema;
  if (answer.status === 'not_found') return notFoundSchema;
  return level === 'basic' ? ipBasicSchema : ipFullSchema;
}

describe('found IP records over the real tables', () => {
  it('8.8.8.8 basic: exactly the free keys, with Google data', () => {
    const record = ipRecord(engine.lookupIp('8.8.8.8'), 'basic', NOW) as IpRecordBasic;
    expectShape(record, ipBasicSchema);
    expect(record).toMatchObject({
      success: true,
      ip: '8.8.8.8',
      version: 4,
      location: { continent: 'North America', continent_code: 'NA', country: 'United States', country_code: 'US', is_eu: false },
      timezone: { id: 'America/Los_Angeles' },
      network: { asn: 15169, isp: 'Google LLC', organization: 'Google LLC', domain: 'google.com', connection_type: 'hosting' },
    });
    expect(record.location.latitude).toBe(37.422);
    expect(record.location.longitude).toBe(-122.085);
    // no paid key anywhere
    const basicPaths = new Set(schemaPaths(ipBasicSchema));
    const paid = schemaPaths(ipFullSchema).filter((p) => !basicPaths.has(p));
    expect(paid).toContain('timezone.utc_offset');
    expect(paid).toContain('security');
    const flat = JSON.stringify(record);
    for (const p of paid) {
      const parts = p.split('.');
      let node: unknown = record;
      for (const part of parts.slice(0, -1)) node = (node as Record<string, unknown>)?.[part];
      expect(node && typeof node === 'object' ? Object.hasOwn(node, parts[parts.length - 1]) : false, `${p} in ${flat}`).toBe(false);
    }
    expect('address' in record.location).toBe(false);
  });

  it('8.8.8.8 full: every key, network range, no feed data', () => {
    const record = ipRecord(engine.lookupIp('8.8.8.8'), 'full', NOW) as IpRecordFull;
    expectShape(record, ipFullSchema);
    expect(record.timezone).toEqual({
      id: 'America/Los_Angeles',
      utc_offset: '-08:00',
      is_dst: false,
      current_time: '2026-11-22T05:05:09-08:00',
    });
    // the npm ASN data gives one name, not a handle: no registered AS name, nor an organisation domain apart
    expect(record.network).toMatchObject({
      asn_name: null,
      org_domain: null,
      holding: null,
      holding_domain: null,
      usage: 'hosting/cloud',
      hostname: null,
      range: { start: '8.8.8.0', end: '8.8.8.255', size: 256 },
      rpki: null,
      speed_mbps: null,
    });
    expect(record.country_info).toEqual({ calling_code: '+1', tld: '.us', currency: { code: 'USD', symbol: '$' }, languages: ['English'] });
    expect(record.security).toEqual({
      is_vpn: null,
      vpn_provider: null,
      is_proxy: null,
      is_tor: null,
      listed_by: null,
      is_hosting: true,
      is_threat: false,
      threat_type: null,
      threat_confidence: 0,
      threat_reports: 0,
      threat_last_seen: null,
    });
    expect(record.abuse).toEqual({ email: null });
    expect('address' in record.location || 'address_type' in record.location).toBe(false);
    expect(Object.keys(record)).toEqual([
      'success',
      'ip',
      'version',
      'location',
      'timezone',
      'network',
      'country_info',
      'security',
      'abuse',
    ]);
  });

  it('an IPv6 address: compressed ip, range with prefix, rpki null even with a feed', () => {
    const answer = engine.lookupIp('2a00:1450:4001:080b:0000:0000:0000:200e');
    const record = ipRecord(answer, 'full', NOW, { rpki: 'valid' }) as IpRecordFull;
    expectShape(record, ipFullSchema);
    expect(record.ip).toBe('2a00:1450:4001:80b::200e');
    expect(record.version).toBe(6);
    expect(record.location).toMatchObject({ country_code: 'DE', country: 'Germany', continent: 'Europe', is_eu: true });
    expect(record.network.range).toEqual({ start: answer.block!.start, end: answer.block!.end, prefix: answer.block!.prefix });
    expect(record.network.range).not.toHaveProperty('size');
    expect(record.network.rpki).toBeNull();
    expect(record.timezone).toEqual({
      id: 'Europe/Berlin',
      utc_offset: '+01:00',
      is_dst: false,
      current_time: '2026-11-22T14:05:09+01:00',
    });
    const basic = ipRecord(answer, 'basic', NOW);
    expectShape(basic, ipBasicSchema);
  });

  it('feeds fill security and rpki (IPv4); a VPN range reports hosting', () => {
    const answer = engine.lookupIp('81.2.69.160');
    const threat: ThreatFacts = {
      is_threat: true,
      threat_type: 'brute-force',
      threat_confidence: 87,
      threat_reports: 12,
      threat_last_seen: '2026-11-21 10:00:00',
    };
    const record = ipRecord(answer, 'full', NOW, {
      security: { is_vpn: true, vpn_provider: 'ExampleVPN', is_proxy: false, is_tor: true, listed_by: ['Example VPN list', 'Tor exits'] },
      threat,
      rpki: 'valid',
    }) as IpRecordFull;
    expectShape(record, ipFullSchema);
    expect(record.network.rpki).toBe('valid');
    expect(record.network.connection_type).toBe('hosting');
    expect(record.security).toEqual({
      is_vpn: true,
      vpn_provider: 'ExampleVPN',
      is_proxy: false,
      is_tor: true,
      listed_by: ['Example VPN list', 'Tor exits'],
      is_hosting: true,
      ...threat,
    });
    const basic = ipRecord(answer, 'basic', NOW, {
      security: { is_vpn: true, vpn_provider: 'ExampleVPN', is_proxy: false, is_tor: false, listed_by: ['Example VPN list'] },
    });
    expect((basic as IpRecordBasic).network.connection_type).toBe('hosting');
  });

  it('unknown parts stay null: no location, no network, no country facts, no zone, unknown zone', () => {
    const real = engine.lookupIp('8.8.8.8');
    const noLocation: IpAnswer = { ...real, location: null, country: null };
    const full = ipRecord(noLocation, 'full', NOW) as IpRecordFull;
    expectShape(full, ipFullSchema);
    expect(Object.values(full.location).every((v) => v === null)).toBe(true);
    expect(full.timezone).toEqual({ id: null, utc_offset: null, is_dst: null, current_time: null });
    expect(full.country_info).toBeNull();

    const noNetwork: IpAnswer = { ...real, network: null };
    const n = ipRecord(noNetwork, 'full', NOW) as IpRecordFull;
    expectShape(n, ipFullSchema);
    expect(n.network).toMatchObject({
      asn: null,
      isp: null,
      organization: null,
      domain: null,
      connection_type: null,
      asn_name: null,
      org_domain: null,
      usage: null,
    });
    expect(n.security.is_hosting).toBeNull();

    const noZone: IpAnswer = { ...real, location: { ...real.location!, timezone: null } };
    expect((ipRecord(noZone, 'full', NOW) as IpRecordFull).timezone).toEqual({
      id: null,
      utc_offset: null,
      is_dst: null,
      current_time: null,
    });
    expect((ipRecord(noZone, 'basic', NOW) as IpRecordBasic).timezone).toEqual({ id: null });

    const badZone: IpAnswer = { ...real, location: { ...real.location!, timezone: 'Mars/Olympus_Mons' } };
    const b = ipRecord(badZone, 'full', NOW) as IpRecordFull;
    expectShape(b, ipFullSchema);
    expect(b.timezone).toEqual({ id: 'Mars/Olympus_Mons', utc_offset: null, is_dst: null, current_time: null });

    const noFacts: IpAnswer = { ...real, country: null };
    const f = ipRecord(noFacts, 'full', NOW) as IpRecordFull;
    expect(f.location).toMatchObject({ country_code: 'US', country: null, continent: null, continent_code: null, is_eu: null });
    expect(f.country_info).toBeNull();
  });

  it('never shares the country facts arrays with the table', () => {
    const answer = engine.lookupIp('8.8.8.8');
    const record = ipRecord(answer, 'full', NOW) as IpRecordFull;
    expect(record.country_info!.languages).not.toBe(answer.country!.languages);
  });
});

describe('not-found records', () => {
  it('an IPv6 address in no table answers found = false with a message, and nothing else', () => {
    const table = engine.ip6!;
    const start = new Uint32Array(4);
    let answer: IpAnswer | null = null;
    for (let i = 0; i < table.rangeCount && answer === null; i++) {
      if (table.rangeLocation[i] !== NONE || table.rangeNetwork[i] !== NONE) continue;
      table.rangeStart(i, start);
      const candidate = engine.lookupIp(formatIPv6(start));
      if (candidate.status === 'not_found') answer = candidate;
    }
    expect(answer).not.toBeNull();
    for (const level of ['basic', 'full'] as const) {
      const record = ipRecord(answer!, level, NOW);
      expectShape(record, notFoundSchema);
      expect(record).toEqual({ success: true, ip: answer!.ip, version: 6, found: false, message: NOT_FOUND_MESSAGE });
    }
  });
});

describe('every record of random addresses fits its level exactly', () => {
  const check = (answer: IpAnswer) => {
    for (const level of ['basic', 'full'] as const) {
      const record = ipRecord(answer, level, NOW);
      const errors = shapeErrors(record, schemaOf(answer, level));
      if (errors.length) throw new Error(`${answer.ip} ${level}: ${errors.join('; ')}`);
      if (answer.status === 'found' && level === 'full') {
        const full = record as IpRecordFull;
        const range = full.network.range!;
        if (answer.version === 4 ? !('size' in range) : !('prefix' in range))
          throw new Error(`${answer.ip}: range ${JSON.stringify(range)}`);
        if ((full.timezone.id === null) !== (full.timezone.current_time === null))
          throw new Error(`${answer.ip}: ${JSON.stringify(full.timezone)}`);
      }
    }
  };

  it('IPv4', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => {
        const answer = engine.answerIPv4(n);
        seen.add(answer.status);
        check(answer);
      }),
      { numRuns: 5000 },
    );
    expect(seen.has('found')).toBe(true);
    expect(seen.has('reserved')).toBe(true);
  });

  it('IPv6 (global unicast and beyond)', () => {
    const seen = new Set<string>();
    const word = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(fc.boolean(), word, word, word, word, (global, w0, w1, w2, w3) => {
        const answer = engine.answerIPv6([global ? (0x20000000 | (w0 >>> 3)) >>> 0 : w0, w1, w2, w3]);
        seen.add(answer.status);
        check(answer);
      }),
      { numRuns: 5000 },
    );
    expect(seen.has('found')).toBe(true);
    expect(seen.has('reserved')).toBe(true);
  });
});

describe('network.usage: the documented estimate from the connection type (docs/tables.md "Estimates and rules")', () => {
  it('follows a VPN feed: a listed range reads as hosting, so as hosting/cloud', () => {
    const answer = engine.lookupIp('41.32.0.1');
    const vpn = ipRecord(answer, 'full', NOW, {
      security: { is_vpn: true, vpn_provider: 'X', is_proxy: null, is_tor: null, listed_by: ['X servers'] },
    }) as IpRecordFull;
    expect(vpn.network).toMatchObject({ connection_type: 'hosting', usage: 'hosting/cloud' });
  });
});
