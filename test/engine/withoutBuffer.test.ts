/**
 * The engine where there is no Node Buffer (edge runtimes, browsers given the full tables): the
 * record writer then reads its output with TextDecoder, in UTF-8 rather than Latin-1, and places a
 * record's ending byte by byte. A child process without `globalThis.Buffer` renders records of
 * the built tables, with and without an ending; they must equal what this process renders with
 * Buffer (which the other record tests hold equal to the object path).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseIp } from '../../src/address/ipAddress.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { withEnding } from '../../src/engine/recordText.js';
import { IpRecordRenderer } from '../../src/records/ipRecordJson.js';
import { macRecordJson } from '../../src/records/macRecordJson.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENDING = ',"meta":{"plan":"business","fields":"full","quota":{"limit":1000000,"used":1,"remaining":999999}}}';
const INSTANT = Date.UTC(2026, 10, 25, 7, 31, 12);

/**
 * What the child runs: Buffer gone before the engine's modules load. It loads the compiled modules
 * (dist/) with no loader: on Node 24 tsx's hooks run in the importing thread and need Buffer there.
 */
const CHILD = `
delete globalThis.Buffer;
const [{ loadEngine }, { parseIp }, { IpRecordRenderer }, { macRecordJson }, fs] = await Promise.all([
  import(${JSON.stringify(path.join(ROOT, 'dist/engine/node.js'))}),
  import(${JSON.stringify(path.join(ROOT, 'dist/address/ipAddress.js'))}),
  import(${JSON.stringify(path.join(ROOT, 'dist/records/ipRecordJson.js'))}),
  import(${JSON.stringify(path.join(ROOT, 'dist/records/macRecordJson.js'))}),
  import('node:fs'),
]);
const { ips, macs, ending, instant } = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const engine = await loadEngine();
const renderer = new IpRecordRenderer();
const now = new Date(instant);
const out = [];
for (const text of ips) for (const level of ['basic', 'full']) for (const e of ['', ending]) out.push(renderer.render(engine, parseIp(text), level, now, undefined, e));
for (const text of macs) for (const level of ['basic', 'full']) for (const e of ['', ending]) out.push(macRecordJson(engine, text, level, e));
process.stdout.write(JSON.stringify({ buffer: typeof globalThis.Buffer, out }));
`;

/** Seeded public-looking IPv4 addresses (a fixed LCG: the same list every run). */
function addresses(count: number): string[] {
  const list: string[] = [];
  let x = 12345;
  while (list.length < count) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const first = 1 + ((x >>> 24) % 223);
    if (first === 10 || first === 127) continue;
    list.push(`${first}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${1 + (x % 254)}`);
  }
  return list;
}

describe('the engine without Node Buffer', () => {
  let engine: LookupEngine;
  beforeAll(async () => {
    engine = await loadEngine();
  });

  it('renders the records of the built tables as with Buffer, ending or not, in every form of text', () => {
    const ips = [...addresses(3000), '200.147.67.142', '2a00:1450:4001::1', '2001:4860:4860::8888', '::1', '10.0.0.1'];
    const macs = ['00:00:0c:12:34:56', '70b3.d500.1abc', '525400123456', '1c-87-74-10-00-01', 'ff:ff:ff:ff:ff:ff', '00000c1'];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-without-buffer-'));
    try {
      const inputs = path.join(dir, 'inputs.json');
      const script = path.join(dir, 'child.mjs');
      fs.writeFileSync(inputs, JSON.stringify({ ips, macs, ending: ENDING, instant: INSTANT }));
      fs.writeFileSync(script, CHILD);
      const child = spawnSync(process.execPath, [script, inputs], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
      expect(child.stderr).toBe('');
      const { buffer, out } = JSON.parse(child.stdout) as { buffer: string; out: string[] };
      expect(buffer).toBe('undefined');

      const renderer = new IpRecordRenderer();
      const now = new Date(INSTANT);
      const expected: string[] = [];
      for (const text of ips)
        for (const level of ['basic', 'full'] as const) {
          const json = renderer.render(engine, parseIp(text)!, level, now);
          expected.push(json, withEnding(json, ENDING));
        }
      for (const text of macs)
        for (const level of ['basic', 'full'] as const) {
          const json = macRecordJson(engine, text, level);
          expected.push(json, withEnding(json, ENDING));
        }
      expect(out).toEqual(expected);
      // the records went through each of the writer's forms: Latin-1 at most, and beyond
      const widest = (json: string) => Math.max(...[...json].map((c) => c.codePointAt(0)!));
      expect(expected.some((json) => widest(json) > 0x7f && widest(json) <= 0xff)).toBe(true);
      expect(expected.some((json) => widest(json) > 0xff)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
