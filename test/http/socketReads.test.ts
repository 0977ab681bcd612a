/**
 * readAsText on real loopback sockets, in both modes: each read arrives as its bytes' Latin-1
 * text, connections sharing the buffer keep their own bytes, pausing stops the reads, a client's
 * end closes the socket, and after stop() the stream carries the bytes on as Buffers.
 */
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readAsText, sharedReadsAvailable } from '../../src/http/transport/socketReads.js';
import { elapse, until } from '../until.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A listening server whose accepted sockets are handed to `accept`; connects `clients` to it. */
async function pairs(clients: number, accept: (socket: Socket) => void): Promise<Socket[]> {
  const server = net.createServer(accept);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Promise.all(
    Array.from(
      { length: clients },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        }),
    ),
  );
}

it('this Node lets accepted sockets read into the shared buffer (the default mode is in effect)', () => {
  expect(sharedReadsAvailable).toBe(true);
});

describe.each(['shared', 'events'] as const)('socket reads: %s', (mode) => {
  it('every byte arrives once, as Latin-1 text, each connection its own, interleaved over one buffer', async () => {
    const texts = new Map<number, string>();
    let next = 0;
    const clients = await pairs(3, (socket) => {
      const id = next++;
      texts.set(id, '');
      readAsText(socket, (text) => texts.set(id, texts.get(id) + text), mode);
    });
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (let round = 0; round < 20; round++) clients.forEach((client, i) => client.write(Buffer.concat([Buffer.from(`${i}:`), bytes])));
    const expected = (i: number) =>
      Buffer.concat(Array.from({ length: 20 }, () => Buffer.concat([Buffer.from(`${i}:`), bytes]))).toString('latin1');
    await until('every byte', () => [...texts.values()].reduce((sum, text) => sum + text.length, 0) === 3 * 20 * 258, 2000, 5);
    const got = [...texts.values()].sort((a, b) => a.localeCompare(b));
    expect(got).toEqual([0, 1, 2].map(expected));
    clients.forEach((client) => client.destroy());
  });

  it('a paused socket reads nothing until it is resumed', async () => {
    let read = '';
    let accepted!: Socket;
    const [client] = await pairs(1, (socket) => {
      accepted = socket;
      readAsText(socket, (text) => (read += text), mode);
    });
    client.write('first');
    await until('the first write', () => read === 'first', 2000, 5);
    accepted.pause();
    client.write('second');
    // Nothing must be read while paused: no event to wait for, so a bounded wait.
    await elapse(100);
    expect(read).toBe('first');
    accepted.resume();
    await until('the second write, once resumed', () => read === 'firstsecond', 2000, 5);
    client.destroy();
  });

  it("the client's end ends and closes the socket", async () => {
    let read = '';
    const closed = new Promise<void>((resolve) => {
      void pairs(1, (socket) => {
        readAsText(socket, (text) => (read += text), mode);
        socket.on('close', () => resolve());
      }).then(([client]) => client.end('bye'));
    });
    await closed;
    expect(read).toBe('bye');
  });

  it('after stop(), what the socket reads goes to its stream as Buffers, and nothing more to the text', async () => {
    let read = '';
    let accepted!: Socket;
    const [client] = await pairs(1, (socket) => {
      accepted = socket;
      const reads = readAsText(
        socket,
        (text) => {
          read += text;
          reads.stop();
        },
        mode,
      );
    });
    client.write('text');
    await until('the text', () => read === 'text', 2000, 5);
    const chunks: Buffer[] = [];
    accepted.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.write(Buffer.from([0xff, 0x00, 0x41]));
    await until('the three bytes', () => Buffer.concat(chunks).length === 3, 2000, 5);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from([0xff, 0x00, 0x41]));
    expect(read).toBe('text');
    client.destroy();
  });
});
