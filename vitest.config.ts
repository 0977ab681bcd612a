import { defineConfig } from 'vitest/config';

/** The built tables and the engine over them, checked against independent references (full data: tens of seconds). */
const DATA = [
  'test/engine/differential/**/*.test.ts',
  'test/engine/engine.test.ts',
  'test/engine/compact.test.ts',
  'test/engine/withoutBuffer.test.ts',
  'test/tables/asnCoverage.test.ts',
  'test/tables/countries.test.ts',
  'test/tables/curated.test.ts',
  'test/tables/format.test.ts',
  'test/tables/reproducibleBuild.test.ts',
  'test/records/macRecord.test.ts',
  'test/records/macRecordJson.test.ts',
  // a file's tests over the built tables, beside its unit file
  'test/**/*.data.test.ts',
];
/** Through real servers, stores (SQLite files, Redis), child processes and browsers. */
const END_TO_END = [
  'test/http/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/web/**/*.test.ts',
  'test/blacklist/fail2ban*.test.ts',
  'test/update/update.test.ts',
  'test/update/swap.test.ts',
  'test/feeds/feedAnswers.test.ts',
];

/**
 * What stores and processes do across processes and over time (Redis failover and instances, Redis
 * Cluster and Sentinel set-ups, workers, a proxy in front, the day's counters at midnight,
 * configuration and data directories): they answer the same whichever transport answers, and on
 * either Node line, so they run once, on the primary line. They time failovers and restarts of
 * servers of their own, so they run one file at a time, after the rest (`npm test`).
 */
const STORES_ACROSS_PROCESSES = [
  'test/http/redisFailover.test.ts',
  'test/http/redisInstances.test.ts',
  'test/http/redisFault.test.ts',
  'test/http/embeddedWorkers.test.ts',
  'test/http/nginxDeployment.test.ts',
  'test/http/midnight.test.ts',
  'test/http/configProcess.test.ts',
  'test/http/dataDir.test.ts',
  'test/store/redisCluster.test.ts',
  'test/store/redisSentinel.test.ts',
];

/**
 * Files that bound how late a server's own deadline may answer (headers, body and keep-alive timeouts, a
 * hung Redis): their upper bounds allow timer lateness, not a core taken by another test file's server, so
 * they run one file at a time after the rest, in each transport mode, as the failover files do.
 */
const WALL_CLOCK_BOUNDS = [
  'test/http/directConnections.test.ts',
  'test/http/hostileClients.test.ts',
  'test/http/slowClients.test.ts',
  'test/store/redisHang.test.ts',
];
const ONE_AT_A_TIME = [...STORES_ACROSS_PROCESSES, ...WALL_CLOCK_BOUNDS];
/** The HTTP contract again with the fast path off (NETLOOKUP_DIRECT_CONNECTIONS=off): node:http alone answers the same. */
const NODE_HTTP_ONLY = { NETLOOKUP_DNS_SERVERS: 'off', NETLOOKUP_DIRECT_CONNECTIONS: 'off' };

export default defineConfig({
  test: {
    // The WASM module, compiled TypeScript, tables and web build are rebuilt first when older than their sources.
    globalSetup: ['test/artifacts.globalSetup.ts'],
    testTimeout: 120_000,
    // no reverse DNS unless a test starts its own DNS server: the machines' resolvers are not the tests'
    env: { NETLOOKUP_DNS_SERVERS: 'off' },
    hookTimeout: 300_000,
    // One test file per core, not vitest's one fewer: most files spend their time waiting on servers,
    // child processes, Redis and browsers of their own, so the runner's process needs no core to itself.
    maxWorkers: '100%',
    projects: [
      // Parsers, formats, records, scoring, small builds: in-process, seconds; reading the built tables throws (test/builtTablesGuard.ts).
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...DATA, ...END_TO_END], setupFiles: ['test/unit.setup.ts'] },
      },
      { extends: true, test: { name: 'data', include: DATA } },
      { extends: true, test: { name: 'e2e', include: END_TO_END, exclude: ONE_AT_A_TIME } },
      { extends: true, test: { name: 'e2e-node-http', include: ['test/http/**/*.test.ts'], exclude: ONE_AT_A_TIME, env: NODE_HTTP_ONLY } },
      // the projects below run with --maxWorkers=1 (npm test)
      { extends: true, test: { name: 'e2e-stores', include: STORES_ACROSS_PROCESSES } },
      { extends: true, test: { name: 'e2e-timed', include: WALL_CLOCK_BOUNDS } },
      {
        extends: true,
        test: { name: 'e2e-timed-node-http', include: WALL_CLOCK_BOUNDS.filter((f) => f.startsWith('test/http/')), env: NODE_HTTP_ONLY },
      },
    ],
  },
});
