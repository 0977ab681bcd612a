/**
 * The servers under test and the peers, each in its own child process (bench/httpServers.ts), pinned
 * to the server CPU when pinning is on: start, stop, kill on exit; and our service's environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cores } from './httpMachine.js';
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

export type ServerKind = 'bare' | 'maxmind' | 'service' | 'workers';

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

function startServer(
  kind: ServerKind,
  serverCpu: number | null,
  extraEnv: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<Server> {
  const args = [...nodeFlags, '--import', 'tsx', SERVERS, kind];
  const cpus = cpuList(kind, serverCpu);
  const [command, argv] = cpus === null ? [process.execPath, args] : ['taskset', ['-c', cpus, process.execPath, ...args]];
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d).slice(-8000)));
  return new Promise((resolve, reject) => {
    let out = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 60 s: ${err}`)), 60_000);
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
      resolve({ kind, child, port: info.port, pid: info.pid, pids: [info.pid, ...(info.worker_pids ?? [])], info, stderr: () => err });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited (${code}) before it was ready: ${err}`));
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
  ) {}

  async with(
    kind: ServerKind,
    body: (server: Server) => Promise<void>,
    nodeFlags: string[] = [],
    extraEnv: Record<string, string> = kind === 'bare' || kind === 'maxmind' ? {} : this.serviceEnv,
    label: string = kind,
  ): Promise<number | null> {
    const server = await startServer(kind, this.serverCpu, extraEnv, nodeFlags);
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

/** Our service's environment: a data directory in `tmp`, plans with huge quotas, the admin token. */
export function serviceEnvironment(tmp: string, adminToken: string): Record<string, string> {
  const hugePlans = {
    free: {
      name: 'Free (bench)',
      price_eur_month: 0,
      quota: { period: 'day', per_api: { ip: 1e12, blacklist: 1e12, mac: 1e12 } },
      rate_limit_per_second: 1_000_000,
      max_batch: 0,
      max_keys: 1,
      field_level: 'basic',
    },
    starter: {
      name: 'Starter (bench)',
      price_eur_month: 9,
      quota: { period: 'month', pooled: 1e12 },
      rate_limit_per_second: 1_000_000,
      max_batch: 100,
      max_keys: 3,
      field_level: 'full',
    },
    pro: {
      name: 'Pro (bench)',
      price_eur_month: 29,
      quota: { period: 'month', pooled: 1e12 },
      rate_limit_per_second: 1_000_000,
      max_batch: 100,
      max_keys: 5,
      field_level: 'full',
    },
    business: {
      name: 'Business (bench)',
      price_eur_month: 79,
      quota: { period: 'month', pooled: 1e12 },
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
    LOG_LEVEL: 'info',
  };
}
