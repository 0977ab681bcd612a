/**
 * Redis Cluster compatibility of the shared store's key design: in a cluster, all the keys
 * of one command (a script's KEYS, MGET, a DEL of several keys) and of one MULTI/EXEC transaction
 * must hash to one slot, and a script may touch only keys of the slot it declared.
 *
 * The conformance suites and a two-instance exchange run here under MONITOR; afterwards every
 * command on this file's keys is checked. Redis itself names each command's keys (COMMAND GETKEYS),
 * and cluster-key-slot (the slot function of ioredis's Cluster client) hashes them.
 */
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { storeConformance } from './storeConformance.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from './redisTestServer.js';
import { until } from '../until.js';
import { startMonitor, type Monitor, type MonitoredCommand } from './redisMonitor.js';

const prefix = redisTestPrefix('slots');
const seen: MonitoredCommand[] = [];
let monitor: Monitor;

beforeAll(async () => {
  monitor = await startMonitor(REDIS_TEST_URL, (command) => {
    const verb = command.args[0]?.toLowerCase();
    // other test files share the server: keep this file's commands, and every transaction's bounds
    if (verb === 'multi' || verb === 'exec' || verb === 'discard' || command.args.some((a) => a.includes(prefix))) seen.push(command);
  });
});

storeConformance(
  'redis (under MONITOR)',
  (part) => RedisStore.open(REDIS_TEST_URL, { prefix: `${prefix}${part}:`, ...(part === 'sessions' ? {} : { rateClock: 'request' }) }),
  (part) => removeKeys(`${prefix}${part}:`),
);

describe('two instances (under MONITOR)', () => {
  it('admit, roll, delete, report and look up across instances', async () => {
    const a = await RedisStore.open(REDIS_TEST_URL, { prefix: `${prefix}i:` });
    const b = await RedisStore.open(REDIS_TEST_URL, { prefix: `${prefix}i:` });
    try {
      const { account, key } = await a.accounts.createAccount({ plan: 'free' });
      const quota = { period: 'day' as const, limit: 100, pooled: false };
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? a : b).meter.admit({
            account_id: account.id,
            api: 'ip',
            cost: 1,
            rate_limit_per_second: 100,
            quota,
            consume: true,
            now: new Date(),
          }),
        ),
      );
      const rolled = await a.accounts.rollKey(key.id);
      expect(await b.accounts.authenticate(rolled!.secret)).not.toBeNull();
      const now = new Date();
      await a.blacklist.report(
        {
          ip: '198.51.100.9',
          reporter: account.id,
          threat_type: 'scanner',
          message: null,
          source: 'api',
          at: now,
          country_code: null,
          isp: null,
        },
        now,
      );
      expect(await b.blacklist.threatFacts(parseBlacklistAddress('198.51.100.9')!, now)).toMatchObject({ is_threat: true });
      expect(await a.accounts.deleteKey(key.id)).toBe(true);
    } finally {
      await a.close();
      await b.close();
      await removeKeys(`${prefix}i:`);
    }
  });
});

describe('Redis Cluster slots', () => {
  afterAll(() => monitor?.stop());

  it('every command, transaction and script of the store keeps its keys in one slot', async () => {
    // MONITOR's stream may trail the replies: a marker sent after the last command shows when every
    // one is in; then it stops (the checks' own commands are not checked)
    const redis = new Redis(REDIS_TEST_URL);
    const marker = `${prefix}end`;
    const isMarker = (command: MonitoredCommand) => command.args[0]?.toLowerCase() === 'echo' && command.args[1] === marker;
    await redis.echo(marker);
    await until('the marker on the MONITOR stream', () => seen.some(isMarker));
    monitor.stop();
    seen.splice(seen.findIndex(isMarker), 1);
    try {
      const keysOf = await keyLists(redis, seen);
      const problems: string[] = [];
      const oneSlot = (what: string, keys: string[]) => {
        const slots = new Set(keys.map((k) => calculateSlot(k)));
        if (slots.size > 1) problems.push(`${what}: keys in ${slots.size} slots: ${keys.join(' ')}`);
        return slots;
      };
      const open = new Map<string, string[]>();
      let scriptSlots: Set<number> | null = null;
      let checked = 0;
      let scriptCommandsChecked = 0;
      seen.forEach(({ args, source }, i) => {
        const verb = args[0].toLowerCase();
        // the tests' own cleanup (removeKeys) unlinks many keys at once; the store never unlinks
        if (verb === 'unlink') return;
        const keys = keysOf[i].filter((k) => k.startsWith(prefix));
        if (source === 'lua') {
          // a script's own commands follow it in MONITOR's stream: only keys of its declared slot
          if (scriptSlots === null) {
            if (keys.length > 0) problems.push(`script command without a script: ${args.join(' ')}`);
            return;
          }
          for (const k of keys) if (!scriptSlots.has(calculateSlot(k))) problems.push(`a script touched ${k} outside its declared slot`);
          if (keys.length > 0) scriptCommandsChecked++;
          return;
        }
        scriptSlots = null;
        if (verb === 'multi') open.set(source, []);
        else if (verb === 'exec' || verb === 'discard') {
          const transaction = open.get(source);
          open.delete(source);
          if (transaction !== undefined && transaction.length > 0) oneSlot(`MULTI … EXEC from ${source}`, transaction);
        } else {
          open.get(source)?.push(...keys);
          const slots = oneSlot(args.slice(0, 2).join(' '), keys);
          if (/^eval(sha)?(_ro)?$/.test(verb)) scriptSlots = slots;
          if (keys.length > 0) checked++;
        }
      });
      expect(problems).toEqual([]);
      // the workload reached Redis: thousands of commands with keys, scripts among them
      expect(checked).toBeGreaterThan(1000);
      expect(scriptCommandsChecked).toBeGreaterThan(100);
    } finally {
      redis.disconnect();
    }
  });
});

/** The keys of each command as Redis names them (none for commands without keys). */
async function keyLists(redis: Redis, commands: MonitoredCommand[]): Promise<string[][]> {
  const lists: string[][] = [];
  for (let from = 0; from < commands.length; from += 1000) {
    const pipeline = redis.pipeline();
    for (const { args } of commands.slice(from, from + 1000)) pipeline.call('COMMAND', 'GETKEYS', ...args);
    const replies = (await pipeline.exec()) ?? [];
    for (const [error, keys] of replies) lists.push(error ? [] : (keys as string[]));
  }
  return lists;
}
