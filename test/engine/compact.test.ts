/**
 * The compact sets answer as the full tables do, reduced: for addresses at, inside and just
 * before every sampled range boundary of the real tables, country and network of the compact
 * engine equal the full engine's; MAC answers are equal except the company address. The readers
 * refuse what is not a compact table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompactEngine } from '../../src/engine/compactEngine.js';
import { LookupEngine } from '../../src/engine/lookupEngine.js';
import { defaultCompactDir, defaultWasmPath, loadEngine } from '../../src/engine/node.js';
import { formatIPv4, formatIPv6 } from '../../src/address/ipAddress.js';
import { compactIpTable, compactMacTable } from '../../src/tables/build/compactTables.js';
import { COMPACT_FILES } from '../../src/tables/format/compactManifest.js';
import { CompactIpTable, compactReserve } from '../../src/tables/format/compactIpTable.js';
import { IpTable, writeIpTable } from '../../src/tables/format/ipTable.js';
import { MacTable, writeMacTable } from '../../src/tables/format/macTable.js';
import { tinyIp4, tinyIp6, tinyMac } from '../tables/tinyTables.js';

const wasm = fs.readFileSync(defaultWasmPath());

function reduced(full: LookupEngine, text: string) {
  const a = full.lookupIp(text);
  const network = a.network && { asn: a.network.asn, organization: a.network.organization };
  return {
    ip: a.ip,
    version: a.version,
    status: a.status,
    reserved: a.reserved,
    country_code: a.location?.country_code ?? null,
    country: a.country,
    network,
  };
}

function withoutAddress(answer: ReturnType<LookupEngine['lookupMac']>) {
  if (!answer.vendor) return answer;
  const { address: _address, ...vendor } = answer.vendor;
  return { ...answer, vendor };
}

describe('compact sets of tiny tables', () => {
  let full: LookupEngine;
  let compact: CompactEngine;
  const now = new Date('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    const ip4 = writeIpTable(tinyIp4());
    const ip6 = writeIpTable(tinyIp6());
    const mac = writeMacTable(tinyMac());
    full = await LookupEngine.create(wasm, { ip4, ip6, mac });
    compact = await CompactEngine.create(wasm, {
      ip4: compactIpTable(new IpTable(ip4, 'ip4', 4), now).bytes,
      ip6: compactIpTable(new IpTable(ip6, 'ip6', 6), now).bytes,
      mac: compactMacTable(new MacTable(mac, 'mac'), now).bytes,
    });
  });

  it('answers every tiny range as the full table, reduced', () => {
    const inputs = [
      '0.0.0.1',
      '81.0.0.1',
      '81.0.1.0',
      '81.255.255.255',
      '82.0.0.0',
      '255.255.255.254',
      '10.0.0.1',
      '2a00:1450::1',
      '2a00:1451::',
      '2a00:144f::',
      'fe80::1',
      '::ffff:81.0.0.1',
    ];
    for (const text of inputs) expect(compact.lookupIp(text), text).toEqual(reduced(full, text));
  });

  it('answers MACs as the full table, without the company address', () => {
    for (const text of ['00:00:0C:12:34:56', '00000C', 'FFFFFF', '02:00:00:00:00:01']) {
      expect(compact.lookupMac(text), text).toEqual(withoutAddress(full.lookupMac(text)));
    }
    expect(() => compact.lookupMac('nope')).toThrow(/MAC/);
    expect(() => compact.lookupIp('1.2.3')).toThrow(/IP/);
  });

  it('refuses a full table as a compact one and a compact MAC table carrying addresses', () => {
    const ip4 = writeIpTable(tinyIp4());
    expect(() => new CompactIpTable(ip4, 'ip4.nlt', 4)).toThrow(/wrong table kind: holds ip4, expected ip4c/);
    expect(() => new MacTable(writeMacTable(tinyMac()), 'x.nlt', undefined, 'macc')).toThrow(/expected macc/);
    const ip6c = compactIpTable(new IpTable(writeIpTable(tinyIp6()), 'ip6', 6), new Date()).bytes;
    const table = new CompactIpTable(ip6c, 'ip6c.nlt', 6);
    expect(table.header.sections.has('KEYL')).toBe(false);
    expect(table.keysLo!.length).toBe(table.rangeCount * 2);
    expect(() => compactReserve(6, ip6c.subarray(0, 50), 'ip6c.nlt')).toThrow(/directory is not in the bytes/);
    expect(compactReserve(6, ip6c, 'ip6c.nlt')).toBe(table.rangeCount * 8);
    const withAddress = writeMacTable(tinyMac(), 'macc');
    expect(() => new MacTable(withAddress, 'macc.nlt', undefined, 'macc')).toThrow(/carries an address/);
  });
});

describe('compact sets of the real tables', () => {
  let full: LookupEngine;
  let compact: CompactEngine;
  beforeAll(async () => {
    const dir = defaultCompactDir();
    full = await loadEngine();
    const read = (kind: keyof typeof COMPACT_FILES) => new Uint8Array(fs.readFileSync(path.join(dir, COMPACT_FILES[kind])));
    compact = await CompactEngine.create(wasm, { ip4: read('ip4c'), ip6: read('ip6c'), mac: read('macc') });
  });

  it('IPv4: the same country and network at, inside and before sampled range boundaries', () => {
    const keys = full.ip4!.keys!;
    let compared = 0;
    for (let i = 1; i < keys.length; i += 97) {
      for (const address of [keys[i], keys[i] - 1, keys[i] + ((keys[i + 1] ?? 0xffffffff) - keys[i]) / 2]) {
        const text = formatIPv4(address >>> 0);
        expect(compact.lookupIp(text), text).toEqual(reduced(full, text));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it('IPv6: the same country and network at and before sampled range boundaries', () => {
    const table = full.ip6!;
    const words = new Uint32Array(4);
    let compared = 0;
    for (let i = 1; i < table.rangeCount; i += 97) {
      table.rangeStart(i, words);
      const start = formatIPv6(words);
      for (let w = 3; w >= 0; w--) {
        words[w] = (words[w] - 1) >>> 0;
        if (words[w] !== 0xffffffff) break;
      }
      for (const text of [start, formatIPv6(words)]) {
        expect(compact.lookupIp(text), text).toEqual(reduced(full, text));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(80_000);
  });

  it('MAC: every block answers as the full table, without the company address', () => {
    const table = full.macTable!;
    for (let row = 0; row < table.blockCount; row++) {
      const b = table.block(row);
      const text = (b.hi24 * 0x1000000 + b.lo24).toString(16).padStart(12, '0');
      expect(compact.lookupMac(text), text).toEqual(withoutAddress(full.lookupMac(text)));
    }
  });
});
