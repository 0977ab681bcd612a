import { beforeAll, describe, expect, it } from 'vitest';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { macRecord, macSearchResult, type MacRecordFull } from '../../src/records/macRecord.js';
import { macBasicSchema, macFullSchema, shapeErrors, type Schema } from './schema.js';

let engine: LookupEngine;
beforeAll(async () => {
  engine = await loadEngine({ kinds: ['mac'] });
});

function expectShape(value: unknown, schema: Schema): void {
  expect(shapeErrors(value, schema)).toEqual([]);
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

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

describe('MAC search result', () => {
  it('shapes a table block and company row', () => {
    const table = engine.macTable!;
    const block = table.block(0);
    const company = table.company(block.company);
    const result = macSearchResult(block, company);
    expect(Object.keys(result)).toEqual(['oui', 'company', 'country_code', 'block_type']);
    expect(result.oui).toMatch(/^[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2}$/);
    expect(result.company).toBe(company.name);
    expect(macSearchResult({ hi24: 0x0050c2, type: 'IAB' }, { name: 'Acme', country_code: null })).toEqual({
      oui: '00:50:C2',
      company: 'Acme',
      country_code: null,
      block_type: 'MA-S',
    });
  });
});
