/**
 * A socket's reads as Latin-1 text (one character per byte), one call per read, for the direct
 * connections.
 *
 * Read through its 'data' events, every read of a socket is a new Buffer over a new ArrayBuffer,
 * whose 64 KB backing store node allocates before the read and trims after it; the scavenger then
 * sweeps one ArrayBuffer per read, which took a third of each young-generation pause at full speed
 * (docs/performance.md). node:http's own parser reads into C++ and pays none of it. So where this
 * Node's net.Socket can, every read lands in one buffer shared by all the connections and becomes
 * text before the next read can land there: the machinery of net.Socket's `onread` option, which
 * node offers only for sockets it creates for a client, reached for an accepted socket through
 * the properties that option sets (found once on a probe socket by their symbols' names) and the
 * handle's `useUserBuffer`. Where either is missing, the 'data' events.
 */
import net from 'node:net';
import type { Socket } from 'node:net';
import type { ConnectionSettings } from '../../config/config.js';

type SocketReadMode = ConnectionSettings['socketReads'];

interface UserBufferHandle {
  useUserBuffer(buffer: Uint8Array): void;
}

interface OnreadSymbols {
  buffer: symbol;
  callback: symbol;
  generator: symbol;
}

/** Node reads at most this much at a time (libuv's suggested size). */
const SHARED_BYTES = 64 * 1024;
const shared = Buffer.allocUnsafeSlow(SHARED_BYTES);

const onreadSymbols: OnreadSymbols | null = (() => {
  // node:net reads `onread` from a new socket's options too (not only connect()'s).
  const options: net.SocketConstructorOpts = { onread: { buffer: Buffer.alloc(1), callback: () => true } };
  const probe = new net.Socket(options);
  const named = new Map(Object.getOwnPropertySymbols(probe).map((symbol) => [symbol.description, symbol]));
  probe.destroy();
  const [buffer, callback, generator] = ['kBuffer', 'kBufferCb', 'kBufferGen'].map((name) => named.get(name));
  return buffer && callback && generator ? { buffer, callback, generator } : null;
})();

/** Whether this Node lets accepted sockets read into the shared buffer. */
export const sharedReadsAvailable = onreadSymbols !== null;

export interface TextReads {
  /**
   * Ends the text calls: what the socket reads afterwards goes to its stream as Buffers, as if it
   * had always been read through its events (node:http, given the socket, reads on from there).
   */
  stop(): void;
}

/** Calls `onText` with each read of `socket`, from now on; in `mode` where this Node allows it, else through 'data' events. */
export function readAsText(socket: Socket, onText: (text: string) => void, mode: SocketReadMode): TextReads {
  const handle = (socket as unknown as { _handle: Partial<UserBufferHandle> | null })._handle;
  if (mode === 'shared' && onreadSymbols !== null && typeof handle?.useUserBuffer === 'function') {
    return readIntoShared(socket, handle as UserBufferHandle, onreadSymbols, onText);
  }
  const onData = (chunk: Buffer) => onText(chunk.toString('latin1'));
  socket.on('data', onData);
  return { stop: () => socket.removeListener('data', onData) };
}

function readIntoShared(socket: Socket, handle: UserBufferHandle, symbols: OnreadSymbols, onText: (text: string) => void): TextReads {
  let reading = true;
  const fields = socket as unknown as Record<symbol, unknown>;
  fields[symbols.buffer] = shared;
  fields[symbols.generator] = null;
  // The return value is net.Socket's: false stops reading, as a full stream would.
  fields[symbols.callback] = (bytes: number): boolean => {
    if (reading) {
      onText(shared.toString('latin1', 0, bytes));
      return true;
    }
    return socket.push(Buffer.from(shared.subarray(0, bytes)));
  };
  handle.useUserBuffer(shared);
  return {
    stop: () => {
      reading = false;
    },
  };
}
