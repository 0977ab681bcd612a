/**
 * The demo page in real Chromium (Debian's, driven by playwright-core): loaded from the running
 * service at /demo/, it looks up pasted IPs and MACs with the WASM engine in the page, and its
 * answers must equal the service's v1 answers for the same inputs (the v1 records' country, AS
 * number and organisation for IPs; every MAC record field the compact set carries). No request
 * leaves the page while it answers. A screenshot goes to bench/results/demo-page.png.
 * Where Chromium cannot start, the suite is skipped with the reason in the test's name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Harness, projectRoot } from '../http/harness.js';
import { launchChromium } from './chromium.js';

const launched = await launchChromium();
const browser: Browser | null = 'browser' in launched ? launched.browser : null;
const skipReason = 'reason' in launched ? launched.reason : '';

const IPS = [
  '8.8.8.8',
  '1.1.1.1',
  '81.2.69.160',
  '9.9.9.9',
  '185.199.108.153',
  '41.204.32.1',
  '200.160.2.3',
  '103.10.124.1',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '2606:4700:4700::1111',
  '2c0f:fb50:4003::1',
  '::ffff:8.8.4.4',
  '10.0.0.1',
  '192.0.2.7',
  'fe80::1',
  '100.64.0.1',
  // one address in each /8 (a spread over the IPv4 space, found and not found alike)
  ...Array.from({ length: 223 }, (_, i) => `${i + 1}.${(i * 37) % 256}.${(i * 91) % 256}.${(i * 53) % 256}`).filter((_, i) => i % 4 === 0),
];
const MACS = [
  '00:00:0c:12:34:56',
  '00:50:C2:7D:51:23',
  '10:00:00:12:34:56',
  '52:54:00:12:34:56',
  '02:42:ac:11:00:02',
  'fc:fb:fb:01:02:03',
  '70:B3:D5:00:10:00',
  '3C-22-FB-12-34-56',
  '001b63',
  'ff:ff:ff:ff:ff:ff',
  '0050.5600.0001',
];

type Json = any;

/** The v1 IP record reduced to what the compact set answers. */
function serverIp(body: Json) {
  if (body.reserved)
    return { ip: body.ip, status: 'reserved', reserved: body.reserved_type, country_code: null, asn: null, organization: null };
  if (body.found === false) return { ip: body.ip, status: 'not_found', reserved: null, country_code: null, asn: null, organization: null };
  return {
    ip: body.ip,
    status: 'found',
    reserved: null,
    country_code: body.location.country_code,
    country: body.location.country,
    asn: body.network.asn,
    organization: body.network.organization,
  };
}

function pageIp(answer: Json) {
  const base = {
    ip: answer.ip,
    status: answer.status,
    reserved: answer.reserved?.type ?? null,
    country_code: answer.country_code,
    asn: answer.network?.asn ?? null,
    organization: answer.network?.organization ?? null,
  };
  return answer.status === 'found' ? { ...base, country: answer.country?.name ?? null } : base;
}

/** The v1 MAC record (full level) less what the compact set leaves out (the company address) or never knows. */
function serverMac(body: Json) {
  const vendor = body.vendor && {
    company: body.vendor.company,
    country_code: body.vendor.country_code,
    country: body.vendor.country,
    short_name: body.vendor.short_name,
    website: body.vendor.website,
    total_ouis: body.vendor.total_ouis,
    is_private: body.vendor.is_private,
  };
  return {
    found: body.found,
    oui: body.oui,
    normalized: body.normalized,
    is_multicast: body.is_multicast,
    is_local: body.is_local,
    is_randomized: body.is_randomized,
    vendor,
    block: body.block,
    vm_platform: body.device.vm_platform,
  };
}

function pageMac(answer: Json) {
  const block = answer.block && { type: answer.block.type, start: answer.block.start, end: answer.block.end, size: answer.block.size };
  return {
    found: answer.found,
    oui: answer.oui,
    normalized: answer.normalized,
    is_multicast: answer.is_multicast,
    is_local: answer.is_local,
    is_randomized: answer.is_randomized,
    vendor: answer.vendor,
    block,
    vm_platform: answer.vm_platform,
  };
}

describe.skipIf(!browser)('the demo page in Chromium', () => {
  let harness: Harness;
  let key: string;
  let page: Page;
  const requestsWhileAnswering: string[] = [];
  let answering = false;

  beforeAll(async () => {
    harness = await Harness.start();
    key = await harness.newKey('business');
    const context = await browser!.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    page.on('request', (request) => {
      if (answering) requestsWhileAnswering.push(request.url());
    });
    await page.goto(`${harness.url}/demo/`);
    await page.waitForSelector('body[data-state]', { timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.stop();
  });

  it('loads the engine and the compact sets and shows the data credits and the local-only mark', async () => {
    expect(await page.getAttribute('body', 'data-state')).toBe('ready');
    expect(Number(await page.getAttribute('body', 'data-load-ms'))).toBeGreaterThan(0);
    await page.waitForSelector('#credits li');
    const credits = await page.textContent('#credits');
    expect(credits).toContain('IP Geolocation by DB-IP (https://db-ip.com)');
    expect(credits).toContain('CC BY 4.0');
    expect(credits).toContain('IEEE Registration Authority');
    expect(await page.textContent('#local')).toContain('nothing you type leaves your browser');
  });

  it('answers pasted IPs and MACs in the page as the server answers them, without a request', async () => {
    const inputs = [...IPS, ...MACS, 'not-an-address'];
    answering = true;
    await page.fill('#input', inputs.join('\n'));
    await page.click('#lookup');
    await page.waitForSelector('#results tbody tr');
    answering = false;
    const answers: Json[] = await page.$$eval('#results tbody tr', (rows) =>
      rows.map((row) => JSON.parse((row as HTMLElement).dataset.answer!)),
    );
    expect(answers.map((a) => a.input)).toEqual(inputs);
    expect(requestsWhileAnswering, 'requests made while answering').toEqual([]);

    let found = 0;
    for (const answer of answers) {
      if (answer.kind === 'ip') {
        const reply = await harness.call(`/v1/ip/${encodeURIComponent(answer.input)}`, { key });
        expect(reply.status, answer.input).toBe(200);
        expect(pageIp(answer), answer.input).toEqual(serverIp(reply.body));
        if (answer.status === 'found') found++;
      } else if (answer.kind === 'mac') {
        const reply = await harness.call(`/v1/mac/${encodeURIComponent(answer.input)}`, { key });
        expect(reply.status, answer.input).toBe(200);
        expect(pageMac(answer), answer.input).toEqual(serverMac(reply.body));
      } else {
        expect(answer).toMatchObject({ input: 'not-an-address', error: { code: 'invalid_input' } });
      }
    }
    expect(found).toBeGreaterThan(40);
    expect(answers.filter((a) => a.kind === 'mac' && a.found).length).toBeGreaterThanOrEqual(6);
    // What the table shows is the answer: Google's AS and Cisco's name are on the page.
    const shown = await page.textContent('#results');
    expect(shown).toContain('AS15169');
    expect(shown).toMatch(/Cisco/);
    fs.mkdirSync(path.join(projectRoot, 'bench', 'results'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, 'bench', 'results', 'demo-page.png'), fullPage: true });
  });
});

if (!browser) {
  describe(`the demo page in Chromium: SKIPPED, ${skipReason}`, () => {
    it('cannot run without a browser', (ctx) => {
      process.stderr.write(`test/web/demoPage.test.ts skipped: ${skipReason}\n`);
      ctx.skip();
    });
  });
}
