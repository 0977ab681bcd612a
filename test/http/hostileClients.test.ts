/**
 * Clients that try to hold the service's connections, against a real listening service at a small
 * cap: one client's connections limited to its share (another client still gets in), a request
 * body that stops answered 408 at the body timeout, a report with a bad key refused before its
 * body is read (a body sent whole is then read and dropped, so that the client gets the refusal
 * rather than a reset), and answers the client never reads cut at the send timeout (node:http's
 * and the direct connections'). Under all of these at once, /health and a prompt client are
 * answered.
 * Attackers connect from other loopback addresses (127.0.0.2, …): each is a client of its own.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, untilSteady, untilValue } from '../until.js';
import { Harness, TEST_PLANS } from './harness.js';
import { answered, closeAll, expectRawError, openSlow, parseAnswer, type SlowSocket } from './rawClient.js';

const CAP = 60;
const PER_CLIENT = 8;
const BODY_MS = 400;
const SEND_MS = 600;
/** Addresses in the batches whose answers (about 13 MB) outgrow what the system buffers for a connection. */
const BIG = 10_000;
/** The service checks progress every quarter of the shorter timeout; a little more for a busy machine. */
const SLACK_MS = BODY_MS / 4 + 400;

/** A report whose body stops after its first byte; the key (if any) in the header. */
const stalledReport = (key = '') =>
  `POST /v1/blacklist/report HTTP/1.1\r\nHost: x\r\n${key ? `X-API-Key: ${key}\r\n` : ''}` +
  'Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{';

/** One GET as a client told `Retry-After` would: asked again (every 100 ms, for 3 s at most) while refused with 503; the whole time it took. */
async function getRetrying(h: Harness, path: string, key = ''): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const { status } = await untilValue(
    `${path} answered, not refused`,
    () => timedGet(h, path, key),
    (answer) => answer.status !== 503,
    3000,
    100,
  );
  return { status, ms: performance.now() - started };
}

/** One GET on a connection of its own (from `localAddress`), with the time it took. */
async function timedGet(h: Harness, path: string, key = '', localAddress?: string): Promise<{ status: number; ms: number }> {
  const socket = await openSlow(
    h.url,
    `GET ${path} HTTP/1.1\r\nHost: x\r\n${key ? `X-API-Key: ${key}\r\n` : ''}Connection: close\r\n\r\n`,
    localAddress,
  );
  const started = performance.now();
  await new Promise((resolve) => socket.once('close', resolve));
  return { status: parseAnswer(socket.answer).status, ms: performance.now() - started };
}

/**
 * A client that asks for answers and never reads them: `count` requests written at once, then the
 * socket is not read. Big batch answers (node:http) or many pipelined lookups (direct connections).
 */
async function nonReader(h: Harness, requests: string, localAddress: string): Promise<SlowSocket> {
  const socket = await openSlow(h.url, requests, localAddress);
  socket.pause();
  return socket;
}

function batchRequests(key: string, count: number, size = 1000): string {
  const ips = Array.from({ length: size }, (_, i) => `${1 + (i % 200)}.${(i >> 8) % 256}.${i % 256}.${1 + (i % 250)}`);
  const body = JSON.stringify({ ips });
  const one =
    `POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return one.repeat(count);
}

function lookupRequests(key: string, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += `GET /v1/ip/${1 + (i % 200)}.${i % 256}.2.3 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
  return text;
}

describe('hostile clients', () => {
  let h: Harness;
  let business: string;
  beforeAll(async () => {
    h = await Harness.start({
      connections: {
        maxConnections: CAP,
        maxConnectionsPerClient: PER_CLIENT,
        bodyTimeoutMs: BODY_MS,
        sendTimeoutMs: SEND_MS,
        headersTimeoutMs: 20_000,
        requestTimeoutMs: 20_000,
      },
    });
    business = await h.newKey('business');
  });
  afterAll(() => h.stop());

  it(`one client holds at most ${PER_CLIENT} connections: the next ones get 503, another client gets in at once`, async () => {
    const held: SlowSocket[] = [];
    for (let i = 0; i < PER_CLIENT + 3; i++) held.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a', '127.0.0.2'));
    await until('the three over the share refused', () => held.slice(PER_CLIENT).every(answered));
    expect(held.flatMap((s, i) => (s.answer === '' ? [] : [i]))).toEqual([PER_CLIENT, PER_CLIENT + 1, PER_CLIENT + 2]);
    for (const s of held.slice(PER_CLIENT)) expectRawError(s.answer, 503, 'too_many_connections', 'retry-after: 1');
    const other = await timedGet(h, '/health', '', '127.0.0.3');
    expect(other.status).toBe(200);
    expect(other.ms).toBeLessThan(1000);
    await closeAll(held);
  });

  it('connections refused over a share that the client resets at once leave the service running', async () => {
    const held: SlowSocket[] = [];
    for (let i = 0; i < PER_CLIENT; i++) held.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a', '127.0.0.7'));
    const { port } = new URL(h.url);
    await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.7' });
            socket.on('error', () => undefined);
            // The refusal's answer arrives; the client answers it with a reset.
            socket.once('data', () => socket.resetAndDestroy());
            socket.once('close', () => resolve());
          }),
      ),
    );
    expect((await timedGet(h, '/health', '', '127.0.0.3')).status).toBe(200);
    await closeAll(held);
  });

  it(`a client whose ${PER_CLIENT} connections all have bodies arriving is refused a ninth; others are not`, async () => {
    const head = stalledReport();
    const busy: SlowSocket[] = [];
    for (let i = 0; i < PER_CLIENT; i++) busy.push(await openSlow(h.url, head, '127.0.0.2'));
    const drip = setInterval(() => busy.forEach((s) => s.writable && s.write(' ')), BODY_MS / 4);
    try {
      await until(`the server to hold the ${PER_CLIENT}`, async () => (await h.connections()) >= PER_CLIENT);
      expect((await timedGet(h, '/health', '', '127.0.0.3')).status).toBe(200);
      const ninth = await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '127.0.0.2');
      await new Promise((resolve) => ninth.once('close', resolve));
      expectRawError(ninth.answer, 503, 'too_many_connections', 'retry-after: 1');
      expect(busy.every((s) => s.answer === '')).toBe(true);
    } finally {
      clearInterval(drip);
    }
    await closeAll(busy);
  });

  it('a body that stops: 408 request_timeout at the body timeout, long before the request timeout', async () => {
    const socket = await openSlow(h.url, stalledReport(), '127.0.0.4');
    const started = performance.now();
    await new Promise((resolve) => socket.once('close', resolve));
    const ms = performance.now() - started;
    expectRawError(socket.answer, 408, 'request_timeout');
    expect(ms).toBeGreaterThanOrEqual(BODY_MS - 5);
    expect(ms).toBeLessThan(BODY_MS + SLACK_MS + 1000);
  });

  it('a report with a wrong key in its header is refused before its body is read', async () => {
    const socket = await openSlow(h.url, stalledReport(`nlk_${'0'.repeat(40)}`), '127.0.0.4');
    await until('the refusal, before the body timeout', () => socket.answer.includes('\r\n\r\n{'), BODY_MS / 2);
    const answer = parseAnswer(socket.answer.slice(0, socket.answer.lastIndexOf('}') + 1));
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('invalid_key');
    socket.destroy();
  });

  it('a refused request whose body is sent whole gets its answer, not a reset: the rest of the body is read and dropped', async () => {
    // More than the system buffers for a connection: closing with it unread would reset the connection.
    const body = 'x'.repeat(4 * 1024 * 1024);
    const head = `POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\nX-API-Key: nlk_${'0'.repeat(40)}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { port } = new URL(h.url);
    const outcome = await new Promise<{ answer: string; error: string | null }>((resolve) => {
      let answer = '';
      let error: string | null = null;
      const socket = net.connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.6' }, () => socket.end(head + body));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
      socket.on('close', () => resolve({ answer, error }));
    });
    expect(outcome.error).toBeNull();
    expectRawError(outcome.answer, 401, 'invalid_key');
  });

  it('big batch answers never read: the connection is cut at the send timeout, and its memory with it', async () => {
    const socket = await nonReader(h, batchRequests(business, 30), '127.0.0.5');
    await until('the connection', async () => (await h.connections()) >= 1, 2000);
    const started = performance.now();
    // The server cuts it: no connection left once the answers stopped draining for SEND_MS.
    await until('the connection cut', async () => (await h.connections()) === 0, SEND_MS + 10_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(SEND_MS / 2);
    socket.destroy();
  });

  it('pipelined lookups never read on a direct connection: cut at the send timeout', async () => {
    const socket = await nonReader(h, lookupRequests(business, 20_000), '127.0.0.6');
    await until('the connection', async () => (await h.connections()) >= 1, 2000);
    await until('the connection cut', async () => (await h.connections()) === 0, SEND_MS + 10_000);
    socket.destroy();
  });

  it('under every attack at once, /health and a prompt client are answered within a second or so', async () => {
    const attackers: SlowSocket[] = [];
    // Stalled bodies from many addresses (each within its share), filling the cap.
    for (let i = 0; i < CAP; i++) attackers.push(await openSlow(h.url, stalledReport(), `127.0.1.${1 + i}`));
    for (let i = 0; i < 4; i++) attackers.push(await nonReader(h, batchRequests(business, 10), `127.0.2.${i + 1}`));
    for (let i = 0; i < 4; i++) attackers.push(await openSlow(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a', `127.0.3.${i + 1}`));
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const health = await getRetrying(h, '/health');
      h.clock.advance(1001);
      const lookup = await getRetrying(h, '/v1/ip/8.8.8.8', business);
      expect(health.status).toBe(200);
      expect(lookup.status).toBe(200);
      latencies.push(health.ms, lookup.ms);
    }
    // A place is freed once a connection has been idle for a second (or sooner, by a timeout).
    expect(Math.max(...latencies)).toBeLessThan(2500);
    await closeAll(attackers);
  });
});

describe('pipelined answers held back', () => {
  let h: Harness;
  // A send timeout long enough for the client below to wait before it reads.
  beforeAll(async () => {
    h = await Harness.start({
      connections: { sendTimeoutMs: 30_000 },
      plans: { ...TEST_PLANS, business: { ...TEST_PLANS.business, max_batch: BIG, rate_limit_per_second: 1_000_000 } },
    });
  });
  afterAll(() => h.stop());

  it('pipelined batches never read: a later batch waits for the answers before it, none is looked up (or counted) until the first is taken', async () => {
    const key = await h.newKey('business');
    const used = async () => (await h.usage(key)).monthly_quota.used as number;
    const socket = await nonReader(h, batchRequests(key, 5, BIG), '127.0.0.8');
    // Until the count stops moving: what the system could take of the answers while nobody reads.
    const held = await untilSteady('the count to stop moving', used, (n) => n > 0, 5000, 20);
    // The first answer (13 MB) is more than the system buffers: no later batch was looked up.
    expect(held).toBe(BIG);
    // Reading now: every batch is answered and counted.
    let received = 0;
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.resume();
    await until('every batch counted', async () => (await used()) === 5 * BIG, 20_000);
    expect(received).toBeGreaterThan(5 * BIG * 100);
    socket.destroy();
  });
});
