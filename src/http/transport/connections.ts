/**
 * Connections that do not behave: requests that arrive too slowly, too many connections at once,
 * and requests Node's HTTP layer refuses before Koa sees them. Every such answer that can still be
 * sent is the error envelope (SPEC 2.9) with the CORS header, written straight to the socket, and
 * the connection is closed.
 *
 * Timeouts are node:http's own (headersTimeout, requestTimeout, keepAliveTimeout); the cap is
 * counted here, because node:http's maxConnections drops extra connections without a word.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorTable, type ErrorCode } from '../../errors.js';
import { allowanceClient, isTrusted, type NetworkList } from '../../address/clientAddress.js';
import { defaultTimeouts, type ConnectionSettings, type ServiceConfig } from '../../config/config.js';
import { errorEnvelope } from '../request/errorResponse.js';

/** File descriptors left for the store, the tables, logs and the listening socket. */
const RESERVED_FILES = 64;
const DEFAULT_MAX_CONNECTIONS = 1024;
/** One client's default share of the cap: a few clients from one address (a NAT) fit, one alone cannot fill it. */
const CLIENT_SHARE = 4;
/** How long a connection may stay open after its refusal, for the client to read it. */
const LINGER_MS = 1000;
/** Refused connections left open at once for their clients to read the refusal; past this many, each closes once written. */
const MAX_LINGERING = 256;
let lingering = 0;

/** The soft open-file limit of this process where the system tells it (Linux /proc), else null. */
function openFileLimit(): number | null {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** The connection settings in force: the configured ones, defaults for the rest. */
export function connectionSettings(config: ServiceConfig): ConnectionSettings {
  const set = Object.fromEntries(Object.entries(config.connections ?? {}).filter(([, value]) => value !== undefined));
  const files = openFileLimit();
  const maxConnections =
    (set.maxConnections as number | undefined) ??
    Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, files === null ? Infinity : files - RESERVED_FILES));
  const maxConnectionsPerClient = Math.max(1, Math.floor(maxConnections / CLIENT_SHARE));
  return { ...defaultTimeouts, maxConnections, maxConnectionsPerClient, directConnections: true, socketReads: 'shared', ...set };
}

/**
 * node:http's options for the timeouts. It checks them on a timer (default every 30 s, which would
 * let a 10 s limit hold a client for 40 s): here a quarter of the shorter one, at most a second.
 */
export function timeoutOptions(settings: ConnectionSettings): http.ServerOptions {
  return {
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(1000, Math.floor(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / 4)),
    ),
  };
}

/** Sockets answered here: a request node:http still parses from them is not served. */
const answered = new WeakSet<Duplex>();

export function answeredHere(socket: Duplex): boolean {
  return answered.has(socket);
}

/** Writes an error answer to the socket and closes the connection. */
export function answerOnSocket(socket: Duplex, code: ErrorCode, headers: Record<string, string> = {}): void {
  answered.add(socket);
  // A refused socket may have no other listener: a client's reset must not become an uncaught error.
  socket.on('error', () => socket.destroy());
  const { status, message } = errorTable[code];
  const body = JSON.stringify(errorEnvelope(code, message));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const answer =
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Access-Control-Allow-Origin: *\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  // Under a flood of refusals, lingering sockets would hold file descriptors: closed once written.
  if (socket.destroyed) return;
  if (lingering >= MAX_LINGERING) {
    socket.end(answer, () => socket.destroy());
    return;
  }
  lingering++;
  socket.once('close', () => lingering--);
  socket.end(answer);
  // A client that keeps its side open (a slow one still sending) is cut once it had time to read.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** The latest request of each connection whose answer may close it with the request's body unread. */
const bodies = new WeakMap<Duplex, http.IncomingMessage>();

/**
 * Closes the connection of a request with a body, should node:http close it (`Connection: close`)
 * before the body was read to its end (a refusal answered before its body), as nginx closes one:
 * our side ends at once and the rest of the body is read and dropped until the client closes, or
 * for LINGER_MS. Closing with bytes unread would reset the connection, and a proxy still sending the
 * body would lose the answer (502) and take the instance for failed.
 */
export function lingerIfBodyUnread(req: http.IncomingMessage): void {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // node:http closes a connection through net.Socket's destroySoon (documented), which is its own
  // choice, not a promise: a Node without the method, or one whose node:http closes another way,
  // closes as node:http does (a reset when body bytes are still unread).
  if (typeof socket.destroySoon !== 'function') return;
  if (!bodies.has(socket)) {
    const destroySoon = socket.destroySoon.bind(socket) as () => void;
    socket.destroySoon = () => {
      if (bodies.get(socket)?.complete !== false || socket.destroyed || lingering >= MAX_LINGERING) return destroySoon();
      // Answered: whatever else node:http parses from it is not served.
      answered.add(socket);
      lingering++;
      socket.once('close', () => lingering--);
      socket.end();
      socket.resume();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
  }
  bodies.set(socket, req);
}

/**
 * CONNECT asks for a tunnel, which this server never opens: 405, whatever the target (node:http
 * hands it over apart from other requests, and without this would drop the connection).
 */
export function refuseConnect(_req: http.IncomingMessage, socket: Duplex): void {
  answerOnSocket(socket, 'method_not_allowed', { Allow: 'GET, POST, OPTIONS' });
}

/** An Expect other than 100-continue (RFC 9110 10.1.1): 417, the body left unread. */
export function refuseExpectation(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = JSON.stringify(errorEnvelope('expectation_failed', errorTable.expectation_failed.message));
  res.shouldKeepAlive = false;
  res.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Access-Control-Allow-Origin': '*',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The code of a request node:http refuses (its clientError). */
function clientErrorCode(error: Error & { code?: string }): ErrorCode {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'invalid_request';
}

/**
 * node:http's clientError: requests its parser refuses and requests not received in time. An
 * answer already begun on the connection (`answerBegun`, ConnectionSlots) cannot be followed by
 * another: that connection is cut.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, answerBegun: boolean): void {
  if (error.code === 'ECONNRESET' || !socket.writable || answerBegun) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, clientErrorCode(error));
}

/**
 * A connection idle this long (no byte of its transfer moved, no answer taken) may give its place
 * to a new one: long against a prompt client's pause between requests (well under a millisecond
 * on a kept-alive connection), short against the time an attack's new connections hold every place.
 */
const IDLE_MS = 250;

/** What the service knows of an open connection, for the cap and the transfer timeouts. */
interface Slot {
  socket: Socket;
  /** the client it counts against (allowanceClient), null for a trusted proxy's connections */
  client: string | null;
  /** socket.bytesRead when last observed, and when it last changed */
  read: number;
  readAt: number;
  /** bytes the system took (bytesWritten less what is still buffered) when last observed, and when it last changed (or the opening) */
  sent: number;
  sentAt: number;
  /** when answer bytes were first seen waiting to be taken, null while none wait */
  blockedAt: number | null;
}

/** Whether node:http has handed the whole answer to the system and let go of its socket. */
function answeredInFull(res: http.ServerResponse): boolean {
  return res.writableEnded && res.socket === null;
}

/** A node:http request and its answer, on the connection it came on. */
interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
}

/**
 * The connections' places and progress (docs/api.md "Connections"):
 *
 * - The cap on concurrent connections, and under it one client's share (an IPv4 address, an IPv6
 *   /64; a trusted proxy's connections count only against the cap). A client at its share gets 503
 *   too_many_connections for a new connection. Over the cap, a new connection takes the place of
 *   the oldest connection that has been idle for IDLE_MS (no byte of its body or answer moved,
 *   no answer taken while it waits for a request or sends its head), which gets the 503; a
 *   connection with a request being worked on is never taken. When none can give way, the new one
 *   gets the 503 itself. So clients that hold places without using them cannot lock out a health
 *   check or a prompt client for more than a moment.
 * - A request body that brings no byte for `bodyTimeoutMs` is answered 408 request_timeout; an
 *   answer the client takes no byte of for `sendTimeoutMs` is cut, and with it what node:http
 *   held of it in memory. node:http's own timeouts (headers, whole request, keep-alive) apply as
 *   well; these catch what they do not: a stalled body within the request timeout, and an answer
 *   that never drains.
 *
 * Progress is read from the sockets' byte counts (on a timer, and when a place is wanted), not
 * from events on every read.
 */
export class ConnectionSlots {
  private readonly open = new Map<Socket, Slot>();
  private readonly perClient = new Map<string, number>();
  /** node:http's requests on each connection not yet answered in full, in order, and the last one always */
  private readonly exchanges = new WeakMap<Socket, Exchange[]>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    server: http.Server,
    private readonly settings: Pick<ConnectionSettings, 'maxConnections' | 'maxConnectionsPerClient' | 'bodyTimeoutMs' | 'sendTimeoutMs'>,
    private readonly trustProxy: NetworkList,
    /** whether the direct connections are answering a request of the socket */
    private readonly answeringDirectly: (socket: Socket) => boolean,
    checkEveryMs: number,
  ) {
    // Before node:http's own listener: a refused socket gets its answer before any request is read.
    server.prependListener('connection', (socket: Socket) => this.admit(socket));
    const checkMs = Math.max(10, Math.min(checkEveryMs, Math.floor(Math.min(settings.bodyTimeoutMs, settings.sendTimeoutMs) / 4)));
    this.timer = setInterval(() => this.check(), checkMs);
    this.timer.unref();
    server.once('close', () => clearInterval(this.timer));
  }

  /** node:http's request on `req.socket`: its body and answer are watched from now on. */
  noteRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const noted = this.exchanges.get(req.socket);
    if (noted === undefined) {
      this.exchanges.set(req.socket, [{ req, res }]);
      return;
    }
    // The answers sent in full go (node:http answers in request order); pipelined ones wait in turn.
    while (noted.length > 0 && answeredInFull(noted[0].res)) noted.shift();
    noted.push({ req, res });
  }

  /**
   * Whether node:http has begun an answer on the connection that it has not finished: the
   * response that holds the socket (node:http gives it to one response at a time, in order) has
   * sent its head.
   */
  answerBegun(socket: Duplex): boolean {
    const noted = this.exchanges.get(socket as Socket);
    if (noted === undefined) return false;
    for (const { res } of noted) if (res.socket !== null && !answeredInFull(res)) return res.headersSent;
    return false;
  }

  /** The connection's latest node:http request and its answer. */
  private latest(socket: Socket): Exchange | undefined {
    return this.exchanges.get(socket)?.at(-1);
  }

  private admit(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const client = isTrusted(this.trustProxy, peer) ? null : allowanceClient(peer);
    const full =
      (client !== null && (this.perClient.get(client) ?? 0) >= this.settings.maxConnectionsPerClient) ||
      (this.open.size >= this.settings.maxConnections && !this.evictIdle());
    if (full) {
      answerOnSocket(socket, 'too_many_connections', { 'Retry-After': '1' });
      return;
    }
    const now = performance.now();
    const slot: Slot = { socket, client, read: socket.bytesRead, readAt: now, sent: 0, sentAt: now, blockedAt: null };
    this.open.set(socket, slot);
    if (client !== null) this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    socket.once('close', () => this.remove(slot));
  }

  private remove(slot: Slot): void {
    if (this.open.get(slot.socket) !== slot) return;
    this.open.delete(slot.socket);
    if (slot.client === null) return;
    const left = (this.perClient.get(slot.client) ?? 1) - 1;
    if (left === 0) this.perClient.delete(slot.client);
    else this.perClient.set(slot.client, left);
  }

  /** Refuses the oldest connection idle for IDLE_MS to free its place; false when there is none. */
  private evictIdle(): boolean {
    const now = performance.now();
    // A Map iterates in insertion order: the oldest connection first.
    for (const slot of this.open.values()) {
      this.observe(slot, now);
      const since = this.idleSince(slot);
      if (since === null || now - since < IDLE_MS) continue;
      this.remove(slot);
      // One refused already (lingering for its client to read the refusal) simply goes.
      if (answeredHere(slot.socket)) slot.socket.destroy();
      else this.end(slot, 'too_many_connections');
      return true;
    }
    return false;
  }

  /** Answers `code` on the connection if it still can (no answer begun), else cuts it. */
  private end(slot: Slot, code: 'too_many_connections' | 'request_timeout'): void {
    const { socket } = slot;
    if (socket.writableLength > 0 || this.latest(socket)?.res.headersSent) socket.destroy();
    else answerOnSocket(socket, code, code === 'too_many_connections' ? { 'Retry-After': '1' } : {});
  }

  /** Notes the connection's progress since it was last observed. */
  private observe(slot: Slot, now: number): void {
    const { socket } = slot;
    const exchange = this.latest(socket);
    // Body bytes the service has not read yet (node:http stops reading the socket then): its turn, not the client's.
    if (socket.bytesRead !== slot.read || (exchange !== undefined && !exchange.req.complete && exchange.req.readableLength > 0))
      [slot.read, slot.readAt] = [socket.bytesRead, now];
    const sent = socket.bytesWritten - socket.writableLength;
    if (sent !== slot.sent) [slot.sent, slot.sentAt] = [sent, now];
    if (socket.writableLength === 0) slot.blockedAt = null;
    else slot.blockedAt ??= now;
  }

  /**
   * Since when the connection has been idle; null while a request of it is being worked on.
   * Sending: since the client last took a byte. Receiving a body: since its last byte. Waiting
   * for a request (or only for the unread rest of an answered request's body): since its last
   * answer was taken, or its opening; bytes of a head sent slowly do not count.
   */
  private idleSince(slot: Slot): number | null {
    const { socket } = slot;
    if (slot.blockedAt !== null) return Math.max(slot.sentAt, slot.blockedAt);
    const exchange = this.latest(socket);
    const answered = exchange === undefined || exchange.res.writableEnded;
    if (!answered) return exchange.req.complete ? null : slot.readAt;
    if (this.answeringDirectly(socket)) return null;
    return slot.sentAt;
  }

  /** Notes each connection's progress, and ends the bodies and answers stalled past their timeouts. */
  private check(): void {
    const now = performance.now();
    const { bodyTimeoutMs, sendTimeoutMs } = this.settings;
    for (const slot of this.open.values()) {
      this.observe(slot, now);
      const { socket } = slot;
      if (socket.destroyed || answeredHere(socket)) continue;
      const exchange = this.latest(socket);
      if (slot.blockedAt !== null && now - Math.max(slot.sentAt, slot.blockedAt) >= sendTimeoutMs) socket.destroy();
      else if (exchange !== undefined && !exchange.req.complete && now - slot.readAt >= bodyTimeoutMs) this.end(slot, 'request_timeout');
    }
  }
}
