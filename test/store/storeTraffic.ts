/**
 * Traffic for the store tests on Redis Cluster and Sentinel set-ups: admissions, reports, reports
 * until told to stop (through a failover), and what confirming by a replica costs.
 */
import type { ReportInput } from '../../src/blacklist/listing.js';
import type { RedisStore } from '../../src/store/redis/redisStore.js';
import type { AdmitRequest } from '../../src/store/store.js';
import { elapse } from '../until.js';

/** A request admitted now by the default, within a day quota of 100. */
export const admitRequest = (accountId: string, over: Partial<AdmitRequest> = {}): AdmitRequest => ({
  account_id: accountId,
  api: 'ip',
  cost: 1,
  rate_limit_per_second: 1000,
  quota: { period: 'day', limit: 100, pooled: false },
  consume: true,
  now: new Date(),
  ...over,
});

/** A scanner report of `ip` by `reporter`, seen now. */
export const reportInput = (ip: string, reporter: string): ReportInput => ({
  ip,
  reporter,
  threat_type: 'scanner',
  message: null,
  source: 'test',
  at: new Date(),
  country_code: null,
  isp: null,
});

/**
 * Reports of `<net>.0` to `<net>.249`, one after another, until `stop()`: the addresses
 * acknowledged, and when each refused report was sent (a refusal is retried 10 ms later, as a
 * client told Retry-After would, sooner).
 */
export function reportUntilStopped(store: RedisStore, reporter: string, net: string) {
  const acknowledged: string[] = [];
  const refused: number[] = [];
  let reporting = true;
  const loop = (async () => {
    for (let n = 0; reporting; n++) {
      const ip = `${net}.${n % 250}`;
      const at = performance.now();
      try {
        await store.blacklist.report(reportInput(ip, reporter), new Date());
        acknowledged.push(ip);
      } catch {
        refused.push(at);
        await elapse(10);
      }
    }
  })();
  return {
    acknowledged,
    refused,
    async stop(): Promise<void> {
      reporting = false;
      await loop;
    },
  };
}

/**
 * What confirming by a replica (WAIT) costs a report and an account change: the mean of 300, one at
 * a time, on stores `open` gives without change feeds (a change's announcement, and its wait for
 * acknowledgements, is not measured), without and with `WAIT 1`; logged.
 */
export async function confirmationCost(where: string, open: (waitReplicas: number) => Promise<RedisStore>): Promise<void> {
  const stores = [await open(0), await open(1)];
  try {
    const { account } = await stores[0].accounts.createAccount({ plan: 'free' });
    const mean = async (what: (store: RedisStore, i: number) => Promise<unknown>, store: RedisStore, n = 300) => {
      const start = performance.now();
      for (let i = 0; i < n; i++) await what(store, i);
      return (performance.now() - start) / n;
    };
    const report = (store: RedisStore, i: number) => store.blacklist.report(reportInput(`192.0.2.${i % 250}`, `r${i}`), new Date());
    const change = (store: RedisStore, i: number) => store.accounts.updateAccount(account.id, { email: `ops${i}@example.com` });
    const [report0, report1, change0, change1] = [
      await mean(report, stores[0]),
      await mean(report, stores[1]),
      await mean(change, stores[0]),
      await mean(change, stores[1]),
    ];
    console.log(
      `${where}, WAIT 1: a report ${report0.toFixed(3)} → ${report1.toFixed(3)} ms, an account change ${change0.toFixed(3)} → ${change1.toFixed(3)} ms (mean of 300, one at a time)`,
    );
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}
