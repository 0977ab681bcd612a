/**
 * The direct connections against a real listening service, over raw TCP: a single lookup read
 * and answered on the socket gets the bytes node:http's hot path sends for it; pipelined requests
 * are answered in order, across the hand-over to node:http; heads split over many writes, a client
 * that does not read, `Connection: close`, the timeouts and stopping behave as on node:http.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elapse, until, untilSteady } from '../until.js';
import { answerDirectly } from '../../src/http/transport/directConnections.js';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { awaitedStore } from './awaitedStoreProxy.js';
import { Harness, TEST_PLANS, tempDir } from './harness.js';
import { expectRawError, parseAnswer, rawExchange } from './rawClient.js';

/** A header outside the direct subset (obs-text), which node:http's hot path takes. */
const OUTSIDE_SUBSET = 'X-Note: caf\u00e9\r\n';

/** Connects, writes each part (a pause between them), and collects what the server sends until `until` holds or it closes. */
function converse(url: string, parts: string[], until: (text: string) => boolean, pauseMs = 0): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(Number(port), hostname, async () => {
      for (const part of parts) {
        socket.write(Buffer.from(part, 'latin1'));
        // a pace, not a wait for an event: the parts arrive apart
        if (pauseMs > 0) await elapse(pauseMs);
      }
    });
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (until(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/** Connects, writes `text`, closes its sending half, and collects what the server sends until it closes. */
function halfClosing(url: string, text: string): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    const started = performance.now();
    const socket = net.connect(Number(port), hostname, () => socket.end(Buffer.from(text, 'latin1')));
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text: received, ms: performance.now() - started }));
  });
}

/** The answers in `text` (read as Latin-1, one character per byte), split by their Content-Length. */
function answersIn(text: string): { status: number; headers: string[]; body: string }[] {
  const answers = [];
  let at = 0;
  while (at < text.length) {
    const split = text.indexOf('\r\n\r\n', at);
    if (split === -1) break;
    const lines = text.slice(at, split).split('\r\n');
    const headers = lines.slice(1).map((l) => l.toLowerCase());
    const length = Number(headers.find((h) => h.startsWith('content-length: '))?.slice(16) ?? 0);
    if (split + 4 + length > text.length) break;
    const body = Buffer.from(text.slice(split + 4, split + 4 + length), 'latin1').toString();
    answers.push({ status: Number(lines[0].split(' ')[1]), headers, body });
    at = split + 4 + length;
  }
  return answers;
}

const ipOf = (i: number) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
/** Whether `text` holds n answers whole: n status lines, and the last answer's body complete. */
const count = (n: number) => (text: string) =>
  text.split('HTTP/1.1 ').length - 1 >= n && answersIn(text.slice(text.lastIndexOf('HTTP/1.1 '))).length === 1;
const withoutDate = (text: string) => text.replace(/\r\nDate: [^\r]*\r\n/, '\r\n');

// Every case on both ways of reading a socket (src/http/transport/socketReads.ts).
describe.each(['shared', 'events'] as const)('socket reads: %s', (socketReads) => {
  describe('direct connections', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await Harness.start({ connections: { socketReads, directConnections: true } });
    });
    afterAll(() => h.stop());

    it('answer a single lookup with the bytes node:http’s hot path sends for it', async () => {
      for (const [plan, target] of [
        ['business', '/v1/ip/8.8.8.8'],
        ['business', '/v1/ip/77.88.8.8'],
        ['free', '/v1/ip/133.11.0.1'],
        ['business', '/v1/ip/2a00:1450:4001:81b::200e?fields=ip,location.country.name&pretty=1'],
        ['free', '/v1/ip/10.1.2.3'],
        ['pro', '/v1/mac/00:50:56:12:34:56'],
        ['pro', '/v1/blacklist/8.8.8.8'],
        ['pro', '/v1/ip/not.an.address'],
        ['pro', '/v1/ip/1.1.1.1?fields=nope'],
        [null, '/v1/ip/8.8.8.8'],
      ] as const) {
        const keys = plan === null ? ['', ''] : [await h.newKey(plan), await h.newKey(plan)];
        const head = (key: string, extra: string) =>
          `GET ${target} HTTP/1.1\r\nHost: x\r\n${key ? `X-API-Key: ${key}\r\n` : ''}${extra}Connection: close\r\n\r\n`;
        const direct = await converse(h.url, [head(keys[0], '')], () => false);
        const onNode = await converse(h.url, [head(keys[1], OUTSIDE_SUBSET)], () => false);
        expect(answersIn(direct)).toHaveLength(1);
        expect(withoutDate(direct), target).toBe(withoutDate(onNode));
        expect(direct).toMatch(/\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/);
      }
    });

    it('send a record as UTF-8, Content-Length its byte count, beyond Latin-1 too', async () => {
      const key = await h.newKey('business');
      // Moscow: the rouble sign (U+20BD) of country_info; Tokyo: the yen sign (U+00A5)
      for (const [ip, symbol] of [
        ['77.88.8.8', '\u20bd'],
        ['133.11.0.1', '\u00a5'],
      ]) {
        const text = await converse(
          h.url,
          [`GET /v1/ip/${ip} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
          () => false,
        );
        const [answer] = answersIn(text);
        const length = Number(answer.headers.find((line) => line.startsWith('content-length: '))!.slice(16));
        expect(text.length - text.indexOf('\r\n\r\n') - 4, ip).toBe(length);
        expect(Buffer.byteLength(answer.body), ip).toBe(length);
        expect(JSON.parse(answer.body).country_info.currency.symbol, ip).toBe(symbol);
      }
    });

    it('answers queued together go out in order, each its own bytes: records, JSON text, errors', async () => {
      const key = await h.newKey('business');
      const targets = ['/v1/ip/133.11.0.1', '/v1/mac/00:50:56:12:34:56', '/v1/ip/999.1.1.1', '/v1/ip/77.88.8.8?pretty=1', '/v1/ip/8.8.8.8'];
      const request = (target: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
      const alone = [];
      for (const target of targets) alone.push(answersIn(await converse(h.url, [request(target)], count(1)))[0]);
      const together = answersIn(await converse(h.url, [targets.map(request).join('')], count(targets.length)));
      const withoutMeta = (body: string) => ({ ...(JSON.parse(body) as object), meta: null });
      expect(together.map((a) => a.status)).toEqual([200, 200, 400, 200, 200]);
      expect(together.map((a) => withoutMeta(a.body))).toEqual(alone.map((a) => withoutMeta(a.body)));
      expect(JSON.parse(together[3].body)).toMatchObject({ country_info: { currency: { symbol: '\u20bd' } } });
      expect(together[3].body).toContain('\n  "success": true');
    });

    it('keep the connection open, with the Keep-Alive node:http announces', async () => {
      const key = await h.newKey('pro');
      const text = await converse(h.url, [`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`], count(1));
      expect(answersIn(text)[0].headers).toEqual(expect.arrayContaining(['connection: keep-alive', 'keep-alive: timeout=5']));
    });

    it('answer pipelined requests in order, across the hand-over to node:http, on one connection', async () => {
      const key = await h.newKey('pro');
      const lookup = (ip: string) => `GET /v1/ip/${ip}?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
      const requests = [
        lookup('1.1.1.1'),
        lookup('8.8.8.8'),
        'GET /health HTTP/1.1\r\nHost: x\r\n\r\n',
        lookup('9.9.9.9'),
        `POST /v1/ip/batch?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n["1.0.0.1"]\r\n`,
        lookup('4.4.4.4'),
      ];
      const text = await converse(h.url, [requests.join('')], count(requests.length));
      const answers = answersIn(text);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(JSON.parse(answers[0].body)).toMatchObject({ ip: '1.1.1.1' });
      expect(JSON.parse(answers[1].body)).toMatchObject({ ip: '8.8.8.8' });
      expect(JSON.parse(answers[2].body)).toMatchObject({ status: 'ok' });
      expect(JSON.parse(answers[3].body)).toMatchObject({ ip: '9.9.9.9' });
      expect(JSON.parse(answers[4].body)).toMatchObject({ success: true, count: 1 });
      expect(JSON.parse(answers[5].body)).toMatchObject({ ip: '4.4.4.4' });
    });

    it('read a head split over many writes, and the next one split across writes', async () => {
      const key = await h.newKey('pro');
      const both = [1, 2].map((i) => `GET /v1/ip/${i}.${i}.${i}.${i}?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`).join('');
      const parts = both.match(/[\s\S]{1,7}/g) ?? [];
      const answers = answersIn(await converse(h.url, parts, count(2), 2));
      expect(answers.map((a) => (JSON.parse(a.body) as { ip: string }).ip)).toEqual(['1.1.1.1', '2.2.2.2']);
    });

    it('bytes that cannot begin a plain GET go to node:http at once: a TLS handshake gets 400 invalid_request, not a wait', async () => {
      const { text, ms } = await rawExchange(h.url, '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003');
      expectRawError(text, 400, 'invalid_request');
      expect(ms).toBeLessThan(1000);
    });

    it('a head that shows a byte no plain head holds, before its end: 400 invalid_request at once, not at the headers timeout', async () => {
      const { text, ms } = await rawExchange(h.url, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHo\u0001st: x\r\n');
      expectRawError(text, 400, 'invalid_request');
      expect(ms).toBeLessThan(1000);
    });

    it('a client that half-closes after its requests gets every answer, then the close at once', async () => {
      const key = await h.newKey('pro');
      const head = (ip: string) => `GET /v1/ip/${ip} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
      const { text, ms } = await halfClosing(h.url, head('8.8.8.8') + head('1.1.1.1'));
      expect(answersIn(text).map((a) => JSON.parse(a.body).ip)).toEqual(['8.8.8.8', '1.1.1.1']);
      expect(ms).toBeLessThan(1000);
      const idle = await halfClosing(h.url, '');
      expect(idle.text).toBe('');
      expect(idle.ms).toBeLessThan(1000);
    });

    it('a client that half-closes in the middle of a head gets 400 invalid_request at once, as node:http answers it', async () => {
      const { text, ms } = await halfClosing(h.url, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n');
      expectRawError(text, 400, 'invalid_request');
      expect(ms).toBeLessThan(1000);
    });

    it('Connection: close gets Connection: close, and the server closes after the answer', async () => {
      const key = await h.newKey('pro');
      const { text } = await rawExchange(
        h.url,
        `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\nGET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      const answers = answersIn(text);
      expect(answers).toHaveLength(1);
      expect(answers[0].headers).toContain('connection: close');
      expect(parseAnswer(text).body.ip).toBe('8.8.8.8');
    });

    it('after Connection: close, bytes the client still sends before it closes do not keep the connection open', async () => {
      const key = await h.newKey('pro');
      const { hostname, port } = new URL(h.url);
      const accepted: net.Socket[] = [];
      const onConnection = (s: net.Socket) => accepted.push(s);
      h.service.server.on('connection', onConnection);
      const socket = net.connect(Number(port), hostname);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
      // Once the answer (and so the decision to close) has come: more bytes, then the client's close.
      await new Promise((resolve) => socket.once('data', resolve));
      socket.end(`GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\n\r\n`);
      h.service.server.removeListener('connection', onConnection);
      const served = accepted.find((s) => s.remotePort === socket.localPort)!;
      await until('the server to let the connection go', () => served.destroyed, 3000);
    });
  });

  describe('direct connections and a client that does not read', () => {
    it('a client that sends 10,000 lookups before reading any answer (more than the kernel buffers) gets all of them, in order', async () => {
      const h = await Harness.start({
        connections: { socketReads, directConnections: true },
        plans: { ...TEST_PLANS, business: { ...TEST_PLANS.business, rate_limit_per_second: 1_000_000 } },
      });
      const key = await h.newKey('business');
      const requests = Array.from(
        { length: 10_000 },
        (_, i) => `GET /v1/ip/${ipOf(i)}?pretty=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`,
      );
      const { hostname, port } = new URL(h.url);
      const socket = net.connect(Number(port), hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.pause();
      socket.write(requests.join(''));
      // Until the server holds back: answered what the system buffers, and counts no more.
      await untilSteady(
        'the count to stop moving',
        async () => (await h.usage(key)).monthly_quota.used as number,
        (used) => used > 0,
        10_000,
        50,
      );
      const chunks: string[] = [];
      let seen = 0;
      let tail = '';
      const done = new Promise<void>((resolve) =>
        socket.on('data', (d: Buffer) => {
          const chunk = d.toString('latin1');
          chunks.push(chunk);
          // Status lines counted as they come (one may straddle two chunks); parsing the whole text each time would be quadratic.
          seen += (tail + chunk).split('HTTP/1.1 ').length - 1;
          tail = chunk.slice(-8);
          if (seen >= 10_000 && chunk.endsWith('}')) resolve();
        }),
      );
      socket.resume();
      await done;
      socket.destroy();
      await h.stop();
      const ips = answersIn(chunks.join('')).map((a) => (JSON.parse(a.body) as { ip: string }).ip);
      expect(ips).toEqual(requests.map((_, i) => ipOf(i)));
    });
  });

  describe('direct connections on a store that answers later', () => {
    let h: Harness;
    let dir: string;
    beforeAll(async () => {
      dir = tempDir('netlookup-direct-');
      h = await Harness.start({
        store: awaitedStore(SqliteStore.open(path.join(dir, 'data'))),
        connections: { socketReads, directConnections: true },
        plans: { ...TEST_PLANS, business: { ...TEST_PLANS.business, rate_limit_per_second: 1_000_000 } },
      });
    });
    afterAll(async () => {
      await h?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answer pipelined lookups in order, each after the one before', async () => {
      const key = await h.newKey('pro');
      const ips = Array.from({ length: 50 }, (_, i) => `${i + 1}.2.3.4`);
      const requests = ips.map((ip) => `GET /v1/ip/${ip}?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      const answers = answersIn(await converse(h.url, [requests.join('') + 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'], count(51)));
      expect(answers.slice(0, 50).map((a) => (JSON.parse(a.body) as { ip: string }).ip)).toEqual(ips);
      expect(answers[50].status).toBe(200);
    });

    it('a client that leaves while its pipelined answers are awaited: the requests behind are not answered (nor counted), the service goes on', async () => {
      const key = await h.newKey('pro');
      const { hostname, port } = new URL(h.url);
      const socket = net.connect(Number(port), hostname);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(Array.from({ length: 20 }, () => `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`).join(''));
      socket.destroy();
      // The ones answered before the server saw the close are counted; the rest were never answered.
      const used = await untilSteady(
        'the count to stop moving',
        async () => (await h.usage(key)).monthly_quota.used as number,
        (n) => n > 0,
        5000,
        50,
      );
      expect(used).toBeLessThan(20);
    });

    it('a client that pipelines more than the connection holds while an answer is awaited gets every answer, in order', async () => {
      const key = await h.newKey('business');
      const requests = Array.from(
        { length: 2500 },
        (_, i) => `GET /v1/ip/${ipOf(i)}?fields=ip HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`,
      );
      expect(requests.join('').length).toBeGreaterThan(3 * 64 * 1024);
      const answers = answersIn(await converse(h.url, [requests.join('')], count(2500)));
      expect(answers.map((a) => (JSON.parse(a.body) as { ip: string }).ip)).toEqual(requests.map((_, i) => ipOf(i)));
    });
  });

  describe('direct connections: timeouts and stopping', () => {
    const HEADERS_MS = 300;
    const KEEP_ALIVE_MS = 200;
    let h: Harness;
    beforeAll(async () => {
      h = await Harness.start({
        connections: {
          headersTimeoutMs: HEADERS_MS,
          requestTimeoutMs: 600,
          keepAliveTimeoutMs: KEEP_ALIVE_MS,
          socketReads,
          directConnections: true,
        },
      });
    });
    afterAll(() => h.stop());

    it('a lookup head dripped a byte at a time: 408 request_timeout at the headers timeout', async () => {
      const { text, ms } = await rawExchange(h.url, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaa\r\n', 20);
      expectRawError(text, 408, 'request_timeout');
      expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 5);
      expect(ms).toBeLessThan(HEADERS_MS + HEADERS_MS / 4 + 250);
    });

    it('an idle connection after a lookup is closed after the keep-alive timeout, without an answer', async () => {
      const key = await h.newKey('pro');
      const { text, ms } = await rawExchange(h.url, `GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      expect(answersIn(text)).toHaveLength(1);
      expect(ms).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
      expect(ms).toBeLessThan(KEEP_ALIVE_MS + 1000 + 500);
    });

    it('stopping closes an idle connection at once', async () => {
      const own = await Harness.start({ connections: { socketReads, directConnections: true } });
      const key = await own.newKey('pro');
      const { hostname, port } = new URL(own.url);
      const socket = net.connect(Number(port), hostname);
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
      socket.write(`GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      await expect.poll(() => answersIn(text).length).toBe(1);
      const stopping = performance.now();
      await own.stop();
      expect((await closed) - stopping).toBeLessThan(400);
    });
  });

  describe('direct connections on a bare node:http server', () => {
    it("close an idle kept-alive connection after the keep-alive timeout and the server's keepAliveTimeoutBuffer, where it has one", async () => {
      const server = http.createServer((_req, res) => res.end('node'));
      // Node 22.19 and 24.6 on have the property (1000 by default); the Nodes before close after a fixed second
      Object.assign(server, { keepAliveTimeoutBuffer: 50 });
      const direct = answerDirectly(
        server,
        (exchange) => {
          exchange.status = 200;
          exchange.body = '{}';
          exchange.send();
        },
        { headersTimeoutMs: 1000, keepAliveTimeoutMs: 100, socketReads },
        20,
        { error: () => undefined },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const { text, ms } = await rawExchange(url, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n\r\n');
        expect(answersIn(text)).toHaveLength(1);
        expect(ms).toBeGreaterThanOrEqual(150);
        expect(ms).toBeLessThan(800);
      } finally {
        direct.stop();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('a failure while answering cuts that connection, is logged, and the server goes on', async () => {
      const server = http.createServer((_req, res) => res.end('node'));
      const errors: unknown[] = [];
      const direct = answerDirectly(
        server,
        () => {
          throw new Error('boom');
        },
        { headersTimeoutMs: 1000, keepAliveTimeoutMs: 1000, socketReads },
        100,
        { error: (entry: unknown) => errors.push(entry) },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const cut = await rawExchange(url, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n\r\n');
        expect(cut.text).toBe('');
        expect(errors).toHaveLength(1);
        const other = await rawExchange(url, 'GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        expect(other.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nnode$/);
      } finally {
        direct.stop();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
