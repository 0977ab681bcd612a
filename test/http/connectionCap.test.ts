/**
 * The connection cap against a real listening service: slow clients holding every place do not
 * lock out /health (the oldest waiting one gives up its place, with 503 too_many_connections, and
 * failing that the longest-stalled body), and when every place has a request making progress, a
 * new connection gets that 503 itself. (test/http/hostileClients.test.ts has the per-client limit
 * and the transfer timeouts.)
 */
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, Harness } from './harness.js';
import { expectRawError, openSlow, parseAnswer, rawExchange } from './rawClient.js';

const CAP = 200;

async function closeAll(sockets: net.Socket[]): Promise<void> {
  await Promise.all(
    sockets.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : (s.once('close', () => resolve()), s.destroy())))),
  );
  // Let the server see the closes before the next test counts connections.
  await new Promise((resolve) => setTimeout(resolve, 100));
}

function expectTooManyConnections(text: string): void {
  expectRawError(text, 503, 'too_many_connections', 'retry-after: 1');
}

describe('the connection cap', () => {
  let h: Harness;
  beforeAll(async () => {
    // Timeouts long enough that the slow clients are still there when /health is asked.
    h = await Harness.start({
      connections: { maxConnections: CAP, maxConnectionsPerClient: CAP, headersTimeoutMs: 20_000, requestTimeoutMs: 20_000 },
    });
  });
  afterAll(() => h.stop());

  it(`${CAP} clients dripping their headers hold every place: /health still answers, the oldest slow one gets 503`, async () => {
    const slow: (net.Socket & { answer: string })[] = [];
    for (let i = 0; i < CAP; i++) slow.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const { text } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      latencies.push(performance.now() - started);
      expect(parseAnswer(text).status).toBe(200);
    }
    expect(Math.max(...latencies)).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first /health connection took the place of the oldest slow client; the later ones, each
    // opened after the previous one closed, found that place free.
    const refused = slow.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([0]);
    expectTooManyConnections(slow[0].answer);
    await closeAll(slow);
  });

  it(`${2 * CAP} clients dripping their headers: each new one takes the oldest's place, the server holds ${CAP}`, async () => {
    const slow: (net.Socket & { answer: string })[] = [];
    for (let i = 0; i < 2 * CAP; i++) slow.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    const { text } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(parseAnswer(text).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The first CAP + 1 gave up their places to the later ones and to /health.
    const refused = slow.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([...Array(CAP + 1).keys()]);
    for (const i of refused) expectTooManyConnections(slow[i].answer);
    await closeAll(slow);
  });

  const ADMIN_HEAD =
    `POST /admin/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"plan":"pro",';

  it('every place with a body still arriving: a new connection gets 503 too_many_connections', async () => {
    const busy: (net.Socket & { answer: string })[] = [];
    for (let i = 0; i < CAP; i++) busy.push(await openSlow(h.url, ADMIN_HEAD));
    // Each body brings a byte every 200 ms: progress, so none is stalled.
    const drip = setInterval(() => busy.forEach((s) => s.writable && s.write(' ')), 200);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const { text, ms } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      expectTooManyConnections(text);
      expect(ms).toBeLessThan(1500);
      expect(busy.every((s) => s.answer === '')).toBe(true);
    } finally {
      clearInterval(drip);
    }
    await closeAll(busy);
    expect((await h.call('/health')).status).toBe(200);
  });

  it('every place with a body that stopped: once stalled for a second, the longest-stalled gives /health its place', async () => {
    const stalled: (net.Socket & { answer: string })[] = [];
    for (let i = 0; i < CAP; i++) stalled.push(await openSlow(h.url, ADMIN_HEAD));
    // Until the server has read the last head, that connection still waits for one (it would be the one to go).
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Poll: refused while the bodies are young, answered once they have stalled long enough.
    const started = performance.now();
    let answer = parseAnswer((await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).text);
    while (answer.status === 503 && performance.now() - started < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = parseAnswer((await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).text);
    }
    expect(answer.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first stalled (the longest without a byte) gave its place; its answer is the 503.
    const refused = stalled.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([0]);
    expectTooManyConnections(stalled[0].answer);
    await closeAll(stalled);
  });
});
