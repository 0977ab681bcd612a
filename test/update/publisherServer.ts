/**
 * A local stand-in for the publishers, for `netlookup update --mirror`: it serves a folder laid out
 * as `<host>/<path>` of each publisher URL (a copy of test/fixtures/publishers, which a test may
 * change), with Last-Modified and conditional answers as real servers give them, and the faults
 * a test asks for on a path: a status, a stall, a body cut short.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../http/harness.js';

type Fault = { status: number } | { stall: true } | { cutAfter: number };

export interface PublisherServer {
  /** the --mirror URL */
  url: string;
  /** the served folder (`<host>/<path>`), a copy the test may change */
  root: string;
  /** faults by path (`/download.db-ip.com/free/…`), until removed */
  faults: Map<string, Fault>;
  /** the paths asked for, in order */
  requests: string[];
  close(): Promise<void>;
}

const FIXTURES = path.join(projectRoot, 'test', 'fixtures', 'publishers');

export async function startPublishers(): Promise<PublisherServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-publishers-'));
  fs.cpSync(FIXTURES, root, { recursive: true, filter: (source) => !source.endsWith('.md') });
  const faults = new Map<string, Fault>();
  const requests: string[] = [];
  const stalled = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mirror');
    const wanted = decodeURIComponent(url.pathname);
    requests.push(wanted);
    const fault = faults.get(wanted);
    if (fault && 'stall' in fault) {
      stalled.add(res);
      return;
    }
    if (fault && 'status' in fault) {
      res.writeHead(fault.status).end();
      return;
    }
    // a folder is served as its index page, as the publishers' web servers do
    const file = path.join(root, wanted.endsWith('/') ? `${wanted}index.html` : wanted);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const stat = fs.statSync(file);
    const lastModified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000);
    const since = req.headers['if-modified-since'];
    // a body cut short is what the fault is about: it is sent whatever the client holds
    if (!(fault && 'cutAfter' in fault) && since && !Number.isNaN(Date.parse(since)) && lastModified.getTime() <= Date.parse(since)) {
      res.writeHead(304, { 'last-modified': lastModified.toUTCString() }).end();
      return;
    }
    const body = fs.readFileSync(file);
    res.writeHead(200, {
      'content-length': body.length,
      'last-modified': lastModified.toUTCString(),
      'content-type': 'application/octet-stream',
    });
    if (fault && 'cutAfter' in fault) {
      res.write(body.subarray(0, fault.cutAfter));
      res.socket?.destroy();
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    root,
    faults,
    requests,
    close: async () => {
      for (const res of stalled) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Rewrites a served file (bytes or text) and moves its modification time on, as a publisher's new release. */
export function publish(
  server: PublisherServer,
  servedPath: string,
  body: string | Uint8Array,
  modified = new Date(Date.now() + 60_000),
): void {
  const file = path.join(server.root, servedPath);
  fs.writeFileSync(file, body);
  fs.utimesSync(file, modified, modified);
}
