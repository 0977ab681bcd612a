import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';
import { expectRawError, parseAnswer, rawExchange } from './rawClient.js';

/** Sends raw bytes and returns the whole answer (the server closes the connection). */
function raw(url: string, request: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string) {
  const [head, body] = answer.split('\r\n\r\n');
  const [statusLine, ...headers] = head.split('\r\n');
  return { status: Number(statusLine.split(' ')[1]), headers: headers.map((h) => h.toLowerCase()), body: JSON.parse(body) };
}

describe('requests the HTTP parser refuses, odd methods, expectations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  it('an unknown method or broken request line: 400 invalid_request in the envelope, with CORS', async () => {
    for (const request of ['FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /v1 HTTP/9\r\n\r\n', 'not http at all\r\n\r\n']) {
      const answer = parse(await raw(h.url, request));
      expect(answer.status).toBe(400);
      expect(answer.headers).toContain('content-type: application/json; charset=utf-8');
      expect(answer.headers).toContain('access-control-allow-origin: *');
      expect(answer.body).toEqual({ success: false, error: { code: 'invalid_request', message: expect.any(String) } });
    }
  });

  it('headers over the limit: 431 headers_too_large in the envelope', async () => {
    const answer = parse(await raw(h.url, `GET /v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body.error.code).toBe('headers_too_large');
  });

  it('CONNECT: 405 method_not_allowed in the envelope, not a dropped connection', async () => {
    const { text } = await rawExchange(h.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectRawError(text, 405, 'method_not_allowed', 'allow: get, post, options');
  });

  it('methods HTTP knows but no endpoint serves: 405 method_not_allowed with Allow', async () => {
    for (const request of [
      'TRACE / HTTP/1.1',
      'PROPFIND /health HTTP/1.1',
      'DELETE /health HTTP/1.1',
      'PURGE /v1/ip/8.8.8.8 HTTP/1.1',
      'M-SEARCH * HTTP/1.1',
    ]) {
      const { text } = await rawExchange(h.url, `${request}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expectRawError(text, 405, 'method_not_allowed');
      expect(parseAnswer(text).headers.some((line) => line.startsWith('allow: '))).toBe(true);
    }
  });

  it('an Expect other than 100-continue: 417 expectation_failed in the envelope', async () => {
    for (const expectation of ['fooo', '200-ok']) {
      const { text } = await rawExchange(
        h.url,
        `POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\nContent-Length: 2\r\n\r\n`,
      );
      expectRawError(text, 417, 'expectation_failed');
      expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    }
  });

  it('Expect: 100-continue: the interim answer, then the request is served', async () => {
    const { text } = await rawExchange(
      h.url,
      'POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expectRawError(text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length), 401, 'missing_key');
  });
});
