/**
 * `netlookup serve` as an operator runs it, with bad configuration: it refuses to start and names
 * the variable; and with a good one, failed admin authentications are throttled per client address.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { untilValue } from '../until.js';
import { ADMIN_TOKEN, expectError, request, TEST_PLANS, tempDir } from './harness.js';
import { killChildren, serve } from './serveProcess.js';

const dir = tempDir('netlookup-config-process-');
const plansFile = path.join(dir, 'plans.json');
fs.writeFileSync(plansFile, JSON.stringify(TEST_PLANS));

afterAll(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

const refused: [string, string][] = [
  ['PORT', '65536'],
  ['PORT', '80x'],
  ['HOST', 'local host'],
  ['NETLOOKUP_TRUST_PROXY', '10.0.0.1/'],
  ['NETLOOKUP_TRUST_PROXY', '::1/129'],
  ['NETLOOKUP_ADMIN_TOKEN', 'short-admin-token'],
  ['NETLOOKUP_PLANS', path.join(dir, 'missing.json')],
  ['LOG_LEVEL', 'verbose'],
  ['REDIS_URL', 'localhost:6379'],
  ['NETLOOKUP_BLACKLIST_RETENTION_DAYS', '0x10'],
];

describe('netlookup serve with bad configuration', () => {
  it.each(refused)(
    '%s=%j: refuses to start, naming the variable',
    async (name, value) => {
      const started = serve(path.join(dir, 'data'), plansFile, { [name]: value });
      const error = await started.then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/serve exited \(2\) before listening/);
      expect(error?.message).toContain(`netlookup: ${name}=`);
      if (name === 'NETLOOKUP_ADMIN_TOKEN') expect(error?.message).not.toContain(value);
    },
    30_000,
  );
});

describe('failed admin authentications through a running server', () => {
  it('10 failures from one address, then 429 admin_throttled with Retry-After, the right token included; one more try per second', async () => {
    const child = await serve(path.join(dir, 'data-admin'), plansFile);
    const attempt = (token: string) => request(child.url, '/admin/accounts/acc_x', { headers: { authorization: `Bearer ${token}` } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await attempt(`wrong-${i}`)).status);
      expect(statuses).toEqual(Array(10).fill(401));
      const throttled = await attempt('wrong-again');
      expectError(throttled, 'admin_throttled', 429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expectError(await attempt(ADMIN_TOKEN), 'admin_throttled', 429);

      // a burst of guesses for two seconds gets about two through
      const started = Date.now();
      let answered = 0;
      let unauthorized = 0;
      while (Date.now() - started < 2000) {
        const batch = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(`guess-${answered + i}`)));
        answered += batch.length;
        unauthorized += batch.filter((r) => r.status === 401).length;
      }
      expect(answered).toBeGreaterThan(100);
      expect(unauthorized).toBeLessThanOrEqual(3);

      // within a second of the burst (a throttled try takes nothing), the right token works again
      const again = await untilValue(
        'the right token let through',
        () => attempt(ADMIN_TOKEN),
        (reply) => reply.status !== 429,
        2000,
        50,
      );
      expectError(again, 'not_found', 404);
      expect(child.output()).toContain('admin authentication failed');
      expect(child.output()).not.toContain(ADMIN_TOKEN);
    } finally {
      child.process.kill('SIGKILL');
    }
  }, 60_000);
});
