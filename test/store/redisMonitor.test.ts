import { describe, expect, it } from 'vitest';
import { monitoredCommand, startMonitor } from './redisMonitor.js';
import { REDIS_TEST_URL, redisTestPrefix } from './redisTestServer.js';
import { Redis } from 'ioredis';
import { until } from '../until.js';

describe("the tests' MONITOR reader", () => {
  it("parses Redis's quoting of arguments", () => {
    expect(monitoredCommand('1795956654.099335 [0 127.0.0.1:54492] "zadd" "k:{a}" "GT" "1" "45.93.2.3"')).toEqual({
      args: ['zadd', 'k:{a}', 'GT', '1', '45.93.2.3'],
      source: '127.0.0.1:54492',
    });
    expect(monitoredCommand('1795956654.099467 [0 lua] "SET" "a \\"b\\" \\\\ c" "\\x00\\xff\\r\\n" ""')).toEqual({
      args: ['SET', 'a "b" \\ c', '\x00\xff\r\n', ''],
      source: 'lua',
    });
    expect(monitoredCommand('OK')).toBeNull();
  });

  it('sees every command of a busy server from its first line on', async () => {
    const prefix = redisTestPrefix('monitor');
    const busy = new Redis(REDIS_TEST_URL);
    let running = true;
    // another client already writing when MONITOR starts: its lines may come in the read that brings +OK
    const load = (async () => {
      for (let i = 0; running; i++) await busy.set(`${prefix}load`, String(i));
    })();
    const seen: string[][] = [];
    const monitor = await startMonitor(REDIS_TEST_URL, ({ args }) => seen.push(args));
    try {
      await busy.set(`${prefix}marker`, 'a "quoted" value');
      await until('the marker on the stream', () => seen.some((args) => args[1] === `${prefix}marker`));
      expect(seen.find((args) => args[1] === `${prefix}marker`)).toEqual(['set', `${prefix}marker`, 'a "quoted" value']);
    } finally {
      running = false;
      await load;
      monitor.stop();
      await busy.del(`${prefix}load`, `${prefix}marker`);
      busy.disconnect();
    }
  });
});
