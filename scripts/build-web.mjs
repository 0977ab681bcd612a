// `npm run build:web`: the browser/edge build of the engine (dist/browser: ESM bundles with their
// types), the demo as static files (dist/demo: page, script, WASM module and the compact sets,
// each table also gzip-compressed beside it for servers that send precompressed files) and the
// dashboard's page (dist/dashboard: page, script, styles; uPlot bundled in, nothing from a CDN).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...parts) => path.join(root, ...parts);
const compactDir = process.env.NETLOOKUP_COMPACT_TABLES ?? at('data', 'compact');
const browserDir = at('dist', 'browser');
const demoDir = at('dist', 'demo');
const dashboardDir = at('dist', 'dashboard');

// platform browser: a `node:` import anywhere in the graph fails the build instead of shipping.
const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
  legalComments: 'none',
};
await esbuild.build({ ...common, entryPoints: { netlookup: at('src/web/index.ts'), edge: at('src/web/edge.ts') }, outdir: browserDir });
await esbuild.build({ ...common, entryPoints: { demo: at('src/web/demo/demo.ts') }, outdir: demoDir, minify: true });
// The dashboard is served with `script-src 'self'; style-src 'self'`: its page has no inline script
// or style, only these two files beside it.
fs.rmSync(dashboardDir, { recursive: true, force: true });
await esbuild.build({ ...common, entryPoints: { dashboard: at('src/web/dashboard/dashboard.ts') }, outdir: dashboardDir, minify: true });
await esbuild.build({
  ...common,
  entryPoints: { dashboard: at('src/web/dashboard/dashboard.css') },
  outdir: dashboardDir,
  minify: true,
  sourcemap: false,
});
const dashboardPage = fs.readFileSync(at('src/web/dashboard/index.html'), 'utf8');
if (/<script(?![^>]*\bsrc=)|<style|\sstyle=/i.test(dashboardPage))
  throw new Error('src/web/dashboard/index.html: an inline script or style, which the CSP refuses');
fs.writeFileSync(path.join(dashboardDir, 'index.html'), dashboardPage);
// boot is inlined in the page's head (it starts the downloads before anything else loads); the
// page's Content-Security-Policy allows exactly that script, by its hash.
const boot = await esbuild.build({
  ...common,
  entryPoints: [at('src/web/demo/boot.ts')],
  write: false,
  minify: true,
  format: 'iife',
  sourcemap: false,
});
const bootCode = boot.outputFiles[0].text.trim();
const bootHash = crypto.createHash('sha256').update(bootCode).digest('base64');
execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', at('tsconfig.web.json')], { stdio: 'inherit' });

const page = fs.readFileSync(at('src/web/demo/index.html'), 'utf8');
if (!page.includes('<script src="boot.js"></script>') || !page.includes("script-src 'self'"))
  throw new Error('src/web/demo/index.html: the boot script tag or the CSP script-src is missing');
fs.writeFileSync(
  path.join(demoDir, 'index.html'),
  page
    .replace('<script src="boot.js"></script>', () => `<script>${bootCode}</script>`)
    .replace("script-src 'self'", `script-src 'self' 'sha256-${bootHash}'`),
);
fs.copyFileSync(at('build/netlookup.wasm'), path.join(demoDir, 'netlookup.wasm'));
const tablesDir = path.join(demoDir, 'tables');
fs.rmSync(tablesDir, { recursive: true, force: true });
fs.mkdirSync(tablesDir, { recursive: true });
const manifestFile = path.join(compactDir, 'manifest.json');
if (!fs.existsSync(manifestFile)) throw new Error(`${manifestFile}: missing (run \`npm run build:tables\` first)`);
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
for (const file of ['manifest.json', ...Object.values(manifest.tables).flatMap((t) => [t.file, t.gzip_file])]) {
  // A hard link where the file system allows it: the demo copy of the tables costs no space.
  const from = path.join(compactDir, file);
  const to = path.join(tablesDir, file);
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}
process.stderr.write(`web build written to ${[browserDir, demoDir, dashboardDir].map((dir) => path.relative(root, dir)).join(', ')}\n`);
