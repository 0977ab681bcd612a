/**
 * The edge example (src/web/edge.ts) as built for edge runtimes (dist/browser/edge.js, ESM, no
 * `node:` imports), run under Node's own Request/Response: its default export fetches the WASM
 * module and the compact IP set (.gz files, decoded by DecompressionStream) from a running
 * service's /demo/ and answers country and AS of the caller's address as the full engine does.
 * The browser bundle also loads tables given as bytes and as .nlt URLs (gzip Content-Encoding),
 * and a security feed table (bytes, or a .nlt.gz URL) whose flags it adds to IP answers.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { securityTableRanges, unroutableSpace } from '../../src/feeds/build/feedTables.js';
import { writeFeedTable } from '../../src/feeds/format/feedTable.js';
import { feedState } from '../feeds/feedState.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngine } from '../../src/engine/node.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';
import { Harness, projectRoot } from '../http/harness.js';

const bundle = (name: string) => path.join(projectRoot, 'dist', 'browser', name);
type Json = any;

describe('the edge fetch handler', () => {
  let harness: Harness;
  let full: LookupEngine;
  let edge: {
    default: { fetch(request: Request, env?: Json): Promise<Response> };
    edgeHandler: Json;
    callerAddress(r: Request): string | null;
  };
  let web: Json;
  let env: { NETLOOKUP_ASSETS: string };

  beforeAll(async () => {
    for (const name of ['edge.js', 'netlookup.js']) {
      if (!fs.existsSync(bundle(name))) throw new Error(`${bundle(name)} is missing: run \`npm run build:web\``);
      const source = fs.readFileSync(bundle(name), 'utf8');
      expect(source, `${name} imports a node: module`).not.toMatch(/from\s*["']node:|import\(\s*["']node:|require\(/);
    }
    edge = await import(bundle('edge.js'));
    web = await import(bundle('netlookup.js'));
    harness = await Harness.start();
    env = { NETLOOKUP_ASSETS: `${harness.url}/demo/` };
    full = await loadEngine();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  const ask = async (headers: Record<string, string>, init: RequestInit = {}) => {
    const response = await edge.default.fetch(new Request('https://edge.example/', { headers, ...init }), env);
    expect(response).toBeInstanceOf(Response);
    return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
  };

  it("answers the caller's country and AS as the full engine does", async () => {
    for (const [header, value, address] of [
      ['cf-connecting-ip', '8.8.8.8', '8.8.8.8'],
      ['x-real-ip', '81.2.69.160', '81.2.69.160'],
      ['x-forwarded-for', '2001:4860:4860::8888, 10.0.0.1', '2001:4860:4860::8888'],
      ['cf-connecting-ip', '2a00:1450:4001:80b::200e', '2a00:1450:4001:80b::200e'],
    ]) {
      const reply = await ask({ [header]: value });
      const expected = full.lookupIp(address);
      expect(reply.status).toBe(200);
      expect(reply.type).toBe('application/json; charset=utf-8');
      expect(reply.body, value).toEqual({
        success: true,
        ip: expected.ip,
        version: expected.version,
        status: 'found',
        country_code: expected.location?.country_code ?? null,
        country: expected.country?.name ?? null,
        asn: expected.network?.asn ?? null,
        organization: expected.network?.organization ?? null,
      });
    }
    expect((await ask({ 'cf-connecting-ip': '8.8.8.8' })).body).toMatchObject({ country_code: 'US', asn: 15169 });
  });

  it('says reserved for special-purpose callers and refuses what is not an address', async () => {
    expect((await ask({ 'x-forwarded-for': '10.1.2.3' })).body).toMatchObject({
      success: true,
      status: 'reserved',
      country_code: null,
      asn: null,
    });
    expect(await ask({})).toMatchObject({
      status: 400,
      body: { success: false, error: { code: 'invalid_ip', message: 'The runtime gave no caller address.' } },
    });
    expect(await ask({ 'cf-connecting-ip': 'localhost' })).toMatchObject({
      status: 400,
      body: { success: false, error: { code: 'invalid_ip' } },
    });
    expect(await ask({ 'cf-connecting-ip': '8.8.8.8' }, { method: 'POST', body: '{}' })).toMatchObject({
      status: 405,
      body: { error: { code: 'method_not_allowed' } },
    });
  });

  it('the handler over an engine loaded from bytes, and tables fetched with gzip Content-Encoding', async () => {
    const read = (file: string) => fs.readFileSync(path.join(projectRoot, 'dist', 'demo', file));
    const fromBytes = await web.loadCompactEngine({
      wasm: read('netlookup.wasm'),
      ip4: read('tables/ip4c.nlt'),
      ip6: new Uint8Array(read('tables/ip6c.nlt')).buffer,
    });
    const handler = edge.edgeHandler(async () => fromBytes);
    const reply = await handler.fetch(new Request('https://edge.example/', { headers: { 'cf-connecting-ip': '1.1.1.1' } }));
    expect(await reply.json()).toMatchObject({ ip: '1.1.1.1', asn: 13335, country_code: full.lookupIp('1.1.1.1').location?.country_code });
    const fromUrls = await web.loadCompactEngine({
      wasm: `${env.NETLOOKUP_ASSETS}netlookup.wasm`,
      ip4: `${env.NETLOOKUP_ASSETS}tables/ip4c.nlt`,
      mac: `${env.NETLOOKUP_ASSETS}tables/macc.nlt`,
    });
    expect(fromUrls.lookupIp('1.1.1.1')).toEqual(fromBytes.lookupIp('1.1.1.1'));
    expect(fromUrls.lookupMac('00:00:0c:12:34:56').vendor.company).toBe(full.lookupMac('00:00:0c:12:34:56').vendor!.company);
    await expect(web.loadCompactEngine({ wasm: read('netlookup.wasm'), ip4: `${env.NETLOOKUP_ASSETS}tables/nothing.nlt` })).rejects.toThrow(
      /nothing\.nlt: HTTP 404/,
    );
    // The full tables in the same build: the server's answers exactly.
    const tables = path.join(projectRoot, 'data', 'tables');
    const fullWeb = await web.loadEngine({
      wasm: read('netlookup.wasm'),
      ip4: fs.readFileSync(path.join(tables, 'ip4.nlt')),
      mac: fs.readFileSync(path.join(tables, 'mac.nlt')),
    });
    for (const ip of ['8.8.8.8', '81.2.69.160', '10.0.0.1']) expect(fullWeb.lookupIp(ip)).toEqual(full.lookupIp(ip));
    expect(fullWeb.lookupMac('00:00:0c:12:34:56')).toEqual(full.lookupMac('00:00:0c:12:34:56'));
    await expect(web.loadCompactEngine({ wasm: read('netlookup.wasm'), ip4: `${env.NETLOOKUP_ASSETS}tables/macc.nlt` })).rejects.toThrow(
      /wrong table kind: holds macc, expected ip4c/,
    );
  });

  it('adds the flags of a security feed table given as bytes or as a .nlt.gz URL', async () => {
    const read = (file: string) => fs.readFileSync(path.join(projectRoot, 'dist', 'demo', file));
    const staleAfter = new Date(Date.now() + 3600_000).toISOString();
    const security = writeFeedTable({
      meta: {
        feed_kind: 'security',
        built_at: new Date().toISOString(),
        feeds: [
          feedState('tor-bulk-exits', 'tor', { name: 'Tor bulk exit list', fetched_at: new Date().toISOString(), stale_after: staleAfter }),
        ],
      },
      builtAt: new Date(),
      ...securityTableRanges(
        [{ says: 'tor', listing: { date: null, ranges: [{ family: 4, start: 0x5d5fe6fdn, end: 0x5d5fe6fdn, provider: null }] } }],
        {
          everywhere: unroutableSpace(),
          proxies: [],
        },
      ),
    });
    const gzip = gzipSync(security);
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(gzip));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/security.nlt.gz`;
      for (const source of [security, url]) {
        const engine = await web.loadCompactEngine({ wasm: read('netlookup.wasm'), ip4: read('tables/ip4c.nlt'), security: source });
        expect(engine.lookupIp('93.95.230.253').security).toEqual({
          is_tor: true,
          is_vpn: null,
          vpn_provider: null,
          is_proxy: null,
          listed_by: ['Tor bulk exit list'],
        });
        expect(engine.lookupIp('8.8.8.8').security).toMatchObject({ is_tor: false, listed_by: [] });
        expect(engine.securityFeeds()[0].stale_after).toBe(staleAfter);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
