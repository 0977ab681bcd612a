/**
 * A request node:http's parser refuses after one it read on the same connection: refused with the
 * error envelope when no answer is under way, the connection cut when an answer has begun (its
 * head sent, its body not), as the service wires node:http's clientError (src/http/server.ts).
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientError, ConnectionSlots } from '../../src/http/transport/connections.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A server whose /slow answer sends its head and half its body, then waits for `release`; others answer at once. */
async function start(): Promise<{ url: string; release: () => void }> {
  let held: http.ServerResponse | null = null;
  const server = http.createServer((req, res) => {
    slots.noteRequest(req, res);
    if (req.url !== '/slow') {
      res.end('ok');
      return;
    }
    res.writeHead(200, { 'Content-Length': '10' });
    res.write('12345');
    held = res;
  });
  const settings = { maxConnections: 100, maxConnectionsPerClient: 100, bodyTimeoutMs: 60_000, sendTimeoutMs: 60_000 };
  const slots = new ConnectionSlots(server, settings, [], () => false, 1000);
  server.on('clientError', (error: Error, socket: Duplex) => answerClientError(error, socket, slots.answerBegun(socket)));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release: () => held?.end('67890') };
}

const BAD = 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n';

/** Sends `first`, then BAD once the answer so far matches `seen`; everything read until the server closes. */
function converse(url: string, first: string, seen: RegExp): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    let sent = false;
    const socket = net.connect(Number(port), hostname, () => socket.write(first));
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (!sent && seen.test(text)) {
        sent = true;
        socket.write(BAD);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

describe("node:http's clientError on a connection", () => {
  it('after an answer sent in full: 400 invalid_request in the envelope', async () => {
    const { url } = await start();
    const text = await converse(url, 'GET /fast HTTP/1.1\r\nHost: x\r\n\r\n', /\r\n\r\nok$/);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nokHTTP\/1\.1 400 Bad Request\r\n[\s\S]*"code":"invalid_request"/);
  });

  it('while an answer is under way: the connection is cut, nothing written into that answer', async () => {
    const { url, release } = await start();
    const text = await converse(url, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n', /12345$/);
    release();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n12345$/);
  });
});
