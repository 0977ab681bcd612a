/**
 * The service as an operator runs it: `netlookup serve` in its own process. An account/key change acknowledged over HTTP survives `kill -9`; the first start prints
 * a working key and a restart does not create another account; secrets never reach the logs (the
 * child runs with LOG_LEVEL=debug, which logs every request's URL); SIGTERM finishes in-flight work.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { elapse, until, untilValue } from '../until.js';
import { ADMIN_TOKEN, expectError, KEY_PATTERN, request, TEST_PLANS, tempDir } from './harness.js';
import { killChildren, serve } from './serveProcess.js';

const dirs: string[] = [];

afterAll(() => {
  killChildren();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function setup(): { dataDir: string; plansFile: string } {
  const dir = tempDir('netlookup-process-');
  dirs.push(dir);
  const plansFile = path.join(dir, 'plans.json');
  fs.writeFileSync(plansFile, JSON.stringify(TEST_PLANS));
  return { dataDir: path.join(dir, 'data'), plansFile };
}

const admin = (url: string, method: string, p: string, json?: unknown) =>
  request(url, p, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json === undefined ? {} : { json }) });

describe('netlookup serve in a child process', () => {
  it('first start prints a working free key; acknowledged admin changes survive kill -9; a restart creates no account; no secret is logged', async () => {
    const { dataDir, plansFile } = setup();

    // --- first run
    const first = await serve(dataDir, plansFile);
    // the first-start banner follows the listening line in the same write burst
    const banner = await untilValue(
      'the first-start banner',
      () => /key\s+(nlk_[0-9a-f]{40})/.exec(first.output()),
      (match) => match !== null,
      2000,
    );
    const firstSecret = banner![1];
    expect(firstSecret).toMatch(KEY_PATTERN);
    const firstUse = await request(first.url, '/v1/ip/8.8.8.8', { key: firstSecret });
    expect(firstUse.status).toBe(200);
    expect(firstUse.body.meta.plan).toBe('free');

    const created = await admin(first.url, 'POST', '/admin/accounts', { plan: 'pro' });
    expect(created.status).toBe(201);
    const accountId = created.body.account.id as string;
    const k1 = created.body.key as { id: string; secret: string };
    const k2 = await admin(first.url, 'POST', `/admin/accounts/${accountId}/keys`, { name: 'site', websites: ['example.com'] });
    expect(k2.status).toBe(201);
    const rolled = await admin(first.url, 'POST', `/admin/keys/${k1.id}/roll`);
    expect(rolled.status).toBe(200);
    const k1b = rolled.body.key.secret as string;
    const other = await admin(first.url, 'POST', '/admin/accounts', { plan: 'starter' });
    const suspended = await admin(first.url, 'PATCH', `/admin/accounts/${other.body.account.id}`, { suspended: true });
    expect(suspended.status).toBe(200);
    const upgraded = await admin(first.url, 'PATCH', `/admin/accounts/${accountId}`, { plan: 'business' });
    expect(upgraded.status).toBe(200);
    const third = await admin(first.url, 'POST', '/admin/accounts', { plan: 'pro' });
    const deleted = await admin(first.url, 'DELETE', `/admin/keys/${third.body.key.id}`);
    expect(deleted.status).toBe(200);
    // the last change is acknowledged: kill at once, no chance to flush or close
    first.process.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // --- second run on the same data directory
    const second = await serve(dataDir, plansFile);
    expect(second.output()).not.toMatch(/First start/);
    expect(second.output()).not.toMatch(/nlk_[0-9a-f]{40}/);
    try {
      const a = await request(second.url, '/v1/ip/8.8.8.8', { key: k1b });
      expect(a.status).toBe(200);
      expect(a.body.meta.plan).toBe('business');
      expectError(await request(second.url, '/v1/ip/8.8.8.8', { key: k1.secret }), 'invalid_key', 401);
      expect(
        (await request(second.url, '/v1/ip/8.8.8.8', { key: k2.body.key.secret, headers: { origin: 'https://example.com' } })).status,
      ).toBe(200);
      expectError(
        await request(second.url, '/v1/ip/8.8.8.8', { key: k2.body.key.secret, headers: { origin: 'https://evil.com' } }),
        'origin_not_allowed',
        403,
      );
      expectError(await request(second.url, '/v1/ip/8.8.8.8', { key: other.body.key.secret }), 'account_suspended', 403);
      expectError(await request(second.url, '/v1/ip/8.8.8.8', { key: third.body.key.secret }), 'invalid_key', 401);
      // the first-start key still works, by every way of sending it (?key= included: its log line must be redacted)
      expect((await request(second.url, '/v1/ip/8.8.8.8', { key: firstSecret, via: 'query' })).status).toBe(200);
      expect((await request(second.url, '/v1/usage?pretty', { key: firstSecret, via: 'query' })).status).toBe(200);
      expect((await request(second.url, '/v1/ip/bad', { key: firstSecret, via: 'bearer' })).status).toBe(400);
      expect((await request(second.url, '/v1/nope', { key: k1b, via: 'query' })).status).toBe(404);
      expect((await request(second.url, '/v1/ip/8.8.8.8', { key: k1b, via: 'query' })).status).toBe(200);

      // graceful stop of the child: SIGTERM exits 0
      second.process.kill('SIGTERM');
      const exit = await second.exited;
      expect(exit.code).toBe(0);
    } finally {
      if (second.process.exitCode === null) second.process.kill('SIGKILL');
    }

    // --- logs: structured JSON lines; secrets appear only in the first-start banner
    const logLines = second
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    const requestLines = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(5);
    expect(requestLines.some((l) => String(l.url).includes('key=[redacted]'))).toBe(true);
    const secrets = [firstSecret, k1.secret, k1b, k2.body.key.secret, other.body.key.secret, third.body.key.secret];
    for (const secret of secrets) {
      expect(second.output()).not.toContain(secret.slice(4));
    }
    const firstOutputWithoutBanner = first.output().replace(/First start:[\s\S]*?\n\n(?:Try:\n(?:\s+curl.*\n)+)?/, '');
    for (const secret of secrets) expect(firstOutputWithoutBanner).not.toContain(secret.slice(4));
  });

  it('SIGTERM while a request is in flight: the request is answered, then the process exits 0', async () => {
    const { dataDir, plansFile } = setup();
    const child = await serve(dataDir, plansFile);
    try {
      const created = await admin(child.url, 'POST', '/admin/accounts', { plan: 'pro' });
      const secret = created.body.key.secret as string;
      const body = JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] });
      const url = new URL(`${child.url}/v1/ip/batch`);
      // send the head and half the body, signal, then the rest
      let req!: http.ClientRequest;
      const reply = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
        req = http.request(
          // agent: false, a connection of its own that the client closes after the answer (a kept-alive
          // connection is the subject of the in-process shutdown test in operations.test.ts)
          {
            agent: false,
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'x-api-key': secret, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
      });
      req.write(body.slice(0, 10));
      // Time to pass, not an event: nothing outside the process shows that the server has read the
      // head, and a connection it has not accepted yet would be refused by the stop instead.
      await elapse(200);
      child.process.kill('SIGTERM');
      await until('the server to begin stopping', () => child.output().includes('SIGTERM: finishing in-flight requests'));
      req.end(body.slice(10));
      const answered = await reply;
      expect(answered.status).toBe(200);
      expect(JSON.parse(answered.text).count).toBe(2);
      const exit = await Promise.race([child.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 3_000))]);
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      if (child.process.exitCode === null) child.process.kill('SIGKILL');
    }
  });
});
