/**
 * Redis for tests: the shared server on 127.0.0.1:6379 (started by .ci/run when none runs) with a
 * key prefix per test run, removed afterwards; or a private redis-server on a free port for tests
 * that stop and restart it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { until } from '../until.js';

export const REDIS_TEST_URL = process.env.NETLOOKUP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other run uses. */
export function redisTestPrefix(what: string): string {
  return `nltest:${what}:${crypto.randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix`. */
export async function removeKeys(prefix: string, url = REDIS_TEST_URL): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (for a child process told which port to take). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A private redis-server that a test may stop and start again on the same port, or hang (SIGSTOP)
 * and resume: without persistence, or with the advice of docs/shared-deployments.md (AOF, fsync at
 * every write) in `aofDir`.
 */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private paused = false;
  private constructor(
    readonly port: number,
    private readonly aofDir: string | undefined,
  ) {}

  static async start(options: { aofDir?: string } = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), options.aofDir);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence =
      this.aofDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.aofDir];
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--daemonize', 'no'],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    await until(`redis-server on port ${this.port} to start`, () => answers(this.port), 5000, 50);
  }

  /** Hangs the server (SIGSTOP): its connections stay open and the kernel still accepts new ones, nothing is answered. */
  pause(): void {
    this.child?.kill('SIGSTOP');
    this.paused = true;
  }

  /** Lets a paused server run again (SIGCONT); it goes on with what it was sent meanwhile. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.child?.kill('SIGCONT');
  }

  /** Stops the server: SIGTERM is Redis's own shutdown (AOF written), SIGKILL a crash. A paused server is resumed first. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.resume();
    const child = this.child;
    if (child === null || child.exitCode !== null) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }
}

async function answers(port: number): Promise<boolean> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
