/**
 * Static files of a folder built by `npm run build:web` (the demo, the dashboard): plain names
 * only, an ETag on each, revalidated every time (Cache-Control: no-cache). Tables go out
 * gzip-compressed (Content-Encoding) to clients that accept it, from the .gz copy beside each.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { clientCopyIsCurrent } from './conditionalRequest.js';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
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

export function sendFile(ctx: Context, dir: string, name: string): void {
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
