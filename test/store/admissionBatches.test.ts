/** The batching of the shared store's admissions: grouping, order, size cap, failures. */
import { describe, expect, it } from 'vitest';
import { AdmissionBatches } from '../../src/store/admissionBatches.js';

function recorder(fail?: (items: string[]) => boolean) {
  const sent: string[][] = [];
  /** the batches of each call of send: those of one turn come together */
  const turns: number[] = [];
  const batches = new AdmissionBatches<string, string>((groups) => {
    turns.push(groups.length);
    return groups.map(async (items) => {
      sent.push(items);
      if (fail?.(items)) throw new Error(`failed ${items.join(',')}`);
      return items.map((item) => `${item}!`);
    });
  }, 4);
  return { sent, turns, batches };
}

describe('AdmissionBatches', () => {
  it("gathers one turn's items per group, in arrival order, and answers each its own result", async () => {
    const { sent, turns, batches } = recorder();
    const answers = Promise.all(['a1', 'b1', 'a2', 'a3', 'b2'].map((item) => batches.add(item[0], item)));
    expect(sent).toEqual([]);
    expect(await answers).toEqual(['a1!', 'b1!', 'a2!', 'a3!', 'b2!']);
    expect(sent).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2']]);
    expect(turns).toEqual([2]);
  });

  it('sends a group at once when it reaches the cap; the rest waits for the turn', async () => {
    const { sent, batches } = recorder();
    const answers = Promise.all(Array.from({ length: 6 }, (_, i) => batches.add('a', `a${i}`)));
    expect(sent).toEqual([['a0', 'a1', 'a2', 'a3']]);
    await answers;
    expect(sent).toEqual([['a0', 'a1', 'a2', 'a3'], ['a4', 'a5']]);
  });

  it("a failed batch fails each of its items, and no other group's", async () => {
    const { batches } = recorder((items) => items[0].startsWith('a'));
    const results = await Promise.allSettled([batches.add('a', 'a1'), batches.add('b', 'b1'), batches.add('a', 'a2')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });

  it('a send that throws at once fails its items rather than the caller', async () => {
    const batches = new AdmissionBatches<string, string>(() => {
      throw new Error('closed');
    });
    await expect(Promise.all([batches.add('a', 'a1'), batches.add('b', 'b1')])).rejects.toThrow('closed');
    await expect(batches.add('a', 'a1')).rejects.toThrow('closed');
  });

  it('later turns make new batches', async () => {
    const { sent, batches } = recorder();
    await batches.add('a', 'a1');
    await batches.add('a', 'a2');
    expect(sent).toEqual([['a1'], ['a2']]);
  });
});
