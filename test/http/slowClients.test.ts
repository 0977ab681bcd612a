/**
 * Slow clients against a real listening service with small timeouts: a client dripping its headers
 * or its body gets 408 request_timeout in the envelope within the configured time, an idle kept-alive
 * connection is closed; the settings come from the environment, strictly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/config/config.js';
import { connectionSettings } from '../../src/http/transport/connections.js';
import { ADMIN_TOKEN, Harness } from './harness.js';
import { expectRawError, parseAnswer, rawExchange } from './rawClient.js';

const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 200;
/** node:http checks the timeouts every quarter of the shorter one; a little more for a busy machine */
const SLACK_MS = HEADERS_MS / 4 + 250;

function expectTimeoutAnswer(text: string): void {
  expectRawError(text, 408, 'request_timeout');
}

describe('slow clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({
      connections: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, keepAliveTimeoutMs: KEEP_ALIVE_MS },
    });
  });
  afterAll(() => h.stop());

  it('headers dripped a byte at a time: 408 request_timeout at the headers timeout', async () => {
    const { text, ms } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaa\r\n', 20);
    expectTimeoutAnswer(text);
    expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 5);
    expect(ms).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('a connection that sends nothing is closed at the headers timeout', async () => {
    const { text, ms } = await rawExchange(h.url, '');
    expectTimeoutAnswer(text);
    expect(ms).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('a body dripped a byte at a time: 408 request_timeout at the request timeout, one answer only', async () => {
    const head =
      `POST /admin/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"plan":"pro",';
    const { text, ms } = await rawExchange(h.url, head, ' ', 20);
    expectTimeoutAnswer(text);
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(REQUEST_MS - 5);
    expect(ms).toBeLessThan(REQUEST_MS + SLACK_MS);
    // The account was never created: the service still answers, and the next request is served.
    expect((await h.call('/health')).status).toBe(200);
  });

  it('an idle kept-alive connection is closed after the keep-alive timeout, without an answer', async () => {
    const { text, ms } = await rawExchange(h.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(parseAnswer(text).status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    // node:http closes a second after the time it announces in Keep-Alive, for requests on their way.
    expect(ms).toBeLessThan(KEEP_ALIVE_MS + 1000 + 500);
  });
});

describe('timeout and connection settings from the environment', () => {
  it('seconds, fractions allowed, as milliseconds; defaults for what is unset', () => {
    const config = configFromEnv({
      NETLOOKUP_HEADERS_TIMEOUT: '2.5',
      NETLOOKUP_REQUEST_TIMEOUT: '20',
      NETLOOKUP_KEEP_ALIVE_TIMEOUT: '1',
      NETLOOKUP_MAX_CONNECTIONS: '300',
      NETLOOKUP_BODY_TIMEOUT: '4',
      NETLOOKUP_SEND_TIMEOUT: '0.5',
    });
    expect(connectionSettings(config)).toEqual({
      headersTimeoutMs: 2500,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 1000,
      bodyTimeoutMs: 4000,
      sendTimeoutMs: 500,
      maxConnections: 300,
      maxConnectionsPerClient: 75,
      directConnections: true,
      socketReads: 'shared',
    });
    expect(connectionSettings(configFromEnv({ NETLOOKUP_DIRECT_CONNECTIONS: 'off', NETLOOKUP_SOCKET_READS: 'events' }))).toMatchObject({
      directConnections: false,
      socketReads: 'events',
    });
    expect(connectionSettings(configFromEnv({ NETLOOKUP_DIRECT_CONNECTIONS: 'on', NETLOOKUP_SOCKET_READS: 'shared' }))).toMatchObject({
      directConnections: true,
      socketReads: 'shared',
    });
    expect(connectionSettings(configFromEnv({ NETLOOKUP_MAX_CONNECTIONS_PER_CLIENT: '5' })).maxConnectionsPerClient).toBe(5);
    const defaults = connectionSettings(configFromEnv({}));
    expect(defaults).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      bodyTimeoutMs: 10_000,
      sendTimeoutMs: 10_000,
    });
    expect(defaults.maxConnections).toBeGreaterThan(0);
    expect(defaults.maxConnections).toBeLessThanOrEqual(1024);
    expect(defaults.maxConnectionsPerClient).toBe(Math.max(1, Math.floor(defaults.maxConnections / 4)));
  });

  it('a bad value refuses to start, naming the variable', () => {
    const bad: [string, string][] = [
      ['NETLOOKUP_HEADERS_TIMEOUT', '10s'],
      ['NETLOOKUP_HEADERS_TIMEOUT', '0'],
      ['NETLOOKUP_REQUEST_TIMEOUT', '-1'],
      ['NETLOOKUP_REQUEST_TIMEOUT', ' 30'],
      ['NETLOOKUP_KEEP_ALIVE_TIMEOUT', '1e3'],
      ['NETLOOKUP_KEEP_ALIVE_TIMEOUT', '99999'],
      ['NETLOOKUP_MAX_CONNECTIONS', '1.5'],
      ['NETLOOKUP_MAX_CONNECTIONS', '0'],
      ['NETLOOKUP_MAX_CONNECTIONS', 'many'],
      ['NETLOOKUP_MAX_CONNECTIONS_PER_CLIENT', '0'],
      ['NETLOOKUP_BODY_TIMEOUT', '5m'],
      ['NETLOOKUP_SEND_TIMEOUT', '0'],
      ['NETLOOKUP_DIRECT_CONNECTIONS', 'no'],
      ['NETLOOKUP_SOCKET_READS', 'private'],
    ];
    for (const [name, value] of bad) expect(() => configFromEnv({ [name]: value }), `${name}=${value}`).toThrow(name);
    expect(() => configFromEnv({ NETLOOKUP_HEADERS_TIMEOUT: '40' })).toThrow(/NETLOOKUP_HEADERS_TIMEOUT.*NETLOOKUP_REQUEST_TIMEOUT/);
  });
});
