/**
 * The plain request heads the direct connections read themselves: what the subset takes and
 * leaves, and, against node:http's own parser on a real listening server, that every head the
 * subset takes reads there as the same target, headers and keep-alive.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEAD_BYTES, plainGetAt, type PlainGet } from '../../src/http/transport/plainGet.js';
import { assertSeeded } from './fuzzSeed.js';
import { startNodeReader, type NodeReader } from './nodeReadings.js';

const plain = (text: string) => plainGetAt(text, 0) as PlainGet;

describe('plainGetAt', () => {
  it('reads the heads of usual clients: target, headers by lower-case name, trimmed values, keep-alive', () => {
    const wrk = 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n\r\n';
    expect(plain(wrk)).toEqual({ url: '/v1/ip/8.8.8.8', headers: { host: '127.0.0.1:9000' }, keepAlive: true, end: wrk.length });
    const curl =
      'GET /v1/mac/00:50:56:12:34:56?fields=vendor.name&pretty=1 HTTP/1.1\r\nHost: x\r\nUser-Agent: curl/8.5.0\r\n' +
      'Accept: */*\r\nX-API-Key: \t secret \t\r\nConnection: Close\r\n\r\n';
    expect(plain(curl)).toEqual({
      url: '/v1/mac/00:50:56:12:34:56?fields=vendor.name&pretty=1',
      headers: { host: 'x', 'user-agent': 'curl/8.5.0', accept: '*/*', 'x-api-key': 'secret', connection: 'Close' },
      keepAlive: false,
      end: curl.length,
    });
    expect(plain('GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nX-Empty:\r\n\r\n').headers).toEqual({
      host: 'x',
      connection: 'keep-alive',
      'x-empty': '',
    });
  });

  it('reads the next head from where the last one ended, and waits for a head not yet whole', () => {
    const one = 'GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\n\r\n';
    const two = 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: y\r\n\r\n';
    const text = one + two + 'GET /v1/ip/9';
    expect(plain(text).end).toBe(one.length);
    expect(plainGetAt(text, one.length)).toEqual({
      url: '/v1/ip/8.8.8.8',
      headers: { host: 'y' },
      keepAlive: true,
      end: one.length + two.length,
    });
    expect(plainGetAt(text, one.length + two.length)).toBe('incomplete');
    expect(plainGetAt('GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\nX', 0)).toBe('other');
    expect(plainGetAt('GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\n\r', 0)).toBe('incomplete');
    expect(plainGetAt('', 0)).toBe('incomplete');
    expect(plainGetAt('GE', 0)).toBe('incomplete');
    expect(plainGetAt('GET /v1', 0)).toBe('incomplete');
    // Another method, or bytes that are no HTTP at all, need not be waited for.
    expect(plainGetAt('POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\n', 0)).toBe('other');
    expect(plainGetAt('GET http://x/', 0)).toBe('other');
    expect(plainGetAt('\u0016\u0003\u0001\u0002\u0000\u0001', 0)).toBe('other');
    expect(plainGetAt(one + 'PO', one.length)).toBe('other');
    // Nor need a head that has already shown a byte, or a line, no plain head holds.
    expect(plainGetAt('GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHo\u0001st: x\r\n', 0)).toBe('other');
    expect(plainGetAt('GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: \u0080', 0)).toBe('other');
    expect(plainGetAt('GET /v1/ip/1.1 .1', 0)).toBe('other');
    expect(plainGetAt('GET /v1/ip/1.1.1.1 HTTP/1.0\r\n', 0)).toBe('other');
    expect(plainGetAt(one + 'GET /v1/ip/9 HTTP/1.1\r\nBad Name: x', one.length)).toBe('other');
  });

  it('leaves everything outside the subset to node:http', () => {
    const host = 'Host: x\r\n';
    for (const head of [
      `POST /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}\r\n`,
      `HEAD /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}\r\n`,
      `get /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.0\r\n${host}\r\n`,
      `GET http://x/v1/ip/1.1.1.1 HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1#a HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/"1" HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1  HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\n\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X: a\rb\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X: caf\u00e9\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X: a\r\n b\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X : a\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X\u0000: a\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X: a\u0001\r\n\r\n`,
      'GET /v1/ip/1.1.1.1 HTTP/1.1\r\nX: a\r\n\r\n',
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}HOST: y\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X-Api-Key: a\r\nx-api-key: b\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Expect: 100-continue\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Upgrade: websocket\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Connection: keep-alive, Upgrade\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Connection: close\t\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Connection:\tkeep-alive\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}${'X-Pad: a\r\n'.repeat(65)}\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X-Pad: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`,
      `\r\nGET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}__proto__: a\r\n\r\n`,
      `GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}Constructor: a\r\n\r\n`,
    ])
      expect(plainGetAt(head, 0), JSON.stringify(head)).toBe('other');
    // A head that cannot end within the bound is not waited for.
    expect(plainGetAt(`GET /v1/ip/1.1.1.1 HTTP/1.1\r\n${host}X-Pad: ${'a'.repeat(MAX_HEAD_BYTES)}`, 0)).toBe('other');
  });
});

describe('plainGetAt reads as node:http reads (differential, a real listening server)', () => {
  let node: NodeReader;
  beforeAll(async () => {
    node = await startNodeReader();
  });
  afterAll(() => node?.close());

  const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
  const name = fc.oneof(
    fc.constantFrom('Host', 'host', 'X-API-Key', 'Connection', 'Authorization', 'User-Agent', 'Content-Length', 'Expect'),
    token,
  );
  const byte = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c));
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.stringMatching(/^[\x21-\x7e]{0,16}$/) },
    fc.constantFrom('keep-alive', 'close', 'Close', 'upgrade', '0', 'a, b', ' x ', '\tx', 'close\t', '\tclose', ' keep-alive \t'),
    fc.stringMatching(/^[\t\x20-\x7e]{0,16}$/),
    fc.array(byte, { maxLength: 6 }).map((c) => c.join('')),
  );
  const line = fc.oneof(
    { weight: 30, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}:${v}\r\n`) },
    { weight: 1, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n} :${v}\r\n`) },
    { weight: 1, arbitrary: value.map((v) => ` ${v}\r\n`) },
    { weight: 1, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}:${v}\n`) },
  );
  const target = fc.oneof(
    fc.constantFrom('/v1/ip/8.8.8.8', '/v1/ip/8.8.8.8?key=a&fields=ip', '/v1/mac/00:50:56', '/v1/ip/%3A%3A1'),
    fc.stringMatching(/^\/[\x21-\x7e]{0,20}$/),
    fc.array(byte, { maxLength: 8 }).map((c) => `/v1/ip/${c.join('')}`),
  );
  const requestLine = fc.oneof(
    { weight: 12, arbitrary: target.map((t) => `GET ${t} HTTP/1.1\r\n`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('POST', 'GET', 'HEAD'), target, fc.constantFrom('HTTP/1.0', 'HTTP/1.1', 'HTTP/2.0'))
        .map(([m, t, v]) => `${m} ${t} ${v}\r\n`),
    },
  );
  const head = fc
    .tuple(requestLine, fc.boolean(), fc.array(line, { maxLength: 6 }))
    .map(([first, withHost, lines]) => `${first}${withHost ? 'Host: x\r\n' : ''}${lines.join('')}\r\n`);

  it('every proper start of a head the subset takes is waited for, never handed over', async () => {
    let taken = 0;
    await assertSeeded(
      fc.property(head, (text) => {
        if (typeof plainGetAt(text, 0) !== 'object') return;
        taken++;
        for (let end = 0; end < text.length; end++)
          expect(plainGetAt(text.slice(0, end), 0), JSON.stringify(text.slice(0, end))).toBe('incomplete');
      }),
      { numRuns: 1500 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it('every head the subset takes reads the same on node:http; most generated heads are outside it', async () => {
    let taken = 0;
    await assertSeeded(
      fc.asyncProperty(head, async (text) => {
        const read = plainGetAt(text, 0);
        if (read === 'incomplete' || read === 'other') return;
        taken++;
        const [reading] = await node.readings(text);
        expect(reading?.status).toBe(200);
        expect(reading.url).toBe(read.url);
        expect(reading.headers).toEqual({ ...read.headers });
        expect(reading.keepAlive).toBe(read.keepAlive);
      }),
      { numRuns: 1500 },
    );
    expect(taken).toBeGreaterThan(100);
  });
});
