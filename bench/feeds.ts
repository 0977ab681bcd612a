/**
 * What a loaded feed set costs a paid IPv4 lookup: the record's JSON for random public addresses
 * (every one different) as the single lookup writes it, without a feed set (the engine writes the
 * record: today's hot path) and with one (the security verdicts, RPKI state and abuse mailbox are
 * looked up and the record goes through the object path). The feed set is built by the real
 * `netlookup update --feeds-only` from the publisher fixtures (test/fixtures/publishers, served
 * under the mirror layout); the verdict tables' size barely matters to a binary search, their
 * being there does.
 *
 *   npm run bench:feeds     (after npm run build)
 *
 * Environment: BENCH_FEEDS_ADDRESSES (default 100000), BENCH_FEEDS_ROUNDS (default 5). Writes
 * bench/results/feeds.md.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseIp } from '../src/address/ipAddress.js';
import { loadEngine } from '../src/engine/node.js';
import { FeedSet } from '../src/feeds/feedSet.js';
import { ipRecordFeeds } from '../src/http/v1/ipRecordFeeds.js';
import { IpRecordRenderer } from '../src/records/ipRecordJson.js';
import { fileURLToPath } from 'node:url';
import { ipv4Inputs } from './inputs.js';
import { serveMirror } from './mirrorServer.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

const ADDRESSES = Number(process.env.BENCH_FEEDS_ADDRESSES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_FEEDS_ROUNDS ?? 5);

const tables = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-feeds-'));
const installed = path.join(projectRoot, 'data', 'tables');
for (const name of fs.readdirSync(installed)) {
  if (fs.statSync(path.join(installed, name)).isFile()) fs.symlinkSync(path.join(installed, name), path.join(tables, name));
}
const publishers = await serveMirror(path.join(projectRoot, 'test', 'fixtures', 'publishers'));
try {
  const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_TABLES: tables };
  delete env.NETLOOKUP_UPDATE_MIRROR;
  // a child process: the mirror answers from this one's event loop meanwhile
  await promisify(execFile)(
    process.execPath,
    [path.join(projectRoot, 'dist', 'cli', 'main.js'), 'update', '--feeds-only', '--force', '--mirror', publishers.url],
    { env },
  );
} finally {
  await publishers.close();
}

const engine = await loadEngine({});
const feeds = { current: FeedSet.load(tables) };
const none = { current: FeedSet.EMPTY };
const renderer = new IpRecordRenderer();
const inputs = ipv4Inputs(ADDRESSES, 20261128).texts;
const now = new Date();

/** ns per lookup (parse, feed facts, the record's JSON) over every input, best of the rounds. */
function measure(deps: { feeds: { current: FeedSet } }): number {
  let best = Infinity;
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (const text of inputs) {
      const ip = parseIp(text)!;
      const facts = ipRecordFeeds(deps, ip, 'full', now, undefined);
      bytes += renderer.render(engine, ip, 'full', now, facts).length;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - start) / inputs.length);
  }
  if (bytes === 0) throw new Error('no output');
  return best;
}

const without = measure({ feeds: none });
const withFeeds = measure({ feeds });
const listed = inputs.filter((text) => feeds.current.securityOf(parseIp(text)!, now.getTime()).listed_by?.length).length;
const lines = [
  '# Feed facts on the paid IPv4 record',
  '',
  `${new Date().toISOString()}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, Node ${process.version}; ${ADDRESSES} random public IPv4 addresses, best of ${ROUNDS} rounds; feed set from the publisher fixtures (${feeds.current.status(now.getTime()).length} feeds, ${listed} of the addresses listed).`,
  '',
  '| record | ns per lookup | lookups/s | vs no feeds |',
  '|---|---|---|---|',
  `| no feed set (the engine writes the record) | ${without.toFixed(0)} | ${(1e9 / without).toFixed(0)} | 1.00× |`,
  `| feed set loaded (verdicts, RPKI state, abuse mailbox put in the engine's text) | ${withFeeds.toFixed(0)} | ${(1e9 / withFeeds).toFixed(0)} | ${(without / withFeeds).toFixed(2)}× |`,
  '',
];
fs.mkdirSync(path.join(projectRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(projectRoot, 'bench', 'results', 'feeds.md'), lines.join('\n'));
process.stdout.write(lines.join('\n'));
fs.rmSync(tables, { recursive: true, force: true });
