/**
 * GET /demo/: the demo page and its static files (dist/demo, written by `npm run build:web`): the
 * page answers in the browser with the WASM engine and the compact sets, so these routes serve
 * files only. Tables go out gzip-compressed (Content-Encoding) to clients that accept it, from the
 * .gz copy beside each; every file carries an ETag and is revalidated (Cache-Control: no-cache).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import type Router from '@koa/router';
import { ApiError } from '../errors.js';
import { packageRoot } from '../engine/node.js';
import { clientCopyIsCurrent } from './respond.js';

const defaultDemoDir = () => process.env.NETLOOKUP_DEMO_DIR ?? path.join(packageRoot, 'dist', 'demo');

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.nlt': 'application/octet-stream',
  '.gz': 'application/gzip',
};

/** Plain file names only: no separators, no dot files, so nothing outside the folder is reachable. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function statFile(file: string): fs.Stats | null {
  try {
    const stats = fs.statSync(file);
    return stats.isFile() ? stats : null;
  } catch {
    return null;
  }
}

function sendFile(ctx: Context, dir: string, name: string): void {
  const type = contentTypes[path.extname(name)];
  if (!FILE_NAME.test(name) || !type) throw new ApiError('not_found');
  let file = path.join(dir, name);
  let stats = statFile(file);
  if (!stats) throw new ApiError('not_found');
  if (name.endsWith('.nlt')) {
    ctx.vary('Accept-Encoding');
    const gzip = statFile(`${file}.gz`);
    if (gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      file = `${file}.gz`;
      stats = gzip;
      ctx.set('Content-Encoding', 'gzip');
    }
  }
  ctx.status = 200;
  ctx.type = type;
  ctx.set('Cache-Control', 'no-cache');
  const etag = `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}${file.endsWith('.gz') && !name.endsWith('.gz') ? '-gz' : ''}"`;
  ctx.set('ETag', etag);
  if (clientCopyIsCurrent(ctx, etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.length = stats.size;
  ctx.body = ctx.method === 'HEAD' ? null : fs.createReadStream(file);
}

/** Adds the demo's routes to a router (the operations router: no key, no metering). */
export function demoRoutes(router: Router, dir: string = defaultDemoDir()): void {
  router.get('/demo/', (ctx) => sendFile(ctx, dir, 'index.html'));
  // The page's asset URLs are relative: they need the trailing slash. (Registered second: this
  // route also matches /demo/, and the router runs the first match.)
  router.get('/demo', (ctx) => ctx.redirect('/demo/'));
  router.get('/demo/:file', (ctx) => sendFile(ctx, dir, ctx.params.file));
  router.get('/demo/tables/:file', (ctx) => sendFile(ctx, path.join(dir, 'tables'), ctx.params.file));
}
