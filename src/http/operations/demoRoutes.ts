/**
 * GET /demo/: the demo page and its static files (dist/demo, written by `npm run build:web`): the
 * page answers in the browser with the WASM engine and the compact sets, so these routes serve
 * files only. Tables go out gzip-compressed (Content-Encoding) to clients that accept it, from the
 * .gz copy beside each; every file carries an ETag and is revalidated (Cache-Control: no-cache).
 */
import path from 'node:path';
import type Router from '@koa/router';
import { packageRoot } from '../../engine/node.js';
import { sendFile } from '../request/staticFiles.js';

const defaultDemoDir = () => process.env.NETLOOKUP_DEMO_DIR ?? path.join(packageRoot, 'dist', 'demo');

/** Adds the demo's routes to a router (the operations router: no key, no metering). */
export function demoRoutes(router: Router, dir: string = defaultDemoDir()): void {
  router.get('/demo/', (ctx) => sendFile(ctx, dir, 'index.html'));
  // The page's asset URLs are relative: they need the trailing slash. (Registered second: this
  // route also matches /demo/, and the router runs the first match.)
  router.get('/demo', (ctx) => ctx.redirect('/demo/'));
  router.get('/demo/:file', (ctx) => sendFile(ctx, dir, ctx.params.file));
  router.get('/demo/tables/:file', (ctx) => sendFile(ctx, path.join(dir, 'tables'), ctx.params.file));
}
