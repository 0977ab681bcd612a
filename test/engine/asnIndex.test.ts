/**
 * AS answers over the tiny tables (AS3320: 81.0.0.0/24 and 2a00:1450::/32, located in Berlin): totals,
 * prefixes and their CIDR blocks, unknown AS numbers, the input forms, and a table reload, after
 * which the answers are those of the new tables.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAsn } from '../../src/address/asNumber.js';
import { asnAnswer, asnPrefixes } from '../../src/engine/asnIndex.js';
import { LiveEngine } from '../../src/engine/liveEngine.js';
import { LookupEngine } from '../../src/engine/lookupEngine.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { writeIpTable, type IpTableParts } from '../../src/tables/format/ipTable.js';
import { AS_ROW, NETWORK_ROW } from '../../src/tables/format/ipTableLayout.js';
import { tinyIp4, tinyIp6 } from '../tables/tinyTables.js';

const wasm = fs.readFileSync(defaultWasmPath());

/** The tiny ip4 table with its one network row moved to [first, last] and its AS number changed. */
function ip4With(asn: number, first: number, last: number): IpTableParts {
  const parts = tinyIp4();
  const network = new DataView(parts.networkRows.buffer);
  network.setUint32(NETWORK_ROW[4].first, first, true);
  network.setUint32(NETWORK_ROW[4].last, last, true);
  parts.keys = Uint32Array.of(0, first, last + 1, 0x52000000);
  new DataView(parts.asRows.buffer).setUint32(AS_ROW.asn, asn, true);
  return parts;
}

const engineOf = (ip4: IpTableParts) => LookupEngine.create(wasm, { ip4: writeIpTable(ip4), ip6: writeIpTable(tinyIp6()) });

describe('AS numbers as clients write them', () => {
  it('reads AS15169, as15169 and 15169, from 1 to 4294967295', () => {
    for (const text of ['AS15169', 'as15169', 'As15169', '15169']) expect(parseAsn(text), text).toBe(15169);
    expect(parseAsn('1')).toBe(1);
    expect(parseAsn('AS4294967295')).toBe(4294967295);
  });

  it('refuses 0, numbers past 32 bits, asdot, signs, spaces and other text', () => {
    for (const text of [
      '0',
      'AS0',
      '4294967296',
      'AS99999999999',
      '1.10',
      '-5',
      '+5',
      ' 15169',
      'AS 15169',
      'ASN15169',
      'AS',
      '',
      '15169x',
      '0x10',
    ])
      expect(parseAsn(text), text).toBe(-1);
  });
});

describe('AS answers', () => {
  it('counts the prefixes and addresses of each family and takes the AS row facts and the located country', async () => {
    const engine = await engineOf(tinyIp4());
    const answer = asnAnswer(engine, 3320);
    expect(answer).toMatchObject({
      asn: 3320,
      found: true,
      network: {
        asn: 3320,
        organization: 'Deutsche Telekom AG',
        domain: 'telekom.de',
        connection_type: 'residential',
        asn_name: 'DTAG',
        isp: 'Telekom',
        org_domain: null,
        holding: null,
        holding_domain: null,
      },
      country_code: 'DE',
      ipv4: { prefixes: 1, addresses: 256n },
      ipv6: { prefixes: 1, addresses: 1n << 96n },
    });
    expect(answer.country?.name).toBe('Germany');
  });

  it('lists the prefixes IPv4 then IPv6, paged by offset and limit', async () => {
    const engine = await engineOf(tinyIp4());
    const all = asnPrefixes(engine, 3320, 0, 10);
    expect(all).toEqual([
      { version: 4, start: '81.0.0.0', end: '81.0.0.255', cidrs: ['81.0.0.0/24'] },
      { version: 6, start: '2a00:1450::', end: '2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff', cidrs: ['2a00:1450::/32'] },
    ]);
    expect(asnPrefixes(engine, 3320, 1, 10)).toEqual([all[1]]);
    expect(asnPrefixes(engine, 3320, 0, 1)).toEqual([all[0]]);
    expect(asnPrefixes(engine, 3320, 2, 10)).toEqual([]);
  });

  it('splits a range that is no CIDR block into the blocks that make it up', async () => {
    // 81.0.0.1 – 81.0.2.4: /32, /31, /30, /29, /28, /27, /26, /25, /24 up to 81.0.1.255, then 81.0.2.0/30 and 81.0.2.4/32
    const engine = await engineOf(ip4With(3320, 0x51000001, 0x51000204));
    const [prefix] = asnPrefixes(engine, 3320, 0, 1);
    expect(prefix.cidrs).toEqual([
      '81.0.0.1/32',
      '81.0.0.2/31',
      '81.0.0.4/30',
      '81.0.0.8/29',
      '81.0.0.16/28',
      '81.0.0.32/27',
      '81.0.0.64/26',
      '81.0.0.128/25',
      '81.0.1.0/24',
      '81.0.2.0/30',
      '81.0.2.4/32',
    ]);
    expect(asnAnswer(engine, 3320).ipv4.addresses).toBe(0x204n);
  });

  it('finds nothing for an AS number no network row has', async () => {
    const engine = await engineOf(tinyIp4());
    expect(asnAnswer(engine, 15169)).toEqual({
      asn: 15169,
      found: false,
      network: null,
      country_code: null,
      country: null,
      ipv4: { prefixes: 0, addresses: 0n },
      ipv6: { prefixes: 0, addresses: 0n },
    });
    expect(asnPrefixes(engine, 15169, 0, 10)).toEqual([]);
  });

  it('refuses with unavailable while an IP table is not loaded', async () => {
    const engine = await LookupEngine.create(wasm, { ip4: writeIpTable(tinyIp4()) });
    expect(() => asnAnswer(engine, 3320)).toThrow('The IPv6 table is not loaded.');
  });

  it('follows a table reload: the new tables answer with their own AS numbers', async () => {
    let next = tinyIp4();
    const live = new LiveEngine(await engineOf(next), () => engineOf(next));
    expect(asnAnswer(live.engine, 3320).ipv4.prefixes).toBe(1);
    next = ip4With(64500, 0x51000000, 0x510000ff);
    await live.reload();
    expect(asnAnswer(live.engine, 3320).ipv4.prefixes).toBe(0);
    expect(asnAnswer(live.engine, 3320).ipv6.prefixes).toBe(1);
    expect(asnAnswer(live.engine, 64500)).toMatchObject({ found: true, ipv4: { prefixes: 1, addresses: 256n } });
  });
});
