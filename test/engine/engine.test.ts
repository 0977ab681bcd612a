import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { LiveEngine } from '../../src/engine/liveEngine.js';
import fc from 'fast-check';
import { cidrPrefixWithin, LookupEngine } from '../../src/engine/lookupEngine.js';
import { defaultTablesDir, defaultWasmPath, loadEngine } from '../../src/engine/node.js';
import { writeIpTable } from '../../src/tables/format/ipTable.js';
import { NONE } from '../../src/tables/format/ipTableLayout.js';
import { writeMacTable } from '../../src/tables/format/macTable.js';
import { TABLE_FILES } from '../../src/tables/tableFiles.js';
import { tinyIp4, tinyIp6, tinyMac } from '../tables/tinyTables.js';

const wasm = fs.readFileSync(defaultWasmPath());

describe('engine over tiny tables', () => {
  let engine: LookupEngine;
  beforeAll(async () => {
    engine = await LookupEngine.create(wasm, { ip4: writeIpTable(tinyIp4()), ip6: writeIpTable(tinyIp6()), mac: writeMacTable(tinyMac()) });
  });

  it('finds the range of every boundary address', () => {
    const cases: [number, number][] = [
      [0, 0],
      [0x50ffffff, 0],
      [0x51000000, 1],
      [0x510000ff, 1],
      [0x51000100, 2],
      [0x51ffffff, 2],
      [0x52000000, 3],
      [0xffffffff, 3],
    ];
    for (const [address, range] of cases) expect(engine.findIPv4(address)).toBe(range);
  });

  it('finds IPv6 ranges on both sides of 128-bit boundaries', () => {
    expect(engine.findIPv6([0x2a00144f, 0xffffffff, 0xffffffff, 0xffffffff])).toBe(0);
    expect(engine.findIPv6([0x2a001450, 0, 0, 0])).toBe(1);
    expect(engine.findIPv6([0x2a001450, 0xffffffff, 0xffffffff, 0xffffffff])).toBe(1);
    expect(engine.findIPv6([0x2a001451, 0, 0, 0])).toBe(2);
    expect(engine.findIPv6([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff])).toBe(2);
  });

  it('answers block, network and location from the rows', () => {
    const answer = engine.answerIPv4(0x51000005);
    expect(answer.status).toBe('found');
    expect(answer.location?.city).toBe('Berlin');
    expect(answer.network).toEqual({
      asn: 3320,
      organization: 'Deutsche Telekom AG',
      domain: 'telekom.de',
      connection_type: 'residential',
      asn_name: 'DTAG',
      isp: 'Telekom',
      org_domain: null,
      holding: null,
      holding_domain: null,
      datacenter_address: null,
      datacenter_country: null,
    });
    expect(answer.block).toEqual({ start: '81.0.0.0', end: '81.0.0.255', size: 256, prefix: null });
    expect(answer.country?.name).toBe('Germany');
    const noNetwork = engine.answerIPv4(0x51000105);
    expect(noNetwork.block).toEqual({ start: '81.0.1.0', end: '81.255.255.255', size: 0x52000000 - 0x51000100, prefix: null });
    expect(engine.answerIPv4(0x52000001).status).toBe('not_found');
  });

  it('picks the most specific MAC block and respects how many digits were given', () => {
    expect(engine.lookupMac('70:B3:D5:00:10:01').vendor?.company).toBe('Tiny MA-S GmbH');
    expect(engine.lookupMac('70:B3:D5:00:20:01').vendor?.company).toBe('IEEE Registration Authority');
    expect(engine.lookupMac('70B3D5').vendor?.company).toBe('IEEE Registration Authority');
    expect(engine.lookupMac('70B3D5001').block).toMatchObject({ type: 'MA-S', start: '70B3D5001000', end: '70B3D5001FFF', size: 4096 });
    expect(engine.lookupMac('1C:87:74:1A:BC:DE').vendor?.company).toBe('SIGFOX');
    expect(engine.lookupMac('1C:87:74:2A:BC:DE').found).toBe(false);
    expect(engine.lookupMac('1C8774').found).toBe(false);
    expect(engine.lookupMac('52:54:00:12:34:56')).toMatchObject({
      found: false,
      is_local: true,
      is_randomized: true,
      vm_platform: 'QEMU/KVM',
    });
  });
});

describe('IPv4 search over crowded buckets', () => {
  // Ranges of 3 addresses from 81.0.0.0 (a few hundred in each bucket of the 20-bit index, the
  // binary search's longest case), then one range per /8 from 96.0.0.0 to 127.0.0.0.
  const dense = Array.from({ length: 1500 }, (_, i) => 0x51000000 + 3 * i);
  const sparse = Array.from({ length: 32 }, (_, i) => (0x60 + i) * 0x01000000);
  const keys = Uint32Array.from([0, ...dense, ...sparse]);
  /** reference: the last key at or below the address, by a plain scan */
  const reference = (address: number) => {
    let range = 0;
    while (range + 1 < keys.length && keys[range + 1] <= address) range++;
    return range;
  };
  let engine: LookupEngine;
  beforeAll(async () => {
    const rows = Uint32Array.from(keys, (_, i) => (i % 3 === 2 ? NONE : i % 3));
    engine = await LookupEngine.create(wasm, {
      ip4: writeIpTable({ ...tinyIp4(), keys, rangeLocation: rows, rangeNetwork: keys.map(() => NONE) }),
    });
  });

  it('finds the range of every address, wherever it falls', () => {
    let seed = 777;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const shapes: Record<string, (n: number) => Uint32Array> = {
      uniform: (n) => Uint32Array.from({ length: n }, next),
      'in the dense ranges': (n) => Uint32Array.from({ length: n }, () => 0x51000000 + (next() % (3 * dense.length + 10))),
      'the ends of the space': (n) => Uint32Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 0 : 0xffffffff)),
    };
    for (const [shape, make] of Object.entries(shapes)) {
      for (const address of make(5000)) {
        const range = engine.findIPv4(address);
        if (range !== reference(address)) expect.fail(`${shape}: ${address} gave ${range}, not ${reference(address)}`);
      }
    }
  });
});

describe('IPv6 block prefix', () => {
  const words = (n: bigint) =>
    Uint32Array.of(Number(n >> 96n), Number((n >> 64n) & 0xffffffffn), Number((n >> 32n) & 0xffffffffn), Number(n & 0xffffffffn));
  /** reference: try every prefix from the shortest, with BigInt arithmetic */
  const reference = (start: bigint, end: bigint, address: bigint) => {
    for (let prefix = 0; prefix <= 128; prefix++) {
      const size = 1n << BigInt(128 - prefix);
      const first = (address / size) * size;
      if (first >= start && first + size - 1n <= end) return prefix;
    }
    return 128;
  };

  it('is the largest CIDR block within the network that holds the address', () => {
    const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    fc.assert(
      fc.property(u128, u128, fc.bigInt({ min: 0n, max: 1n << 64n }), (a, b, offset) => {
        const start = a < b ? a : b;
        const end = a < b ? b : a;
        const address = start + (offset % (end - start + 1n));
        expect(cidrPrefixWithin(words(start), words(end), words(address))).toBe(reference(start, end, address));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('MAC bit classification', () => {
  it('reads the I/G and U/L bits of the first octet', async () => {
    const engine = await LookupEngine.create(wasm, { mac: writeMacTable(tinyMac()) });
    const firsts = Array.from({ length: 256 }, (_, b) => b);
    for (const b of firsts) {
      const multicast = (b & 1) === 1;
      const local = (b & 2) === 2;
      const answer = engine.lookupMac(`${b.toString(16).padStart(2, '0')}:00:00:00:00:01`);
      expect([answer.is_multicast, answer.is_local, answer.is_randomized]).toEqual([multicast, local, local && !multicast]);
    }
  });
});

describe('engine over the built tables', () => {
  let engine: LookupEngine;
  beforeAll(async () => {
    engine = await loadEngine();
  });

  it('answers well-known addresses', () => {
    const google = engine.lookupIp('8.8.8.8');
    expect(google).toMatchObject({ ip: '8.8.8.8', version: 4, status: 'found', network: { asn: 15169, organization: 'Google LLC' } });
    expect(google.location?.country_code).toBe('US');
    expect(google.location?.timezone).toMatch(/^America\//);
    expect(google.country?.continent_code).toBe('NA');
    const v6 = engine.lookupIp('2001:4860:4860:0:0:0:0:8888');
    expect(v6).toMatchObject({ ip: '2001:4860:4860::8888', version: 6, status: 'found', network: { asn: 15169 } });
    expect(v6.block?.prefix).toBeGreaterThan(0);
  });

  it('answers IPv4-mapped IPv6 as the IPv4 it embeds', () => {
    const mapped = engine.lookupIp('::ffff:8.8.8.8');
    expect(mapped).toEqual(engine.lookupIp('8.8.8.8'));
  });

  it('answers special-purpose space without a table lookup', () => {
    expect(engine.lookupIp('192.168.1.1')).toMatchObject({ status: 'reserved', reserved: { type: 'private' }, range: -1 });
    expect(engine.lookupIp('fe80::1')).toMatchObject({ status: 'reserved', reserved: { type: 'link_local' } });
    expect(engine.lookupIp('100.64.0.1')).toMatchObject({ status: 'reserved', reserved: { type: 'cgnat' } });
  });

  it('answers not_found for a public address that no table covers', () => {
    // DB-IP covers every public IPv4 address, so the gaps are in IPv6 (e.g. unallocated 2000::/3 space).
    const table = engine.ip6!;
    const start = new Uint32Array(4);
    let answer = null;
    for (let i = 0; i < table.rangeCount && answer === null; i++) {
      if (table.rangeLocation[i] !== NONE || table.rangeNetwork[i] !== NONE) continue;
      table.rangeStart(i, start);
      const candidate = engine.answerIPv6(start);
      if (candidate.status !== 'reserved') answer = candidate;
    }
    expect(answer).toMatchObject({ status: 'not_found', location: null, network: null, block: null });
  });

  it('refuses what is not an address with invalid_ip and invalid_mac', () => {
    for (const bad of ['', '1.2.3', '01.2.3.4', 'fe80::1%eth0', '::ffff:1.2.3.4.5', 'example.com']) {
      expect(() => engine.lookupIp(bad)).toThrow(ApiError);
      try {
        engine.lookupIp(bad);
      } catch (e) {
        expect((e as ApiError).code).toBe('invalid_ip');
      }
    }
    expect(() => engine.lookupMac('00:11')).toThrowError(expect.objectContaining({ code: 'invalid_mac' }));
  });

  it('lists its tables with their checksums and sources', () => {
    const tables = engine.tables();
    expect(tables.map((t) => t.kind)).toEqual(['ip4', 'ip6', 'mac']);
    for (const t of tables) {
      expect(t.checksum).toMatch(/^[0-9a-f]{16}$/);
      expect(t.meta.sources.length).toBeGreaterThan(0);
    }
    expect(tables[0].meta.sources.map((s) => s.attribution).join(' ')).toMatch(/DB-IP/);
    expect(tables[2].meta.sources.map((s) => s.attribution).join(' ')).toMatch(/IEEE/);
  });
});

describe('hot reload', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-reload-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the good tables when the new ones are bad, and swaps when they are good', async () => {
    const tiny = path.join(dir, 'tiny');
    fs.mkdirSync(tiny);
    fs.writeFileSync(path.join(tiny, TABLE_FILES.ip4), writeIpTable(tinyIp4()));
    fs.writeFileSync(path.join(tiny, TABLE_FILES.mac), writeMacTable(tinyMac()));
    let source = tiny;
    const live = new LiveEngine(await loadEngine({ tablesDir: tiny, kinds: ['ip4', 'mac'] }), () =>
      loadEngine({ tablesDir: source, kinds: ['ip4', 'mac'] }),
    );
    const before = live.engine;
    expect(before.lookupIp('81.0.0.1').location?.city).toBe('Berlin');

    const broken = path.join(dir, 'broken');
    fs.mkdirSync(broken);
    const real = fs.readFileSync(path.join(defaultTablesDir(), TABLE_FILES.ip4));
    real[real.length >> 1] ^= 0x10;
    fs.writeFileSync(path.join(broken, TABLE_FILES.ip4), real);
    fs.copyFileSync(path.join(tiny, TABLE_FILES.mac), path.join(broken, TABLE_FILES.mac));
    source = broken;
    await expect(live.reload()).rejects.toThrow(
      new RegExp(`^${path.join(broken, TABLE_FILES.ip4).replace(/[/.]/g, '\\$&')}: checksum mismatch`),
    );
    expect(live.engine).toBe(before);
    expect(live.engine.lookupIp('81.0.0.1').location?.city).toBe('Berlin');

    source = defaultTablesDir();
    await live.reload();
    expect(live.engine).not.toBe(before);
    expect(live.engine.lookupIp('8.8.8.8').network?.asn).toBe(15169);
  });
});
