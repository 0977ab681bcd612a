/**
 * Redis Cluster and Redis Sentinel set-ups for tests, on free ports in temporary folders, torn
 * down after: a Cluster of three masters with a replica each (`redis-cli --cluster create`), and a
 * master with two replicas watched by three sentinels. A test may kill a node (`kill -9`) and wait
 * for its replica to take over. Nodes run without persistence: what a failover keeps is what
 * replication had carried.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { until } from '../until.js';
import { freePort } from './redisTestServer.js';

/** How long a node may be silent before the others take it for failed (the Cluster's, the sentinels'). */
const NODE_TIMEOUT_MS = 1000;

/** Each node's log, in its folder: a failure message quotes what the nodes saw. */
const LOG_FILE = 'redis.log';

/** The last `lines` lines of each node's log under `dir`, headed by its port. */
function logsUnder(dir: string, lines = 30): string {
  return fs
    .readdirSync(dir)
    .filter((port) => fs.existsSync(path.join(dir, port, LOG_FILE)))
    .map(
      (port) =>
        `--- ${port}\n` +
        fs
          .readFileSync(path.join(dir, port, LOG_FILE), 'utf8')
          .trimEnd()
          .split('\n')
          .slice(-lines)
          .join('\n'),
    )
    .join('\n');
}

interface Node {
  port: number;
  child: ChildProcess;
}

/** A redis-server (or sentinel) in `dir`, with `args` after the config file, answering PING. */
async function startServer(dir: string, port: number, lines: string[], sentinel = false): Promise<Node> {
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, sentinel ? 'sentinel.conf' : 'redis.conf');
  const base = [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${dir}`,
    `logfile ${path.join(dir, LOG_FILE)}`,
    'daemonize no',
    'save ""',
    'appendonly no',
    'protected-mode no',
  ];
  fs.writeFileSync(config, [...base, ...lines].join('\n') + '\n');
  const child = spawn('redis-server', sentinel ? [config, '--sentinel'] : [config], { stdio: 'ignore' });
  await until(`redis on port ${port} to answer`, () => answers(port), 10_000, 50);
  return { port, child };
}

async function info(port: number, section: string): Promise<string> {
  const redis = client(port);
  try {
    return await redis.info(section);
  } finally {
    redis.disconnect();
  }
}

async function clusterInfo(port: number): Promise<string> {
  const redis = client(port);
  try {
    return (await redis.call('CLUSTER', 'INFO')) as string;
  } finally {
    redis.disconnect();
  }
}

/** A short-lived connection to one node, failing at once when it is down. */
export function client(port: number): Redis {
  const redis = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  redis.on('error', () => {});
  return redis;
}

async function answers(port: number): Promise<boolean> {
  const redis = client(port);
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function stopAll(nodes: Iterable<Node>): Promise<void> {
  await Promise.all(
    [...nodes].map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Kills a node as a crash would (`kill -9`): no shutdown, no last write. */
async function crash(node: Node): Promise<void> {
  await stopAll([node]);
}

export class RedisClusterSetup {
  private constructor(
    private readonly dir: string,
    readonly nodes: Map<number, Node>,
  ) {}

  /** Three masters and three replicas, `cluster_state:ok` on every node and every replica in sync. */
  static async start(): Promise<RedisClusterSetup> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-cluster-'));
    const nodes = new Map<number, Node>();
    try {
      const ports = await distinctPorts(12);
      await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (i) => {
          const [port, bus] = [ports[i], ports[i + 6]];
          const node = await startServer(path.join(dir, String(port)), port, [
            'cluster-enabled yes',
            `cluster-port ${bus}`,
            'cluster-config-file nodes.conf',
            `cluster-node-timeout ${NODE_TIMEOUT_MS}`,
          ]);
          nodes.set(port, node);
        }),
      );
      const created = spawnSync(
        'redis-cli',
        ['--cluster', 'create', ...ports.slice(0, 6).map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}\n${created.stderr}`);
      const setup = new RedisClusterSetup(dir, nodes);
      await setup.untilHealthy();
      return setup;
    } catch (e) {
      await stopAll(nodes.values());
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** The seed nodes, as NETLOOKUP_REDIS_CLUSTER takes them. */
  get seeds(): { host: string; port: number }[] {
    return [...this.nodes.keys()].map((port) => ({ host: '127.0.0.1', port }));
  }

  get seedList(): string {
    return this.seeds.map(({ host, port }) => `${host}:${port}`).join(',');
  }

  /** The ports of the nodes that run, by role. */
  async roles(): Promise<{ masters: number[]; replicas: number[] }> {
    const masters: number[] = [];
    const replicas: number[] = [];
    for (const [port, node] of this.nodes) {
      if (node.child.exitCode !== null || node.child.signalCode !== null) continue;
      ((await info(port, 'replication')).includes('role:master') ? masters : replicas).push(port);
    }
    return { masters, replicas };
  }

  /** The master that serves `key` now. */
  async masterOf(key: string): Promise<number> {
    const { masters } = await this.roles();
    const redis = client(masters[0]);
    try {
      const slot = (await redis.call('CLUSTER', 'KEYSLOT', key)) as number;
      const shards = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      return shards.find(([from, to]) => slot >= from && slot <= to)![2][1];
    } finally {
      redis.disconnect();
    }
  }

  /**
   * Every running node says `cluster_state:ok`, every running master has a replica in sync (before
   * a kill: the replica has what its master acknowledged, up to replication's lag).
   */
  async untilHealthy(ms = 60_000): Promise<void> {
    await until(
      'the cluster to be ok on every node, with every master replicated',
      async () => {
        try {
          const running = [...this.nodes.values()].filter(({ child }) => child.exitCode === null && child.signalCode === null);
          for (const { port } of running) if (!(await clusterInfo(port)).includes('cluster_state:ok')) return false;
          const { masters } = await this.roles();
          for (const port of masters) if (!/slave0:.*state=online/.test(await info(port, 'replication'))) return false;
          return masters.length === 3;
        } catch {
          return false;
        }
      },
      ms,
      100,
    );
  }

  /** Kills the node on `port` (`kill -9`). */
  async crash(port: number): Promise<void> {
    await crash(this.nodes.get(port)!);
  }

  /** Starts a crashed node again: it rejoins as the replica of its old master's successor. */
  async restart(port: number): Promise<void> {
    const dir = path.join(this.dir, String(port));
    const node = this.nodes.get(port)!;
    node.child = spawn('redis-server', [path.join(dir, 'redis.conf')], { stdio: 'ignore' });
    await until(`redis on port ${port} to answer`, () => answers(port), 10_000, 50);
  }

  /** What every node logged last (for a failure message). */
  log(): string {
    return logsUnder(this.dir);
  }

  async stop(): Promise<void> {
    await stopAll(this.nodes.values());
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export const SENTINEL_NAME = 'netlookup';

export class RedisSentinelSetup {
  private constructor(
    private readonly dir: string,
    readonly servers: Map<number, Node>,
    readonly sentinels: Node[],
  ) {}

  /** A master, two replicas in sync, three sentinels that know them all and each other. */
  static async start(): Promise<RedisSentinelSetup> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-sentinel-'));
    const servers = new Map<number, Node>();
    const sentinels: Node[] = [];
    try {
      const ports = await distinctPorts(6);
      const master = ports[0];
      for (const [i, port] of ports.slice(0, 3).entries()) {
        servers.set(port, await startServer(path.join(dir, String(port)), port, i === 0 ? [] : [`replicaof 127.0.0.1 ${master}`]));
      }
      for (const port of ports.slice(3)) {
        sentinels.push(
          await startServer(
            path.join(dir, String(port)),
            port,
            [
              `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${master} 2`,
              `sentinel down-after-milliseconds ${SENTINEL_NAME} ${NODE_TIMEOUT_MS}`,
              `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
              `sentinel parallel-syncs ${SENTINEL_NAME} 2`,
            ],
            true,
          ),
        );
      }
      const setup = new RedisSentinelSetup(dir, servers, sentinels);
      await setup.untilHealthy();
      return setup;
    } catch (e) {
      await stopAll([...servers.values(), ...sentinels]);
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** The sentinels, as NETLOOKUP_REDIS_SENTINELS takes them. */
  get sentinelNodes(): { host: string; port: number }[] {
    return this.sentinels.map(({ port }) => ({ host: '127.0.0.1', port }));
  }

  get sentinelList(): string {
    return this.sentinelNodes.map(({ host, port }) => `${host}:${port}`).join(',');
  }

  /** The master the sentinels name now. */
  async master(): Promise<number> {
    const redis = client(this.sentinels[0].port);
    try {
      const [, port] = (await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as [string, string];
      return Number(port);
    } finally {
      redis.disconnect();
    }
  }

  /**
   * Every sentinel names one master, which runs and has its running replicas online, and knows
   * the other sentinels (so that they can agree on a failover).
   */
  async untilHealthy(ms = 60_000): Promise<void> {
    await until(
      'the sentinels to agree on a running master with its replicas in sync',
      async () => {
        try {
          const named = new Set<number>();
          for (const { port } of this.sentinels) {
            const redis = client(port);
            try {
              const [, masterPort] = (await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as [string, string];
              named.add(Number(masterPort));
              const others = (await redis.call('SENTINEL', 'SENTINELS', SENTINEL_NAME)) as unknown[];
              if (others.length !== this.sentinels.length - 1) return false;
            } finally {
              redis.disconnect();
            }
          }
          if (named.size !== 1) return false;
          const [master] = named;
          const running = [...this.servers.values()].filter(({ child }) => child.exitCode === null && child.signalCode === null);
          const replication = await info(master, 'replication');
          const online = (replication.match(/^slave\d+:.*state=online/gm) ?? []).length;
          return replication.includes('role:master') && online === running.length - 1;
        } catch {
          return false;
        }
      },
      ms,
      100,
    );
  }

  async crash(port: number): Promise<void> {
    await crash(this.servers.get(port)!);
  }

  /** Hangs a server (SIGSTOP): its connections stay open, nothing is answered. */
  pause(port: number): void {
    this.servers.get(port)!.child.kill('SIGSTOP');
  }

  resume(port: number): void {
    this.servers.get(port)!.child.kill('SIGCONT');
  }

  /** What every server and sentinel logged last (for a failure message). */
  log(): string {
    return logsUnder(this.dir);
  }

  async stop(): Promise<void> {
    await stopAll([...this.servers.values(), ...this.sentinels]);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `n` free ports, none twice. */
async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
