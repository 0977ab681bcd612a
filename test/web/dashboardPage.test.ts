/**
 * The dashboard page in real Chromium (Debian's, driven by playwright-core) against a running
 * service: a key restricted to websites is refused with the service's message; an account holder
 * signs in by keyboard with a key and sees the numbers of /v1/usage;
 * rolls a key (the new secret shown once, the old one refused by the API with 401); edits a key's
 * websites (the API then refuses another origin with 403); the page at phone width; the operator
 * signs in with the admin token and suspends the account, whose lookups then answer 403; a free
 * account sees its attribution snippet and withdraws its own blacklist report. The page
 * never stores the key, keeps to its Content-Security-Policy, and asks nothing of another origin.
 * A screenshot of each screen goes to bench/results/dashboard-*.png.
 * Where Chromium cannot start, the suite is skipped with the reason in the test's name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, expectError, Harness, projectRoot, type Key } from '../http/harness.js';
import { launchChromium } from './chromium.js';

const launched = await launchChromium();
const browser: Browser | null = 'browser' in launched ? launched.browser : null;
const skipReason = 'reason' in launched ? launched.reason : '';

const screenshots = path.join(projectRoot, 'bench', 'results');

/** Every number the page marks with data-usage, by its path in the usage record. */
async function shownUsage(page: Page): Promise<Record<string, number>> {
  return page.$$eval('[data-usage]', (elements) =>
    Object.fromEntries(elements.map((e) => [(e as HTMLElement).dataset.usage!, Number((e as HTMLElement).dataset.value)])),
  );
}

/** The value at a dot path of the /v1/usage record. */
function at(record: Record<string, unknown>, dotPath: string): unknown {
  return dotPath.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown> | undefined)?.[part], record);
}

describe.skipIf(!browser)('the dashboard page in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;
  let page: Page;
  let holder: { account: { id: string }; key: Key };
  let second: Key;
  let rolledSecret = '';
  const problems: string[] = [];
  const foreignRequests: string[] = [];

  async function shot(name: string): Promise<void> {
    fs.mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, `dashboard-${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    h = await Harness.start();
    holder = await h.createAccount('pro', { email: 'holder@example.net' });
    second = await h.createKey(holder.account.id, 'website key');
    for (const target of ['/v1/ip/8.8.8.8', '/v1/ip/2001:4860:4860::8888', '/v1/mac/00:00:0c:12:34:56', '/v1/blacklist/1.2.3.4'])
      expect((await h.call(target, { key: holder.key.secret })).status).toBe(200);
    await h.call('/v1/ip/not-an-address', { key: holder.key.secret });
    context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      // A refused request (401 before sign-in, a 4xx the page explains) is logged by Chromium itself.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(h.url) && !request.url().startsWith('data:')) foreignRequests.push(request.url());
    });
    await page.goto(`${h.url}/dashboard/`);
    await page.waitForSelector('[data-view="sign-in"]');
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it("refuses a key restricted to websites with the service's message, and stays on the sign-in form", async () => {
    const other = await h.createAccount('pro', { email: 'embedded@example.net' });
    const embedded = await h.createKey(other.account.id, 'embedded', ['example.com']);
    await page.getByLabel('API key').fill(embedded.secret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const status = page.locator('#status[data-kind="error"]');
    await status.waitFor();
    expect(await status.textContent()).toMatch(/restricted to websites.*cannot sign in to the dashboard/);
    expect(await page.locator('[data-view="sign-in"]').count()).toBe(1);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(await page.content()).not.toContain('embedded@example.net');
    expect(await context.cookies()).toEqual([]);
    await shot('sign-in-refused');
  });

  it('signs in by keyboard with a key and shows the numbers of /v1/usage, the chart and the 90 days', async () => {
    await shot('sign-in');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(holder.key.secret);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-view="account"] [data-usage="today.ip"]');
    await page.waitForSelector(`tr[data-key-id="${second.id}"]`);

    const usage = await h.usage(holder.key.secret);
    const shown = await shownUsage(page);
    expect(Object.keys(shown)).toEqual(
      expect.arrayContaining(['today.ip', 'today.blacklist', 'today.mac', 'today.rejected', 'monthly_quota.used', 'monthly_quota.limit']),
    );
    for (const [dotPath, value] of Object.entries(shown)) expect(value, dotPath).toBe(at(usage, dotPath));
    expect(shown['today.ip']).toBe(2);
    expect(shown['today.rejected']).toBe(1);
    expect(await page.locator('meter').first().getAttribute('value')).toBe(String(usage.monthly_quota.used));
    expect(await page.locator('.chart[role="img"]').count()).toBe(1);
    expect(await page.locator('details table tbody tr').count()).toBe(90);

    // The key went into a session cookie the page cannot read, and nowhere else.
    const cookies = await context.cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: 'nl_dashboard', httpOnly: true, sameSite: 'Strict', path: '/dashboard' },
    ]);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
    expect(page.url()).not.toContain(holder.key.secret);
    expect(await page.content()).not.toContain(holder.key.secret);
    await shot('account');
  });

  it('rolls a key: the new secret is shown once and the API refuses the old one with 401', async () => {
    await page.getByRole('button', { name: `Roll ${second.name}`, exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Roll', exact: true }).click();
    const secretField = page.locator(`.secret[data-key-id="${second.id}"] input, .secret[data-key-id="${second.id}"] textarea`);
    await secretField.waitFor();
    rolledSecret = await secretField.inputValue();
    expect(rolledSecret).toMatch(/^nlk_[0-9a-f]{40}$/);
    expect(rolledSecret).not.toBe(second.secret);
    await shot('key-rolled');
    expectError(await h.call('/v1/ip/8.8.8.8', { key: second.secret }), 'invalid_key');
    expect((await h.call('/v1/ip/8.8.8.8', { key: rolledSecret })).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.secret').count()).toBe(0);
  });

  it("edits a key's websites: the API then refuses another origin with 403", async () => {
    await page.getByRole('button', { name: `Edit ${second.name}`, exact: true }).click();
    const editor = page.getByRole('form', { name: `Edit key ${second.name}` });
    await editor.getByLabel('Websites').fill('example.com\n*.example.org');
    await shot('key-edit');
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector(`tr[data-key-id="${second.id}"]:has-text("*.example.org")`);
    expectError(
      await h.call('/v1/ip/8.8.8.8', { key: rolledSecret, headers: { origin: 'https://elsewhere.example' } }),
      'origin_not_allowed',
    );
    expect((await h.call('/v1/ip/8.8.8.8', { key: rolledSecret, headers: { origin: 'https://shop.example.org' } })).status).toBe(200);
    await shot('keys');
  });

  it('fits a phone: no page-wide horizontal scroll at 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot('phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('lets the operator find the account and suspend it: its lookups then answer 403', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForSelector('[data-view="sign-in"]');
    expect(await context.cookies()).toEqual([]);
    await page.getByText('Operator sign-in').click();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.waitForSelector('[data-view="accounts"]');
    await page.getByLabel('Search accounts').fill('holder@example');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForSelector(`[data-view="accounts"] [data-search="holder@example"] a[href="#/accounts/${holder.account.id}"]`);
    expect(await page.locator('[data-view="accounts"] tbody tr').count()).toBe(1);
    await shot('operator-accounts');
    await page.click(`a[href="#/accounts/${holder.account.id}"]`);
    await page.waitForSelector(`[data-view="account-detail"][data-account-id="${holder.account.id}"] [data-usage="today.ip"]`);
    const shown = await shownUsage(page);
    const usage = await h.usage(holder.key.secret);
    for (const [dotPath, value] of Object.entries(shown)) expect(value, dotPath).toBe(at(usage, dotPath));
    await page.getByRole('button', { name: `Suspend ${holder.account.id}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend', exact: true }).click();
    await page.getByRole('button', { name: /Unsuspend/ }).waitFor();
    await shot('operator-account');
    expectError(await h.call('/v1/ip/8.8.8.8', { key: holder.key.secret }), 'account_suspended');
    expectError(await h.call('/v1/ip/8.8.8.8', { key: rolledSecret, headers: { origin: 'https://example.com' } }), 'account_suspended');
  });

  it("shows a free account its attribution snippet, and withdraws the account's own report", async () => {
    const free = await h.createAccount('free');
    const address = '45.95.147.238';
    expect((await h.call('/v1/blacklist/report', { key: free.key.secret, json: { ip: address, threat_type: 'scanner' } })).status).toBe(
      201,
    );
    expect((await h.call(`/v1/blacklist/${address}`, { key: free.key.secret })).body.listed).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(free.key.secret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForSelector('[data-view="account"] [data-usage="daily_quota.ip"]');
    const snippet = await page.getByLabel('HTML to paste').inputValue();
    expect(snippet).toContain(`<a href="${h.url}/">netlookup</a>`);
    expect(snippet).toContain('DB-IP');
    await page.getByRole('button', { name: `Withdraw the report of ${address}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Withdraw', exact: true }).click();
    await page.getByRole('button', { name: `Withdraw the report of ${address}` }).waitFor({ state: 'detached' });
    await shot('free-account');
    expect((await h.call(`/v1/blacklist/${address}`, { key: free.key.secret })).body.listed).toBe(false);
  });

  it('kept to its Content-Security-Policy and its own origin throughout', () => {
    expect(problems).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });
});

if (!browser) {
  describe(`the dashboard page in Chromium: SKIPPED, ${skipReason}`, () => {
    it('cannot run without a browser', (ctx) => {
      process.stderr.write(`test/web/dashboardPage.test.ts skipped: ${skipReason}\n`);
      ctx.skip();
    });
  });
}
