/** A plain static server of a mirror folder (`<host>/<path>` of each publisher URL), with Last-Modified and 304s like the publishers'. */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export async function serveMirror(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const wanted = decodeURIComponent(new URL(req.url ?? '/', 'http://mirror').pathname);
    const file = path.join(root, wanted.endsWith('/') ? `${wanted}index.html` : wanted);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const modified = new Date(Math.floor(fs.statSync(file).mtimeMs / 1000) * 1000);
    const since = req.headers['if-modified-since'];
    if (since && modified.getTime() <= Date.parse(since)) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(200, { 'content-length': fs.statSync(file).size, 'last-modified': modified.toUTCString() });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
