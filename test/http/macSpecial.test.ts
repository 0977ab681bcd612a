/**
 * Group and special MAC addresses through a real listening service (docs/api.md "Records", MAC):
 * `special` says what the address is, from data/curated/mac-group-addresses.csv, at both field
 * levels, on v1 and on the legacy lookup; found and vendor stay the registrant of the three bytes;
 * an ordinary address is answered as before, with special null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

/** The addresses of the report, what each is, and the bits and registrant answers they keep. */
const REPORTED = [
  {
    mac: '01:00:5E:00:00:FB',
    special: {
      name: 'IPv4 multicast',
      protocol: 'IPv4 (low 23 bits of the group address)',
      assigned_by: 'IANA',
      reference: 'RFC 1112',
      start: '01005E000000',
      end: '01005E7FFFFF',
    },
    oui: '01:00:5E',
    is_local: false,
  },
  {
    mac: '33:33:00:00:00:01',
    special: {
      name: 'IPv6 multicast',
      protocol: 'IPv6 (low 32 bits of the group address)',
      assigned_by: 'IETF',
      reference: 'RFC 2464, RFC 7042 section 2.3.1',
      start: '333300000000',
      end: '3333FFFFFFFF',
    },
    oui: '33:33:00',
    is_local: true,
  },
  {
    mac: '01:80:C2:00:00:00',
    special: {
      name: 'Bridge Group Address',
      protocol: 'STP, RSTP, MSTP',
      assigned_by: 'IEEE',
      reference: 'IEEE Std 802.1D, IEEE Std 802.1Q',
      start: '0180C2000000',
      end: '0180C2000000',
    },
    oui: '01:80:C2',
    is_local: false,
  },
  {
    mac: '01:00:0C:CC:CC:CC',
    special: {
      name: 'Cisco Discovery Protocol multicast address',
      protocol: 'CDP, VTP, DTP, PAgP, UDLD',
      assigned_by: 'Cisco',
      reference: 'Cisco Discovery Protocol documentation',
      start: '01000CCCCCCC',
      end: '01000CCCCCCC',
    },
    oui: '01:00:0C',
    is_local: false,
  },
  {
    mac: 'FF:FF:FF:FF:FF:FF',
    special: {
      name: 'Broadcast',
      protocol: null,
      assigned_by: 'IEEE',
      reference: 'IEEE Std 802, RFC 894',
      start: 'FFFFFFFFFFFF',
      end: 'FFFFFFFFFFFF',
    },
    oui: 'FF:FF:FF',
    is_local: true,
  },
];

describe('GET /v1/mac/{mac}: group and special addresses', () => {
  for (const reported of REPORTED) {
    it(`${reported.mac}: ${reported.special.name}, at both levels; found and vendor about its three bytes`, async () => {
      // the free plan's test quota is 3 MAC lookups a day: a key of its own, one form
      const free = await h.newKey('free');
      for (const [key, level, texts] of [
        [pro, 'full', [reported.mac, reported.mac.toLowerCase().replaceAll(':', '-')]],
        [free, 'basic', [reported.mac]],
      ] as const) {
        for (const text of texts) {
          const r = await h.call(`/v1/mac/${text}`, { key });
          expect(r.status, `${text} ${level}`).toBe(200);
          expect(r.body, `${text} ${level}`).toMatchObject({
            success: true,
            mac: text,
            found: false,
            oui: reported.oui,
            normalized: reported.mac,
            is_multicast: true,
            is_local: reported.is_local,
            is_randomized: false,
            vendor: null,
          });
          expect(r.body.special, `${text} ${level}`).toEqual(reported.special);
          expect(Object.keys(r.body).slice(0, 9)).toEqual([
            'success',
            'mac',
            'found',
            'oui',
            'normalized',
            'is_multicast',
            'is_local',
            'is_randomized',
            'special',
          ]);
          if (level === 'full') expect(r.body).toMatchObject({ block: null, registry_updated: null });
        }
      }
    });
  }

  it('an ordinary unicast address is answered as before, with special null', async () => {
    const r = await h.call('/v1/mac/00:00:0c:12:34:56', { key: pro });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      found: true,
      oui: '00:00:0C',
      normalized: '00:00:0C:12:34:56',
      is_multicast: false,
      is_local: false,
      special: null,
      vendor: { company: 'Cisco Systems, Inc', country_code: 'US', short_name: 'Cisco' },
      block: { type: 'MA-L', start: '00000C000000', end: '00000CFFFFFF', size: 16777216 },
    });
    const basic = await h.call('/v1/mac/00:00:0c:12:34:56', { key: await h.newKey('free') });
    expect(Object.keys(basic.body)).toEqual([
      'success',
      'mac',
      'found',
      'oui',
      'normalized',
      'is_multicast',
      'is_local',
      'is_randomized',
      'special',
      'vendor',
      'meta',
    ]);
    expect(basic.body.special).toBeNull();
  });

  it('a special unicast address inside a registered block: found with its registrant, and what it is', async () => {
    const vrrp = await h.call('/v1/mac/00-00-5e-00-01-2a', { key: pro });
    expect(vrrp.body).toMatchObject({
      found: true,
      is_multicast: false,
      vendor: { company: 'ICANN, IANA Department' },
      special: { name: 'VRRP virtual router address (IPv4)', assigned_by: 'IANA', reference: 'RFC 5798' },
    });
    const hsrp = await h.call('/v1/mac/0000.0c07.ac01', { key: pro });
    expect(hsrp.body).toMatchObject({ found: true, vendor: { short_name: 'Cisco' }, special: { name: 'HSRP virtual router address' } });
  });

  it('a prefix answers the range holding every address it covers', async () => {
    expect((await h.call('/v1/mac/01005e', { key: pro })).body.special).toMatchObject({ name: 'IANA multicast address block' });
    expect((await h.call('/v1/mac/01:80:C2', { key: pro })).body.special).toBeNull();
    expect((await h.call('/v1/mac/33:33:00', { key: pro })).body.special).toMatchObject({ name: 'IPv6 multicast' });
  });

  it('fields filters inside special', async () => {
    const r = await h.call('/v1/mac/01:80:c2:00:00:0e?fields=special.name,special.protocol', { key: pro });
    expect(r.body).toMatchObject({ special: { name: 'Link Layer Discovery Protocol address', protocol: 'LLDP' } });
    expect(Object.keys(r.body.special)).toEqual(['name', 'protocol']);
    expect(r.body.vendor).toBeUndefined();
  });
});

describe('legacy lookup: macAddress.special', () => {
  it('shows what a special address is, in its own case', async () => {
    const r = await h.call('/lookup.php?mac=01:80:c2:00:00:00', { tick: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      found: false,
      macAddress: {
        oui: '01:80:C2',
        isRandomized: false,
        transmission: 'multicast',
        administration: 'UAA',
        special: {
          name: 'Bridge Group Address',
          protocol: 'STP, RSTP, MSTP',
          assignedBy: 'IEEE',
          reference: 'IEEE Std 802.1D, IEEE Std 802.1Q',
        },
      },
      vendor: null,
    });
    const broadcast = await h.call('/lookup?mac=ffffffffffff', { tick: 0 });
    expect(broadcast.body.macAddress).toMatchObject({ transmission: 'multicast', special: { name: 'Broadcast', protocol: null } });
  });

  it('null for an ordinary address, the rest as before', async () => {
    const r = await h.call('/lookup.php?mac=00:00:0c:12:34:56', { tick: 0 });
    expect(r.body).toMatchObject({ found: true, macAddress: { oui: '00:00:0C', transmission: 'unicast', special: null } });
    expect(r.body.vendor.company).toBe('Cisco Systems, Inc');
  });
});
