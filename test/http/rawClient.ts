/** Raw TCP clients for the tests of what node:http does before Koa: exact bytes, slow senders. */
import net from 'node:net';
import { expect } from 'vitest';

export interface RawAnswer {
  /** everything the server sent */
  text: string;
  /** milliseconds from connecting until the server closed the connection */
  ms: number;
}

export interface ParsedAnswer {
  status: number;
  headers: string[];
  body: any;
}

/**
 * Connects, sends `head`, then `drip` one byte every `everyMs` (from the start again when it runs
 * out) until the server closes the connection.
 */
export function rawExchange(url: string, head: string, drip = '', everyMs = 50): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), hostname, () => {
      if (head !== '') socket.write(head);
      if (drip === '') return;
      let at = 0;
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip[at++ % drip.length]);
      }, everyMs);
    });
    socket.on('data', (d) => (text += d));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: performance.now() - started });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the answer arrived still leaves the answer to check.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
  });
}

/** One HTTP/1.1 answer (the status line, lower-cased header lines, the JSON body). */
export function parseAnswer(text: string): ParsedAnswer {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...headers] = text.slice(0, split).split('\r\n');
  const body = text.slice(split + 4);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers: headers.map((h) => h.toLowerCase()),
    body: body === '' ? undefined : JSON.parse(body),
  };
}

/** A client's socket with what it has received so far. */
export type SlowSocket = net.Socket & { answer: string };

/** Opens a connection (from `localAddress` when given, e.g. 127.0.0.2) and sends `head` without ending it; resolves once connected. */
export function openSlow(url: string, head: string, localAddress?: string): Promise<SlowSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: hostname, localAddress }) as SlowSocket;
    socket.answer = '';
    socket.on('data', (d) => (socket.answer += d));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(head);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Whether a whole answer with a JSON body has arrived on the socket (all the refusals here are one). */
export const answered = (socket: SlowSocket): boolean => /\r\n\r\n\{[\s\S]*\}\s*$/.test(socket.answer);

/** Destroys the sockets and waits until each has closed on this side. */
export async function closeAll(sockets: net.Socket[]): Promise<void> {
  await Promise.all(
    sockets.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : (s.once('close', () => resolve()), s.destroy())))),
  );
}

/** A raw answer in the error envelope with the code's status, CORS and a closed connection. */
export function expectRawError(text: string, status: number, code: string, ...headers: string[]): void {
  const answer = parseAnswer(text);
  expect(answer.status).toBe(status);
  for (const header of [
    'content-type: application/json; charset=utf-8',
    'access-control-allow-origin: *',
    'connection: close',
    ...headers,
  ]) {
    expect(answer.headers).toContain(header);
  }
  expect(answer.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}
