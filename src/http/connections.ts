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
import { errorTable, type ErrorCode } from '../errors.js';
import { defaultTimeouts, type ConnectionSettings, type ServiceConfig } from '../config/config.js';
import { errorEnvelope } from './respond.js';

/** File descriptors left for the store, the tables, logs and the listening socket. */
const RESERVED_FILES = 64;
const DEFAULT_MAX_CONNECTIONS = 1024;
/** How long a connection may stay open after its refusal, for the client to read it. */
const LINGER_MS = 1000;

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
  const maxConnections = Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, files === null ? Infinity : files - RESERVED_FILES));
  return { ...defaultTimeouts, maxConnections, socketReads: 'shared', ...set };
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
  const { status, message } = errorTable[code];
  const body = JSON.stringify(errorEnvelope(code, message));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Access-Control-Allow-Origin: *\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client that keeps its side open (a slow one still sending) is cut once it had time to read.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
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
 * answer already begun on the connection cannot be followed by another: that connection is cut.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, clientErrorCode(error));
}

/**
 * The cap on concurrent connections. A connection over the cap takes the place of the oldest one
 * that has no request being answered (a client still sending its headers, or an idle kept-alive
 * one), which gets 503 too_many_connections: so slow clients holding every place cannot lock out
 * a health check or a prompt client. When every connection has a request being answered, the new
 * one gets the 503 itself.
 */
export function capConnections(server: http.Server, max: number, answeringDirectly: (socket: Socket) => boolean): void {
  const open = new Set<Socket>();
  // Before node:http's own listener: a refused socket gets its answer before any request is read.
  server.prependListener('connection', (socket: Socket) => {
    if (open.size >= max && !evictWaiting(open, answeringDirectly)) {
      answerOnSocket(socket, 'too_many_connections', { 'Retry-After': '1' });
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
}

/** Refuses the oldest connection without a request being answered; false when there is none. */
function evictWaiting(open: Set<Socket>, answeringDirectly: (socket: Socket) => boolean): boolean {
  // A Set iterates in insertion order: oldest first.
  for (const socket of open) {
    if ((socket as { _httpMessage?: unknown })._httpMessage || answeringDirectly(socket)) continue;
    open.delete(socket);
    answerOnSocket(socket, 'too_many_connections', { 'Retry-After': '1' });
    return true;
  }
  return false;
}
