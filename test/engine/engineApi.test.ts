/**
 * The engine's public API on incomplete or hostile input: every search of an engine loaded without
 * the table it needs answers ApiError unavailable (the WASM search would read unconfigured memory),
 * the WASM hash probe ends on a table without empty slots, and sizes read before validation are
 * checked before memory grows.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompactEngine } from '../../src/engine/compactEngine.js';
import { LookupEngine } from '../../src/engine/lookupEngine.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { instantiateEngine } from '../../src/engine/wasmEngine.js';
import { ApiError } from '../../src/errors.js';
import { compactReserve } from '../../src/tables/format/compactIpTable.js';
import { DIRECTORY_ENTRY, FIXED_HEADER_BYTES, HEADER, SECTION_ALIGN } from '../../src/tables/format/containerLayout.js';
import { IP_SECTION } from '../../src/tables/format/ipTableLayout.js';
import { HASH_SLOT, KEY_PREFIX_LENGTH_SHIFT, NO_ROW } from '../../src/tables/format/macTableLayout.js';
import { writeIpTable } from '../../src/tables/format/ipTable.js';
import { writeMacTable } from '../../src/tables/format/macTable.js';
import { aligned, tinyIp4, tinyMac } from '../tables/tinyTables.js';

const wasm = fs.readFileSync(defaultWasmPath());

function expectUnavailable(call: () => unknown, table: string): void {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('unavailable');
    expect((error as ApiError).message).toBe(`The ${table} table is not loaded.`);
    return;
  }
  throw new Error(`expected unavailable (${table}), the call answered`);
}

describe('an engine without the table a call needs', () => {
  it('answers unavailable from every IP search when only the MAC table is loaded', async () => {
    const engine = await LookupEngine.create(wasm, { mac: aligned(writeMacTable(tinyMac())) });
    expectUnavailable(() => engine.findIPv4(0x08080808), 'IPv4');
    expectUnavailable(() => engine.findIPv4Text('8.8.8.8'), 'IPv4');
    expectUnavailable(() => engine.findIPv6([0x20010db8, 0, 0, 1]), 'IPv6');
    expectUnavailable(() => engine.lookupIp('8.8.8.8'), 'IPv4');
    expectUnavailable(() => engine.lookupIp('2a00:1450::1'), 'IPv6');
    expectUnavailable(() => engine.blockOfIPv6([0x2a001450, 0, 0, 1], 0), 'IPv6');
    expect(engine.lookupMac('00:00:0c:12:34:56').found).toBe(true);
  });

  it('answers unavailable from every MAC search when only an IP table is loaded', async () => {
    const engine = await LookupEngine.create(wasm, { ip4: aligned(writeIpTable(tinyIp4())) });
    expectUnavailable(() => engine.findOuiText('00:00:0c'), 'MAC');
    expectUnavailable(() => engine.lookupMac('00:00:0c:12:34:56'), 'MAC');
    expect(engine.findIPv4Text('81.0.0.1')).toBe(1);
    expect(() => engine.blockOfIPv6([0, 0, 0, 1], 0)).toThrow(ApiError);
  });

  it('the compact engine likewise', async () => {
    const engine = await CompactEngine.create(wasm, {});
    expectUnavailable(() => engine.lookupIp('8.8.8.8'), 'IPv4');
    expectUnavailable(() => engine.lookupIp('2a00:1450::1'), 'IPv6');
    expectUnavailable(() => engine.lookupMac('00:00:0c'), 'MAC');
  });
});

describe('WASM loops and memory on crafted tables', () => {
  it('a hash table without an empty slot ends the probe after one pass', async () => {
    const exports = await instantiateEngine(wasm);
    const slotBits = 4;
    const at = Math.ceil(exports.heapBase() / SECTION_ALIGN) * SECTION_ALIGN;
    const view = new DataView(exports.memory.buffer);
    // every slot holds a key no lookup asks for (prefix length 63), so no probe meets an empty slot
    for (let slot = 0; slot < 2 ** slotBits; slot++) {
      view.setBigUint64(at + slot * HASH_SLOT.bytes + HASH_SLOT.key, (63n << BigInt(KEY_PREFIX_LENGTH_SHIFT)) | BigInt(slot + 1), true);
      view.setUint32(at + slot * HASH_SLOT.bytes + HASH_SLOT.value, NO_ROW, true);
    }
    exports.ouiConfigure(at, slotBits);
    expect(exports.ouiFind(0xabcdef, 0x123456, 48)).toBe(-1);
    expect(exports.ouiFind(0x00000c, 0, 24)).toBe(-1);
  });

  it('refuses a compact IPv6 header whose key section would need more memory than the file holds', () => {
    const head = new Uint8Array(FIXED_HEADER_BYTES + DIRECTORY_ENTRY.bytes);
    const view = new DataView(head.buffer);
    const directory = (count: number, offset: number, length: number) => {
      head.set(new TextEncoder().encode(IP_SECTION.keysHigh), FIXED_HEADER_BYTES + DIRECTORY_ENTRY.id);
      view.setUint32(FIXED_HEADER_BYTES + DIRECTORY_ENTRY.count, count, true);
      view.setUint32(FIXED_HEADER_BYTES + DIRECTORY_ENTRY.offset, offset, true);
      view.setUint32(FIXED_HEADER_BYTES + DIRECTORY_ENTRY.byteLength, length, true);
    };
    view.setUint32(HEADER.sectionCount, 1, true);
    view.setUint32(HEADER.fileLengthLow, 4096, true);
    directory(2 ** 30, 64, 8);
    expect(() => compactReserve(6, head, 'crafted.nlt')).toThrow(
      /^crafted\.nlt: section KEYH \(1073741824 keys, 8 bytes at 64\) does not fit the file$/,
    );
    directory(1000, 64, 8000);
    expect(() => compactReserve(6, head, 'crafted.nlt')).toThrow(/does not fit the file/);
    directory(100, 64, 800);
    expect(compactReserve(6, head, 'crafted.nlt')).toBe(800);
  });
});
