/**
 * The connection cap against a real listening service: slow clients holding every place do not
 * lock out /health for more than a moment (the oldest connection idle for a quarter second gives
 * up its place, with 503 too_many_connections), and when every place has a request making progress, a
 * new connection gets that 503 itself. (test/http/hostileClients.test.ts has the per-client limit
 * and the transfer timeouts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elapse, until, untilValue } from '../until.js';
import { ADMIN_TOKEN, Harness } from './harness.js';
import { answered, closeAll, expectRawError, openSlow, parseAnswer, rawExchange, type SlowSocket } from './rawClient.js';

const CAP = 200;

/** Closes the sockets, and waits until the server has seen them close: the next test counts connections. */
async function closeAllSeen(h: Harness, sockets: SlowSocket[]): Promise<void> {
  await closeAll(sockets);
  await until('the server to see every connection closed', async () => (await h.connections()) === 0);
}

/** The policy's idle time before a connection may give its place (src/http/transport/connections.ts). */
const IDLE_MS = 250;

/** /health on a new connection, asked again every 100 ms while refused (at most 5 s). */
function healthWhenAPlaceIsFree(h: Harness): Promise<ReturnType<typeof parseAnswer>> {
  return untilValue(
    '/health answered, not refused',
    async () => parseAnswer((await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).text),
    (answer) => answer.status !== 503,
    5000,
    100,
  );
}

function expectTooManyConnections(text: string): void {
  expectRawError(text, 503, 'too_many_connections', 'retry-after: 1');
}

describe('the connection cap', () => {
  let h: Harness;
  beforeAll(async () => {
    // Timeouts long enough that the slow clients are still there when /health is asked.
    h = await Harness.start({
      // Every client here is 127.0.0.1: its share is set above the cap, which is what these tests are about.
      connections: { maxConnections: CAP, maxConnectionsPerClient: 4 * CAP, headersTimeoutMs: 20_000, requestTimeoutMs: 20_000 },
    });
  });
  afterAll(() => h.stop());

  it(`${CAP} clients sending their heads slowly hold every place: once idle for a moment, the oldest gives /health its place`, async () => {
    const slow: SlowSocket[] = [];
    for (let i = 0; i < CAP; i++) slow.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    expect((await healthWhenAPlaceIsFree(h)).status).toBe(200);
    // The place /health took is free again: the next ones get it at once.
    for (let i = 0; i < 4; i++) {
      const { text, ms } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(parseAnswer(text).status).toBe(200);
      expect(ms).toBeLessThan(1000);
    }
    await until('the oldest to get its refusal', () => answered(slow[0]));
    const refused = slow.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([0]);
    expectTooManyConnections(slow[0].answer);
    await closeAllSeen(h, slow);
  });

  it(`${2 * CAP} clients sending their heads slowly: once the first ${CAP} are idle for a moment, each new one takes the oldest's place`, async () => {
    const slow: SlowSocket[] = [];
    for (let i = 0; i < CAP; i++) slow.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    // Time to pass, not an event: the first CAP must be idle for longer than the policy's idle time.
    await elapse(IDLE_MS + 100);
    for (let i = 0; i < CAP; i++) slow.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    await until(`the first ${CAP} to get their refusals`, () => slow.slice(0, CAP).every(answered));
    // The first CAP gave up their places to the later ones, in order.
    const refused = slow.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([...Array(CAP).keys()]);
    for (const i of refused) expectTooManyConnections(slow[i].answer);
    await closeAllSeen(h, slow);
  });

  const ADMIN_HEAD =
    `POST /admin/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"plan":"pro",';

  it('every place with a body still arriving: a new connection gets 503 too_many_connections', async () => {
    const busy: SlowSocket[] = [];
    for (let i = 0; i < CAP; i++) busy.push(await openSlow(h.url, ADMIN_HEAD));
    // Each body brings a byte every 200 ms: progress, so none is stalled.
    const drip = setInterval(() => busy.forEach((s) => s.writable && s.write(' ')), 200);
    try {
      // Time to pass with bodies arriving, longer than the idle time a place may be taken after
      // (IDLE_MS): none must give its place, which no event shows.
      await elapse(1200);
      const { text, ms } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      expectTooManyConnections(text);
      expect(ms).toBeLessThan(1500);
      expect(busy.every((s) => s.answer === '')).toBe(true);
    } finally {
      clearInterval(drip);
    }
    await closeAllSeen(h, busy);
    const { text } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(parseAnswer(text).status).toBe(200);
  });

  it('every place with a body that stopped: once stalled for a moment, the oldest gives /health its place', async () => {
    const stalled: SlowSocket[] = [];
    for (let i = 0; i < CAP; i++) stalled.push(await openSlow(h.url, ADMIN_HEAD));
    expect((await healthWhenAPlaceIsFree(h)).status).toBe(200);
    await until('the oldest stalled to get its refusal', () => answered(stalled[0]));
    // The first stalled gave its place; its answer is the 503.
    const refused = stalled.flatMap((s, i) => (s.answer === '' ? [] : [i]));
    expect(refused).toEqual([0]);
    expectTooManyConnections(stalled[0].answer);
    await closeAllSeen(h, stalled);
  });
});
