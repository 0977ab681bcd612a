import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

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

describe('requests the HTTP parser refuses', () => {
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
});
