import { beforeAll, describe, expect, it } from 'vitest';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { macRecord, macSearchResult, type MacRecordFull } from '../../src/records/macRecord.js';
import { registrySpellings, type RegisteredSpelling } from '../tables/registrySpellings.js';
import { expectShape, macBasicSchema, macFullSchema, shapeErrors } from './schema.js';

let engine: LookupEngine;
let spellings: Map<string, RegisteredSpelling>;
beforeAll(async () => {
  engine = await loadEngine({ kinds: ['mac'] });
  spellings = registrySpellings().spellings;
});

describe('MAC records over the real table', () => {
  it('a VMware address: basic has only the free keys, full has every key', () => {
    const answer = engine.lookupMac('00-50-56-12-34-56');
    const basic = macRecord(answer, 'basic');
    expectShape(basic, macBasicSchema);
    expect(basic).toEqual({
      success: true,
      mac: '00-50-56-12-34-56',
      found: true,
      oui: '00:50:56',
      normalized: '00:50:56:12:34:56',
      is_multicast: false,
      is_local: false,
      is_randomized: false,
      special: null,
      vendor: { company: 'VMware, Inc.', country_code: 'US' },
    });
    const full = macRecord(answer, 'full');
    expectShape(full, macFullSchema);
    expect(full.vendor).toEqual({
      company: 'VMware, Inc.',
      country_code: 'US',
      short_name: 'VMware',
      website: 'vmware.com',
      country: 'United States',
      address: answer.vendor!.address,
      industry: null,
      founded: null,
      headquarters: null,
      total_ouis: answer.vendor!.total_ouis,
      is_private: false,
    });
    expect(full.block).toEqual({ type: 'MA-L', start: '005056000000', end: '005056FFFFFF', size: 16777216 });
    expect(full.device).toEqual({ type: null, interface: null, is_virtual_machine: true, vm_platform: 'VMware' });
    expect(full.registry_updated).toBeNull();
    expect(macRecord(answer, 'full', '2024/01/31').registry_updated).toBe('2024/01/31');
  });

  it('a prefix only: normalized null', () => {
    const record = macRecord(engine.lookupMac('001122'), 'full');
    expectShape(record, macFullSchema);
    expect(record).toMatchObject({ mac: '001122', oui: '00:11:22', normalized: null, found: true });
    expect(record.device.is_virtual_machine).toBe(false);
  });

  it('MA-M and MA-S blocks', () => {
    const mam = macRecord(engine.lookupMac('1C:87:74:1A:BC:DE'), 'full');
    expect(mam.block).toEqual({ type: 'MA-M', start: '1C8774100000', end: '1C87741FFFFF', size: 1048576 });
    const mas = macRecord(engine.lookupMac('70:B3:D5:00:10:01'), 'full');
    expect(mas.block).toEqual({ type: 'MA-S', start: '70B3D5001000', end: '70B3D5001FFF', size: 4096 });
    expectShape(mam, macFullSchema);
    expectShape(mas, macFullSchema);
  });

  it('not found: vendor and block null, bits and VM platform still answered', () => {
    const docker = engine.lookupMac('02:42:ac:11:00:02');
    const basic = macRecord(docker, 'basic');
    expectShape(basic, macBasicSchema);
    expect(basic).toMatchObject({ found: false, vendor: null, is_local: true, is_randomized: true });
    const full = macRecord(docker, 'full') as MacRecordFull;
    expectShape(full, macFullSchema);
    expect(full).toMatchObject({ found: false, vendor: null, block: null, registry_updated: null });
    expect(full.device).toEqual({ type: null, interface: null, is_virtual_machine: true, vm_platform: 'Docker' });

    const multicast = macRecord(engine.lookupMac('01:00:5e:00:00:01'), 'full');
    expectShape(multicast, macFullSchema);
    expect(multicast).toMatchObject({ found: false, is_multicast: true, is_local: false, is_randomized: false, vendor: null, block: null });
    expect(multicast.special).toMatchObject({ name: 'IPv4 multicast', assigned_by: 'IANA', start: '01005E000000', end: '01005E7FFFFF' });
  });

  it('special addresses: the most specific range, at both levels; found and vendor stay the registrant of the three bytes', () => {
    const vrrp = macRecord(engine.lookupMac('00:00:5e:00:01:07'), 'basic');
    expectShape(vrrp, macBasicSchema);
    expect(vrrp).toMatchObject({ found: true, is_multicast: false, vendor: { company: 'ICANN, IANA Department' } });
    expect(vrrp.special).toEqual({
      name: 'VRRP virtual router address (IPv4)',
      protocol: 'VRRP (last byte: the virtual router ID)',
      assigned_by: 'IANA',
      reference: 'RFC 5798',
      start: '00005E000100',
      end: '00005E0001FF',
    });
    // a prefix answers the range that holds every address it covers
    expect(macRecord(engine.lookupMac('01005e'), 'full').special).toMatchObject({ name: 'IANA multicast address block' });
    expect(macRecord(engine.lookupMac('01:00:5e:8'), 'full').special).toMatchObject({ name: 'MPLS multicast' });
    expect(macRecord(engine.lookupMac('0180c2'), 'full').special).toBeNull();
    expect(macRecord(engine.lookupMac('00:00:0c:12:34:56'), 'full').special).toBeNull();
  });

  it('every record of random addresses fits its level exactly', () => {
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    let found = 0;
    for (let i = 0; i < 3000; i++) {
      const hex = (next() >>> 8).toString(16).padStart(6, '0') + (next() >>> 8).toString(16).padStart(6, '0');
      const text = i % 3 === 0 ? hex.slice(0, 6 + (i % 7)) : hex;
      const answer = engine.lookupMac(text);
      if (answer.found) found++;
      const b = shapeErrors(macRecord(answer, 'basic'), macBasicSchema);
      const f = shapeErrors(macRecord(answer, 'full'), macFullSchema);
      if (b.length || f.length) throw new Error(`${text}: ${[...b, ...f].join('; ')}`);
    }
    expect(found).toBeGreaterThan(0);
  });
});

describe('IAB blocks, private registrations, companies', () => {
  /** The blocks registered under the given exact spellings, counted in the sources. */
  const blocksOf = (...names: string[]) =>
    names.reduce((n, name) => {
      const spelling = spellings.get(name);
      if (!spelling) throw new Error(`${name} is not a registered spelling`);
      return n + spelling.blocks;
    }, 0);

  it('an IAB block answers its assignee, an unassigned one the IEEE parent block', () => {
    const record = macRecord(engine.lookupMac('00:50:C2:7D:51:23'), 'full');
    expectShape(record, macFullSchema);
    expect(record.found).toBe(true);
    expect(record.block).toEqual({ type: 'MA-S', start: '0050C27D5000', end: '0050C27D5FFF', size: 4096 });
    expect(record.vendor).toMatchObject({
      company: 'DEUTA-WERKE GmbH',
      country_code: 'DE',
      country: 'Germany',
      short_name: 'Deuta-Werke',
      is_private: false,
    });
    expect(record.vendor!.address).toBe('Paffrather Strasse 140, Bergisch-Gladbach NRW 51465');
    expect(record.vendor!.total_ouis).toBe(blocksOf('DEUTA-WERKE GmbH', 'DEUTA Werke GmbH'));
    expect(macRecord(engine.lookupMac('40:D8:55:1E:51:23'), 'full').vendor!.company).toBe('IEEE Registration Authority');
  });

  it('a curated vendor counts the blocks of every registrant its rows name: Xiaomi', () => {
    const xiaomi = [...spellings.values()].filter((s) => /xiaomi/i.test(s.name)).reduce((n, s) => n + s.blocks, 0);
    expect(xiaomi).toBeGreaterThan(300);
    for (const mac of ['64:09:80:00:00:01', '28:6C:07:00:00:01']) {
      const vendor = macRecord(engine.lookupMac(mac), 'full').vendor!;
      expect(vendor.short_name, mac).toBe('Xiaomi');
      expect(vendor.total_ouis, mac).toBe(xiaomi);
    }
  });

  it('a private registration: found, no company, counted for none', () => {
    for (const mac of ['10:00:00:12:34:56', '40:D8:55:12:F0:01', 'B4:4B:D6:91:00:00']) {
      const answer = engine.lookupMac(mac);
      const basic = macRecord(answer, 'basic');
      expectShape(basic, macBasicSchema);
      expect(basic.found, mac).toBe(true);
      expect(basic.vendor!.company, mac).toBeNull();
      const full = macRecord(answer, 'full');
      expectShape(full, macFullSchema);
      expect(full.vendor, mac).toMatchObject({ company: null, short_name: null, website: null, total_ouis: null, is_private: true });
      expect(full.block, mac).not.toBeNull();
    }
    expect(macRecord(engine.lookupMac('B4:4B:D6:91:00:00'), 'full').vendor).toMatchObject({
      country_code: 'CN',
      address: expect.stringContaining('Shenzhen'),
    });
  });

  it('total_ouis counts a company across the spellings of its name (and the registrants vendors.csv names as the same vendor: Cisco SPVTG, Huawei Device, Samsung ARTIK)', () => {
    const companies: [string, string[]][] = [
      ['8C:85:90:00:00:00', ['Apple, Inc.']],
      ['00:00:0C:00:00:00', ['Cisco Systems, Inc', 'Cisco SPVTG']],
      ['00:E0:FC:00:00:00', ['HUAWEI TECHNOLOGIES CO.,LTD', 'Huawei Technologies Co., Ltd.', 'Huawei Device Co., Ltd.']],
      [
        '00:00:F0:00:00:00',
        [
          'Samsung Electronics Co.,Ltd',
          'Samsung Electronics Co., Ltd.',
          'Samsung Electronics Co., Ltd',
          'Samsung Electronics.,LTD',
          'SAMSUNG Electronics. Co. LTD',
          'Samsung Electronics',
          'SAMSUNG ELECTRONICS',
          'Samsung Electronics Co., Ltd. ARTIK',
        ],
      ],
      ['00:09:BF:00:00:00', ['Nintendo Co.,Ltd', 'Nintendo Co., Ltd.']],
    ];
    for (const [mac, names] of companies) {
      const vendor = macRecord(engine.lookupMac(mac), 'full').vendor!;
      expect(names, mac).toContain(vendor.company);
      expect(vendor.total_ouis, vendor.company!).toBe(blocksOf(...names));
    }
  });

  it('one curated row covers every spelling of its company', () => {
    const spelled = ['00:09:BF:00:00:00', '38:70:35:00:00:00'].map((mac) => macRecord(engine.lookupMac(mac), 'full').vendor!);
    expect(spelled.map((v) => v.company).sort()).toEqual(['Nintendo Co., Ltd.', 'Nintendo Co.,Ltd']);
    for (const v of spelled)
      expect(v).toMatchObject({
        short_name: 'Nintendo',
        website: 'nintendo.com',
        total_ouis: blocksOf('Nintendo Co.,Ltd', 'Nintendo Co., Ltd.'),
      });
  });

  it('every named vendor has a short name and a count; private ones have neither', () => {
    const table = engine.macTable!;
    for (let row = 0; row < table.companyCount; row++) {
      const c = table.company(row);
      if (c.is_private) expect([c.name, c.short_name, c.website, c.total_ouis], `row ${row}`).toEqual([null, null, null, 0]);
      else if (!c.short_name || !c.name || c.total_ouis < 1) throw new Error(`company row ${row} (${c.name}) lacks a short name or count`);
    }
  });
});

describe('MAC search result', () => {
  it('shapes a table block and company row', () => {
    const table = engine.macTable!;
    const block = table.block(0);
    const company = table.company(block.company);
    const result = macSearchResult(block, { name: company.name!, country_code: company.country_code });
    expect(Object.keys(result)).toEqual(['oui', 'prefix', 'prefix_length', 'registry', 'size', 'company', 'country_code', 'block_type']);
    expect(result.oui).toMatch(/^[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2}$/);
    expect(result.prefix.startsWith(result.oui)).toBe(true);
    expect(result.company).toBe(company.name);
    expect(macSearchResult({ hi24: 0x0050c2, lo24: 0x7d5000, bits: 36, type: 'IAB' }, { name: 'Acme', country_code: null })).toEqual({
      oui: '00:50:C2',
      prefix: '00:50:C2:7D:5',
      prefix_length: 36,
      registry: 'IAB',
      size: 4096,
      company: 'Acme',
      country_code: null,
      block_type: 'MA-S',
    });
    expect(macSearchResult({ hi24: 0x70b3d5, lo24: 0xa00000, bits: 28, type: 'MA-M' }, { name: 'Acme', country_code: 'DE' })).toMatchObject(
      {
        prefix: '70:B3:D5:A',
        prefix_length: 28,
        registry: 'MA-M',
        size: 2 ** 20,
        block_type: 'MA-M',
      },
    );
  });
});
