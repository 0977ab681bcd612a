/**
 * The servers under test and the peers, each in its own child process, pinned to the server CPU when
 * pinning is on: the Node servers of bench/httpServers.ts, nginx (bench/httpNginx.ts) and our
 * service as `npm start` runs it (`serve`, and `workers`: `serve --workers N`); start, stop, kill on
 * exit; and our service's environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cores } from './httpMachine.js';
import { prepareNginx, type NginxBinary } from './httpNginx.js';
import { ROOT, SERVERS } from './httpSettings.js';

export interface Server {
  kind: string;
  child: ChildProcess;
  port: number;
  pid: number;
  /** the server's processes: the child, and its cluster workers */
  pids: number[];
  info: Record<string, unknown>;
  stderr: () => string;
}

export type ServerKind = 'node' | 'bare' | 'maxmind' | 'nginx' | 'service' | 'serve' | 'workers';

/** Kinds that get our service's environment (data directory, plans, admin token) and `npm start`'s node flags. */
const serviceKind = (kind: ServerKind) => kind === 'service' || kind === 'serve' || kind === 'workers';

/** `npm start` of the build at `root` (its package.json). */
const startScript = (root: string) =>
  (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const START_ENTRY = 'dist/cli/main.js';

/** The node flags of an `npm start` script, before the entry point. */
function flagsOf(script: string): string[] {
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node' || !words.includes(START_ENTRY))
    throw new Error(`npm start is not "node [flags] ${START_ENTRY} serve": ${script}`);
  return words.slice(1, words.indexOf(START_ENTRY));
}

/** `npm start`'s node flags for the build at `root`: every run of our service takes them too. */
export const startFlags = (root: string) => flagsOf(startScript(root));
const START_SCRIPT = startScript(ROOT);
const START_FLAGS = flagsOf(START_SCRIPT);

/** Cluster workers are not pinned: they are there to use both CPUs (the load generator then floats too). */
export const pinnedKind = (kind: ServerKind) => kind !== 'workers';

/**
 * taskset's CPU list for a server of `kind`, or for the load generator against it (`cpu`: its CPU
 * when pinned); null when nothing is pinned. The unpinned get every CPU explicitly: they would
 * otherwise inherit this process's own pinning to the generator's CPU.
 */
export function cpuList(kind: ServerKind, cpu: number | null): string | null {
  if (cpu === null) return null;
  return pinnedKind(kind) ? String(cpu) : `0-${cores - 1}`;
}

function spawnPinned(kind: ServerKind, serverCpu: number | null, binary: string, args: string[], env: Record<string, string>) {
  const cpus = cpuList(kind, serverCpu);
  const [command, argv] = cpus === null ? [binary, args] : ['taskset', ['-c', cpus, binary, ...args]];
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d).slice(-8000)));
  return { child, stderr: () => err };
}

/** A free port on 127.0.0.1, for servers that must be told theirs. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The children of a process (Linux), e.g. nginx's worker, our primary's workers. */
function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * A server that is not one of ours (nginx) or not started by bench/httpServers.ts (`serve`): ready
 * when `ready` answers, polled every 50 ms for 60 s.
 */
async function startExternal(
  kind: ServerKind,
  serverCpu: number | null,
  port: number,
  binary: string,
  args: string[],
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  info: Record<string, unknown>,
  watch: (child: ChildProcess) => void = () => {},
): Promise<Server> {
  const { child, stderr } = spawnPinned(kind, serverCpu, binary, args, env);
  watch(child);
  child.stdout!.resume(); // drained: the service logs there
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const started = performance.now();
  while (!(await ready().catch(() => false))) {
    if (exited !== undefined) throw new Error(`${kind} exited (${exited}) before it was ready: ${stderr()}`);
    if (performance.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`${kind} did not start in 60 s: ${stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid!;
  // Under taskset the child is taskset's exec of the server itself (same pid).
  return { kind, child, port, pid, pids: [pid, ...childPids(pid)], info: { kind, port, pid, ...info }, stderr };
}

function startServer(
  kind: ServerKind,
  serverCpu: number | null,
  node: string,
  extraEnv: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<Server> {
  const { child, stderr } = spawnPinned(kind, serverCpu, node, [...nodeFlags, '--import', 'tsx', SERVERS, kind], extraEnv);
  return new Promise((resolve, reject) => {
    let out = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 60 s: ${stderr()}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (ready) return; // keep draining the pipe (pino's lines), nothing more to read
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('BENCH_READY '));
      if (!line) return;
      ready = true;
      clearTimeout(timer);
      const info = JSON.parse(line.slice('BENCH_READY '.length)) as { port: number; pid: number; worker_pids?: number[] } & Record<
        string,
        unknown
      >;
      out = '';
      resolve({ kind, child, port: info.port, pid: info.pid, pids: [info.pid, ...(info.worker_pids ?? [])], info, stderr });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited (${code}) before it was ready: ${stderr()}`));
    });
  });
}

async function stopServer(server: Server): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** The server children of a run: each started for one body of work and stopped after it. */
export class ServerProcesses {
  private readonly running = new Set<Server>();
  /** What each kind of server reported when ready (by label), for the report. */
  readonly info: Record<string, Record<string, unknown>> = {};

  constructor(
    private readonly serverCpu: number | null,
    private readonly serviceEnv: Record<string, string>,
    /** scratch directory (nginx's prefix) */
    private readonly tmp: string,
    private readonly nginx: NginxBinary | null,
    /** the node binary that runs the Node servers (another Node line's: bench/httpLines.ts) */
    private readonly node: string = process.execPath,
  ) {}

  private async start(kind: ServerKind, extraEnv: Record<string, string>, flags: string[]): Promise<Server> {
    const nodeFlags = serviceKind(kind) ? [...START_FLAGS, ...flags] : flags;
    if (kind === 'nginx') {
      if (!this.nginx) throw new Error('nginx is not available');
      const port = await freePort();
      const prefix = fs.mkdtempSync(path.join(this.tmp, 'nginx-'));
      const args = prepareNginx(prefix, port, this.nginx);
      const answers = async () => (await fetch(`http://127.0.0.1:${port}/ip/8.8.8.8`)).status === 200;
      return startExternal(kind, this.serverCpu, port, this.nginx.nginx, args, {}, answers, {
        nginx: this.nginx.version,
        module: this.nginx.module,
        installed_by_bench: this.nginx.installed_by_bench,
        workers: 1,
      });
    }
    if (kind === 'serve' || kind === 'workers') {
      // Our service exactly as `npm start` runs it: plain node on dist/ (no tsx loader thread);
      // `workers`: with --workers BENCH_WORKERS, ready once the primary says every worker listens.
      const port = await freePort();
      const env = { ...extraEnv, HOST: '127.0.0.1', PORT: String(port) };
      const workers = kind === 'workers' ? ['--workers', extraEnv.BENCH_WORKERS ?? '2'] : [];
      let said = '';
      const listening = (child: ChildProcess) =>
        child.stdout!.on('data', (d: Buffer) => {
          if (said.length < 4096) said += d;
        });
      const answers = async () =>
        kind === 'workers' ? said.includes('netlookup listening on') : (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
      return startExternal(
        kind,
        this.serverCpu,
        port,
        this.node,
        [...nodeFlags, path.join(ROOT, 'dist', 'cli', 'main.js'), 'serve', ...workers],
        env,
        answers,
        {
          command: `${START_SCRIPT}${workers.length > 0 ? ` ${workers.join(' ')}` : ''}`,
          ...(kind === 'workers' ? { workers: Number(workers[1]) } : {}),
        },
        listening,
      );
    }
    return startServer(kind, this.serverCpu, this.node, extraEnv, nodeFlags);
  }

  async with(
    kind: ServerKind,
    body: (server: Server) => Promise<void>,
    nodeFlags: string[] = [],
    extraEnv: Record<string, string> = serviceKind(kind) ? this.serviceEnv : {},
    label: string = kind,
  ): Promise<number | null> {
    const server = await this.start(kind, extraEnv, nodeFlags);
    this.running.add(server);
    this.info[label] ??= server.info;
    try {
      await body(server);
    } finally {
      this.running.delete(server);
    }
    return stopServer(server);
  }

  killAll(): void {
    for (const s of this.running) s.child.kill('SIGKILL');
  }
}

/**
 * Quotas no bench run can use up, yet numbers of the size real plans have: the quota headers and
 * the meta print them on every answer, and beyond 2^31 V8 turns a number into text on a slower path
 * (10^12 cost about 3 % of a paid lookup's own time that no real plan pays).
 */
const BENCH_QUOTA = 1e9;

/** The starter plan's monthly quota: the workers comparison drives a starter key past it. */
export const QUOTA_PROBE = 5000;

/** Our service's environment: a data directory in `tmp`, plans with huge quotas, the admin token. */
export function serviceEnvironment(tmp: string, adminToken: string): Record<string, string> {
  const hugePlans = {
    free: {
      name: 'Free (bench)',
      price_eur_month: 0,
      quota: { period: 'day', per_api: { ip: BENCH_QUOTA, blacklist: BENCH_QUOTA, mac: BENCH_QUOTA } },
      rate_limit_per_second: 1_000_000,
      max_batch: 0,
      max_keys: 1,
      field_level: 'basic',
    },
    // the quota check of the workers comparison (bench/httpWorkers.ts): a quota used up in a second
    starter: {
      name: 'Starter (bench)',
      price_eur_month: 9,
      quota: { period: 'month', pooled: QUOTA_PROBE },
      rate_limit_per_second: 1_000_000,
      max_batch: 100,
      max_keys: 3,
      field_level: 'full',
    },
    pro: {
      name: 'Pro (bench)',
      price_eur_month: 29,
      quota: { period: 'month', pooled: BENCH_QUOTA },
      rate_limit_per_second: 1_000_000,
      max_batch: 100,
      max_keys: 5,
      field_level: 'full',
    },
    business: {
      name: 'Business (bench)',
      price_eur_month: 79,
      quota: { period: 'month', pooled: BENCH_QUOTA },
      rate_limit_per_second: 1_000_000,
      max_batch: 1000,
      max_keys: 10,
      field_level: 'full',
    },
  };
  const plansFile = path.join(tmp, 'plans.json');
  fs.writeFileSync(plansFile, JSON.stringify(hugePlans, null, 2));
  return {
    NETLOOKUP_DATA_DIR: path.join(tmp, 'data'),
    NETLOOKUP_PLANS: plansFile,
    NETLOOKUP_ADMIN_TOKEN: adminToken,
    NETLOOKUP_REPORTS_PER_MINUTE: '1000000',
    // the lookups without hostname (the hot path): reverse DNS is measured by bench:rdns and bench:feeds
    NETLOOKUP_DNS_SERVERS: 'off',
    LOG_LEVEL: 'info',
  };
}
