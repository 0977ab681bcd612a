/**
 * node:http's own reading of request bytes, for the tests of the direct connections' reader
 * (plainGet.ts): a bare node:http server that answers every request it reads with its target and
 * headers, and a client that sends bytes and collects those readings.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** node:http's reading of one request: the status it answered and, when 200, what it read. */
interface NodeReading {
  status: number;
  url?: string;
  headers?: Record<string, string>;
  keepAlive?: boolean;
}

export interface NodeReader {
  /** node:http's readings of the requests in `bytes` (Latin-1), in order, up to its first refusal */
  readings(bytes: string): Promise<NodeReading[]>;
  close(): Promise<void>;
}

export async function startNodeReader(): Promise<NodeReader> {
  // Timeouts short and checked often: bytes that leave a request unfinished end soon.
  const server = http.createServer({ headersTimeout: 300, requestTimeout: 500, connectionsCheckingInterval: 50 }, (req, res) => {
    const body = JSON.stringify({ url: req.url, headers: req.headers });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  // A refusal after the answers already written, never in place of them.
  server.on('clientError', (_error, socket: net.Socket) => socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    readings: (bytes) => readingsOf(port, bytes),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readingsOf(port: number, bytes: string): Promise<NodeReading[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.end(Buffer.from(bytes, 'latin1')));
    // A connection node:http holds (an upgrade, a tunnel) has given what it will within this.
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => resolve(answersIn(text)));
  });
}

function answersIn(text: string): NodeReading[] {
  const readings: NodeReading[] = [];
  for (let at = 0; at < text.length;) {
    const split = text.indexOf('\r\n\r\n', at);
    if (split === -1) break;
    const lines = text.slice(at, split).toLowerCase().split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const length = Number(lines.find((l) => l.startsWith('content-length: '))?.slice(16) ?? 0);
    const body = text.slice(split + 4, split + 4 + length);
    at = split + 4 + length;
    if (status !== 200 || body.length < length) {
      readings.push({ status });
      break;
    }
    const read = JSON.parse(body) as { url: string; headers: Record<string, string> };
    readings.push({ status, url: read.url, headers: read.headers, keepAlive: lines.includes('connection: keep-alive') });
  }
  return readings;
}
