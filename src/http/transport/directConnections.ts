/**
 * Connections whose requests the service reads itself, before node:http: the single lookups in
 * the plain subset of HTTP/1.1 that plainGet.ts reads are answered straight on the socket, through
 * the same answering as on node:http (singleLookups.ts). node:http's request and response objects,
 * its header handling and its streams cost more per request than the whole lookup
 * (docs/performance.md, "HTTP").
 *
 * Every connection starts here. At the first request this reader does not take (another path or
 * method, a body, anything outside the subset), the connection is handed to node:http at that
 * request's first byte, when no answer is pending, and stays there: node:http reads it from that
 * byte on as a new connection, with its own rules, limits and errors.
 *
 * What node:http does for a connection, this does the same way for the connections it holds:
 * answers in request order, `Date`, `Connection` and `Keep-Alive` as node:http writes them, the
 * headers timeout (408 request_timeout) for a connection that has not sent a whole head, the
 * keep-alive timeout for an idle one, `Connection: close` when the client asks for it or the
 * server is stopping. test/http/directConnections.test.ts compares the bytes of both.
 *
 * Answers are not written at once: each connection queues its answers, and they go to the sockets
 * together once the event loop has read what its I/O turn brought (setImmediate), a connection's
 * queued answers in one write. A socket write costs more in the kernel (loopback TCP delivers to
 * the client in that call) than the whole answer in JS, and evicts what the CPU caches held for
 * the next answer; answering every request read first, then writing, keeps them warm
 * (docs/performance.md). Whatever must not wait behind them (a hand-over, a close) writes the
 * connection's queue first.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { AnsweringExchange, type RequestSource } from '../request/exchange.js';
import { plainGetAt, type PlainGet } from './plainGet.js';
import { TOKEN_CHARS } from './headerNames.js';
import { singleLookupTarget, type SingleLookup, type SingleLookupAnswerer } from '../v1/singleLookups.js';
import { answeredHere, answerOnSocket } from './connections.js';
import { readAsText, type TextReads } from './socketReads.js';
import type { ConnectionSettings } from '../../config/config.js';
import type { Logger } from 'pino';

/**
 * What a connection may have read and not answered while an answer is awaited (a pipelining
 * client on a shared store) before it is read no further. Below it nothing is paused: pausing and
 * resuming a socket costs system calls, which one awaited answer per request would pay each time.
 */
const PENDING_BOUND = 64 * 1024;

/** Queued answers past this are written at once, so that the socket's own backpressure applies as soon as it would have. */
const QUEUED_BOUND = 64 * 1024;

/**
 * How long after the time it announces node:http closes an idle kept-alive connection, where its
 * server does not say (`server.keepAliveTimeoutBuffer`, Node 22.19 and 24.6 on): the fixed second
 * of the Nodes before.
 */
const KEEP_ALIVE_BUFFER_MS = 1000;

/** node:http's checks of a header it is asked to send (checkIsHttpToken, checkInvalidHeaderChar). */
const HEADER_NAME = new RegExp(`^[${TOKEN_CHARS}]+$`);
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export interface DirectConnections {
  /** whether the socket is held here with a request being answered */
  answering(socket: Socket): boolean;
  /** From now on every answer closes its connection; the idle connections held here are closed. */
  stop(): void;
  /** Closes the connections held here that have no request being answered. */
  closeIdle(): void;
}

/** What serves when the direct connections do not: node:http takes every connection. */
export const NO_DIRECT_CONNECTIONS: DirectConnections = Object.freeze({
  answering: () => false,
  stop: () => undefined,
  closeIdle: () => undefined,
});

/**
 * Why the direct connections cannot run on this Node, or null: node:http's server must have exactly
 * one 'connection' listener (taken over, then handed each connection it should serve). A newer Node
 * that changes that gets node:http alone, with the reason in the log, rather than a broken fast path.
 */
export function directConnectionsUnavailable(server: http.Server): string | null {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1 || typeof listeners[0] !== 'function') {
    return `node:http's server has ${listeners.length} connection listeners, not one`;
  }
  return null;
}

/**
 * Takes every new connection of `server` first, in place of node:http's own connection listener,
 * which gets the connections handed over.
 */
export function answerDirectly(
  server: http.Server,
  answer: SingleLookupAnswerer,
  settings: Pick<ConnectionSettings, 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'socketReads'>,
  checkEveryMs: number,
  logger: Pick<Logger, 'error'>,
): DirectConnections {
  const [nodeListener, ...others] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (nodeListener === undefined || others.length > 0) throw new Error('answerDirectly needs node:http’s listener alone');
  server.removeListener('connection', nodeListener);
  const front = new Front(server, answer, settings, (socket) => nodeListener.call(server, socket), logger);
  server.on('connection', (socket: Socket) => front.accept(socket));
  const check = setInterval(() => front.checkTimeouts(), checkEveryMs);
  check.unref();
  server.once('close', () => clearInterval(check));
  return front;
}

class Front implements DirectConnections {
  readonly held = new Set<Connection>();
  private readonly bySocket = new WeakMap<Socket, Connection>();
  stopping = false;
  /** the Connection and Keep-Alive lines of a kept-alive answer, as node:http writes them */
  readonly keepAliveLines: string;
  /** how long an idle kept-alive connection stays open, as node:http keeps its own */
  private readonly keepAliveMs: number;
  /** connections with answers queued, written when the loop's I/O turn is done */
  private queued: Connection[] = [];
  private writeScheduled = false;

  constructor(
    server: http.Server,
    readonly answer: SingleLookupAnswerer,
    readonly settings: Pick<ConnectionSettings, 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'socketReads'>,
    readonly handOver: (socket: Socket) => void,
    readonly logger: Pick<Logger, 'error'>,
  ) {
    const seconds = Math.floor(server.keepAliveTimeout / 1000);
    this.keepAliveLines = `Connection: keep-alive\r\n${server.keepAliveTimeout ? `Keep-Alive: timeout=${seconds}\r\n` : ''}`;
    const { keepAliveTimeoutBuffer } = server as { keepAliveTimeoutBuffer?: unknown };
    this.keepAliveMs =
      settings.keepAliveTimeoutMs + (typeof keepAliveTimeoutBuffer === 'number' ? keepAliveTimeoutBuffer : KEEP_ALIVE_BUFFER_MS);
  }

  accept(socket: Socket): void {
    // Refused by the connection cap: it has had its answer.
    if (answeredHere(socket)) return;
    socket.setNoDelay(true);
    const connection = new Connection(this, socket);
    this.held.add(connection);
    this.bySocket.set(socket, connection);
  }

  release(connection: Connection): void {
    this.held.delete(connection);
    this.bySocket.delete(connection.socket);
  }

  answering(socket: Socket): boolean {
    return this.bySocket.get(socket)?.answering === true;
  }

  stop(): void {
    this.stopping = true;
    this.closeIdle();
  }

  closeIdle(): void {
    for (const connection of this.held) {
      if (connection.answering) continue;
      connection.writeQueued();
      connection.socket.destroy();
    }
  }

  /** Called by a connection when its first answer is queued: its answers are written with the others' later in this turn. */
  queue(connection: Connection): void {
    this.queued.push(connection);
    if (!this.writeScheduled) {
      this.writeScheduled = true;
      setImmediate(this.writeAll);
    }
  }

  private readonly writeAll = () => {
    this.writeScheduled = false;
    const connections = this.queued;
    this.queued = [];
    for (const connection of connections) connection.writeQueued();
  };

  checkTimeouts(): void {
    const now = performance.now();
    const { headersTimeoutMs } = this.settings;
    for (const connection of this.held) {
      if (connection.answering || answeredHere(connection.socket)) continue;
      if (connection.waitingForHead) {
        if (now - connection.since >= headersTimeoutMs) {
          this.release(connection);
          answerOnSocket(connection.socket, 'request_timeout');
        }
      } else if (now - connection.since >= this.keepAliveMs) {
        connection.socket.destroy();
      }
    }
  }
}

class Connection {
  /** what was read and not yet answered, as Latin-1 (one character per byte) */
  private pending = '';
  answering = false;
  /** true while the connection is not read: too much read while an answer is awaited, or answers not taken */
  private paused = false;
  private awaitingDrain = false;
  /** true while serve() runs: an answer sent at once lets its loop go on */
  private serving = false;
  /** false once an answer closed the connection */
  private open = true;
  /** true from the connection's start or a head's first byte until the head is read */
  waitingForHead = true;
  /** performance.now() when the current wait began: the connection, the head or the last request */
  since = performance.now();
  private readonly reads: TextReads;
  /** answers not written yet, in order: text in its encoding, or bytes (encoding undefined) */
  private chunks: (string | Buffer)[] = [];
  private encodings: (BufferEncoding | undefined)[] = [];
  private queuedLength = 0;
  /** true once the client has sent all it will (its half of the connection closed) */
  private clientEnded = false;
  private readonly onError = () => this.socket.destroy();
  private readonly onEnd = () => {
    this.clientEnded = true;
    this.finishIfEnded();
  };
  private readonly onClose = () => {
    // An awaited answer may still come: it has no connection left to go on with.
    this.open = false;
    this.front.release(this);
  };
  private readonly onDrain = () => {
    this.awaitingDrain = false;
    this.resume();
  };

  constructor(
    private readonly front: Front,
    readonly socket: Socket,
  ) {
    this.reads = readAsText(socket, (text) => this.read(text), front.settings.socketReads);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
    socket.on('end', this.onEnd);
  }

  private read(text: string): void {
    // Refused by the connection cap since: nothing more is read.
    if (!this.open || answeredHere(this.socket)) return;
    this.pending = this.pending === '' ? text : this.pending + text;
    if (this.answering || this.paused) {
      if (this.pending.length > PENDING_BOUND) this.pause();
      return;
    }
    this.serveGuarded();
  }

  /** serve(), from a socket's event: a failure would be thrown out of the process; the connection is cut instead. */
  private serveGuarded(): void {
    try {
      this.serve();
    } catch (error) {
      this.front.logger.error({ err: error }, 'direct connection failed');
      this.abandon();
    }
  }

  /** Answers the whole heads pending, in order, until one is not plain or an answer is awaited. */
  private serve(): void {
    this.serving = true;
    const text = this.pending;
    let at = 0;
    while (at < text.length) {
      const head = plainGetAt(text, at);
      if (head === 'incomplete') {
        if (!this.waitingForHead) {
          this.waitingForHead = true;
          this.since = performance.now();
        }
        break;
      }
      const target = head === 'other' ? null : singleLookupTarget(head.url);
      if (head === 'other' || target === null) {
        this.serving = false;
        this.handOver(text.slice(at));
        return;
      }
      at = head.end;
      this.pending = text.slice(at);
      this.answerOne(head, target);
      if (!this.open) break;
      if (this.answering) break;
      if (this.queuedLength > QUEUED_BOUND) this.writeQueued();
      if (this.socket.writableNeedDrain) {
        this.serving = false;
        this.waitForDrain();
        return;
      }
    }
    this.serving = false;
    if (this.open && !this.answering) {
      this.pending = at === text.length ? '' : text.slice(at);
      this.finishIfEnded();
    }
  }

  /**
   * After the client's end, once what it sent is answered: the connection closes, as node:http
   * closes it; a head left incomplete is refused as node:http refuses it (400 invalid_request).
   */
  private finishIfEnded(): void {
    if (!this.clientEnded || !this.open || this.answering || this.paused) return;
    if (this.pending === '') {
      this.close();
      return;
    }
    // Whole heads still pending are served first (serve() comes back here).
    if (plainGetAt(this.pending, 0) !== 'incomplete') return;
    this.open = false;
    this.detach();
    this.writeQueued();
    answerOnSocket(this.socket, 'invalid_request');
  }

  /** Stops reading the connection (its kernel buffer then fills and the client's writes wait). */
  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  /** Reads and answers nothing more until the client has taken the answers written. */
  private waitForDrain(): void {
    this.pause();
    if (this.awaitingDrain) return;
    this.awaitingDrain = true;
    this.socket.once('drain', this.onDrain);
  }

  private answerOne(head: PlainGet, target: { path: string; querystring: string; lookup: SingleLookup }): void {
    const started = performance.now();
    this.waitingForHead = false;
    this.since = started;
    this.answering = true;
    const req: RequestSource = { socket: this.socket, complete: true, headers: head.headers };
    this.front.answer(new DirectExchange(this, req, head, target.path, target.querystring), target.lookup, started);
  }

  /** Sends one answer; called by the exchange, at once or when an awaited answer is ready. */
  send(status: number, headerList: readonly string[], body: unknown, keepAliveAsked: boolean): void {
    // Head and body joined with `+` (a tree of strings the socket's write copies out in one pass):
    // Array.join of the same pieces cost a third more in a loop.
    let head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'unknown'}\r\n`;
    for (let i = 0; i < headerList.length; i += 2) {
      const name = headerList[i];
      const value = headerList[i + 1];
      if (!validName(name) || INVALID_HEADER_VALUE.test(value)) throw new TypeError(`invalid header: ${name}`);
      head += `${name}: ${value}\r\n`;
    }
    const keepAlive = keepAliveAsked && !this.front.stopping;
    head += `Date: ${utcDate()}\r\n${keepAlive ? this.front.keepAliveLines : 'Connection: close\r\n'}\r\n`;
    this.answering = false;
    if (typeof body === 'string') this.queueOutput(head + body, 'utf8');
    else if (Buffer.isBuffer(body)) {
      this.queueOutput(head, 'latin1');
      this.queueOutput(body, undefined);
    } else this.queueOutput(head, 'latin1');
    if (!keepAlive) this.close();
  }

  private queueOutput(chunk: string | Buffer, encoding: BufferEncoding | undefined): void {
    if (this.chunks.length === 0) this.front.queue(this);
    this.chunks.push(chunk);
    this.encodings.push(encoding);
    this.queuedLength += chunk.length;
  }

  /** Writes the answers queued, in order: one write, several corked into one where there are several. */
  writeQueued(): void {
    const { chunks, encodings, socket } = this;
    if (chunks.length === 0) return;
    this.chunks = [];
    this.encodings = [];
    this.queuedLength = 0;
    // Gone (closed by the client, or destroyed): nothing can be written, nor needs to be.
    if (socket.destroyed) return;
    if (chunks.length === 1) {
      socket.write(chunks[0], encodings[0]);
      return;
    }
    socket.cork();
    for (let i = 0; i < chunks.length; i++) socket.write(chunks[i], encodings[i]);
    socket.uncork();
  }

  /**
   * After an answer: an awaited one goes on with what was read meanwhile (serve() goes on by
   * itself), once the rest of its answering (the observer) is done.
   */
  answered(): void {
    if (this.serving || !this.open) return;
    queueMicrotask(this.onAnswered);
  }

  private readonly onAnswered = () => {
    if (!this.open || this.answering) return;
    if (this.socket.writableNeedDrain) this.waitForDrain();
    else this.resume();
  };

  private resume(): void {
    if (!this.open || this.answering) return;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    if (this.pending !== '') this.serveGuarded();
    else this.finishIfEnded();
  }

  private close(): void {
    this.open = false;
    this.detach();
    this.writeQueued();
    // Destroyed once written, as node:http closes: no longer read here, the socket would never see
    // the client's end behind bytes it still sent, and stay open.
    this.socket.destroySoon();
  }

  abandon(): void {
    this.open = false;
    this.answering = false;
    this.detach();
    this.socket.destroy();
  }

  /** Stops reading the connection here; its error listener stays until node:http has its own. */
  private detach(): void {
    this.front.release(this);
    this.reads.stop();
    this.socket.removeListener('close', this.onClose);
    this.socket.removeListener('drain', this.onDrain);
    this.socket.removeListener('end', this.onEnd);
  }

  /** Gives the connection to node:http from `rest`, the first byte not answered here. */
  private handOver(rest: string): void {
    this.open = false;
    this.pending = '';
    this.detach();
    // node:http's answers come after these.
    this.writeQueued();
    this.socket.removeListener('error', this.onError);
    if (rest !== '') this.socket.unshift(Buffer.from(rest, 'latin1'));
    this.front.handOver(this.socket);
    if (this.socket.isPaused()) this.socket.resume();
  }
}

/** An exchange read and answered here; its answer goes out through its connection. */
class DirectExchange extends AnsweringExchange {
  constructor(
    private readonly connection: Connection,
    req: RequestSource,
    private readonly head: PlainGet,
    path: string,
    querystring: string,
  ) {
    super(req, path, querystring);
  }

  get method(): string {
    return 'GET';
  }

  get url(): string {
    return this.head.url;
  }

  send(): void {
    this.connection.send(this.status, this.headersWithLength(), this.body, this.head.keepAlive);
    this.connection.answered();
  }

  abandon(): void {
    this.connection.abandon();
  }
}

/** Header names checked already: the code's constants, so the set stays small; bounded all the same. */
const VALID_NAMES = new Set<string>();
const VALID_NAMES_BOUND = 256;

function validName(name: string): boolean {
  if (VALID_NAMES.has(name)) return true;
  if (!HEADER_NAME.test(name)) return false;
  if (VALID_NAMES.size < VALID_NAMES_BOUND) VALID_NAMES.add(name);
  return true;
}

/** The Date header's value, as node:http keeps it: made once a second. */
let dateCache: string | undefined;

function utcDate(): string {
  if (dateCache === undefined) {
    const now = new Date();
    dateCache = now.toUTCString();
    setTimeout(() => (dateCache = undefined), 1000 - now.getMilliseconds()).unref();
  }
  return dateCache;
}
