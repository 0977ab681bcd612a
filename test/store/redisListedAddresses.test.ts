import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import type { ChangeListener } from '../../src/store/redis/redisChangeFeed.js';
import { ListedAddresses, REBUILD_INTERVAL_MS } from '../../src/store/redis/redisListedAddresses.js';

const address = (ip: string) => parseBlacklistAddress(ip)!;

/** A feed whose subscription the test confirms and loses, and an index whose reads it releases. */
function harness(indexChunks: string[][]) {
  let listener: ChangeListener | null = null;
  const feed = { listen: (_topic: string, l: ChangeListener) => void (listener = l) };
  const reads: { release: () => void; fail: (e: Error) => void }[] = [];
  let index = indexChunks;
  const set = new ListedAddresses(feed, async function* () {
    for (const chunk of index) {
      await new Promise<void>((release, fail) => reads.push({ release, fail }));
      yield chunk.map(address);
    }
  });
  return {
    set,
    feed: () => listener!,
    setIndex: (chunks: string[][]) => void (index = chunks),
    /** lets every pending and following index read finish */
    async drain() {
      for (let i = 0; i < 50; i++) {
        while (reads.length > 0) reads.shift()!.release();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    reads,
  };
}

describe('ListedAddresses', () => {
  afterEach(() => vi.useRealTimers());

  it('answers "may be listed" for everything until a load, which it begins only when first asked and subscribed', async () => {
    const h = harness([['192.0.2.1', '2001:db8::1']]);
    await h.drain();
    expect(h.reads).toHaveLength(0);
    expect(h.set.mayBeListed(address('198.51.100.1'))).toBe(true);
    expect(h.reads).toHaveLength(0);
    h.feed().subscribed();
    await h.drain();
    expect(h.set.mayBeListed(address('198.51.100.1'))).toBe(false);
    expect(h.set.mayBeListed(address('192.0.2.1'))).toBe(true);
    expect(h.set.mayBeListed(address('2001:db8::1'))).toBe(true);
    expect(h.set.mayBeListed(address('2001:db8::2'))).toBe(false);
  });

  it('keeps the changes announced while it loads', async () => {
    const h = harness([['192.0.2.1'], ['192.0.2.2']]);
    h.feed().subscribed();
    h.set.mayBeListed(address('192.0.2.9'));
    await new Promise((resolve) => setImmediate(resolve));
    h.feed().changed('198.51.100.5 2001:db8::5 not-an-address');
    await h.drain();
    for (const ip of ['192.0.2.1', '192.0.2.2', '198.51.100.5', '2001:db8::5']) expect(h.set.mayBeListed(address(ip))).toBe(true);
    expect(h.set.mayBeListed(address('192.0.2.9'))).toBe(false);
    expect(h.set.size).toBe(4);
  });

  it('stops answering when the subscription is lost, and reloads (dropping a loss-spanning load) when it is back', async () => {
    const h = harness([['192.0.2.1']]);
    h.feed().subscribed();
    h.set.mayBeListed(address('192.0.2.1'));
    await h.drain();
    expect(h.set.mayBeListed(address('192.0.2.7'))).toBe(false);
    h.feed().lost();
    expect(h.set.mayBeListed(address('192.0.2.7'))).toBe(true);
    // reported while the subscription was down: in the index, never announced here
    h.setIndex([['192.0.2.1', '192.0.2.7']]);
    h.feed().subscribed();
    await new Promise((resolve) => setImmediate(resolve));
    // a load that a loss interrupts is not used
    h.feed().lost();
    await h.drain();
    expect(h.set.mayBeListed(address('192.0.2.8'))).toBe(true);
    h.feed().subscribed();
    await h.drain();
    expect(h.set.mayBeListed(address('192.0.2.7'))).toBe(true);
    expect(h.set.mayBeListed(address('192.0.2.8'))).toBe(false);
  });

  it('retries a failed load, and a rebuild drops members no longer in the index while still answering', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    const h = harness([['192.0.2.1', '192.0.2.2']]);
    h.feed().subscribed();
    h.set.mayBeListed(address('192.0.2.1'));
    await vi.waitFor(() => expect(h.reads).toHaveLength(1));
    h.reads.shift()!.fail(new Error('connection lost'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.set.mayBeListed(address('192.0.2.9'))).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    await h.drain();
    expect(h.set.mayBeListed(address('192.0.2.9'))).toBe(false);
    expect(h.set.size).toBe(2);
    h.setIndex([['192.0.2.2']]);
    await vi.advanceTimersByTimeAsync(REBUILD_INTERVAL_MS);
    // the rebuild is under way: the old members still answer
    expect(h.set.mayBeListed(address('192.0.2.1'))).toBe(true);
    expect(h.set.mayBeListed(address('192.0.2.9'))).toBe(false);
    await h.drain();
    expect(h.set.mayBeListed(address('192.0.2.1'))).toBe(false);
    expect(h.set.size).toBe(1);
    h.set.close();
  });
});
