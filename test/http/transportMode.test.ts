/**
 * The fast path an operator can turn off: with NETLOOKUP_DIRECT_CONNECTIONS=off (or on a Node
 * without what it relies on) node:http answers every request, single lookups with the same bytes;
 * `/health` shows the mode in force. The start-up check refuses a server whose connection listeners differ.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { directConnectionsUnavailable } from '../../src/http/transport/directConnections.js';
import { Harness } from './harness.js';

const started: Harness[] = [];
afterEach(async () => {
  for (const h of started.splice(0)) await h.stop();
});

async function start(connections: { directConnections?: boolean; socketReads?: 'shared' | 'events' } = {}): Promise<Harness> {
  const h = await Harness.start({ connections, tickMs: 0 });
  started.push(h);
  return h;
}

describe('the direct connections switch', () => {
  it('answers the same single lookups with node:http alone, and says which mode is in force', async () => {
    const direct = await start({ directConnections: true });
    const plain = await start({ directConnections: false });
    const events = await start({ directConnections: true, socketReads: 'events' });
    expect((await direct.call('/health')).body.transport).toEqual({ direct_connections: true, socket_reads: 'shared' });
    expect((await plain.call('/health')).body.transport).toEqual({ direct_connections: false, socket_reads: null });
    expect((await events.call('/health')).body.transport).toEqual({ direct_connections: true, socket_reads: 'events' });
    const [directKey, plainKey] = [await direct.newKey('pro'), await plain.newKey('pro')];
    for (const path of [
      '/v1/ip/8.8.8.8',
      '/v1/ip/2001:4860:4860::8888',
      '/v1/mac/00:00:0c:12:34:56',
      '/v1/ip/not-an-ip',
      '/v1/blacklist/192.0.2.1',
    ]) {
      const [a, b] = [await direct.call(path, { key: directKey }), await plain.call(path, { key: plainKey })];
      expect(b.status, path).toBe(a.status);
      // the answers differ only in their quota figures and the meta block's request details
      expect({ ...b.body, meta: undefined }, path).toEqual({ ...a.body, meta: undefined });
      expect(b.contentType, path).toBe(a.contentType);
    }
  });
});

describe('the start-up check of the fast path', () => {
  it("passes on this Node's http server", () => {
    expect(directConnectionsUnavailable(http.createServer())).toBeNull();
  });

  it('refuses a server whose connection listeners are not node:http’s one', () => {
    const server = http.createServer();
    server.on('connection', () => undefined);
    expect(directConnectionsUnavailable(server)).toMatch(/2 connection listeners/);
    const none = http.createServer();
    none.removeAllListeners('connection');
    expect(directConnectionsUnavailable(none)).toMatch(/0 connection listeners/);
  });

  it('a refusal at start leaves every request to node:http, single lookups too', async () => {
    const spy = vi.spyOn(http.Server.prototype, 'listeners').mockImplementation(function (this: http.Server, name: string | symbol) {
      return name === 'connection' ? [] : EventEmitter.prototype.listeners.call(this, name);
    });
    let h: Harness;
    try {
      h = await start({ directConnections: true });
    } finally {
      spy.mockRestore();
    }
    expect((await h.call('/health')).body.transport).toEqual({ direct_connections: false, socket_reads: null });
    expect((await h.call('/v1/ip/8.8.8.8', { key: await h.newKey('pro') })).body.location.country_code).toBe('US');
  });
});
