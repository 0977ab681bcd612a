/** The batching of the shared store's admissions: grouping, order, early sending, failures. */
import { describe, expect, it } from 'vitest';
import { AdmissionBatches } from '../../src/store/admissionBatches.js';

function recorder(fail?: (items: string[]) => boolean, chunk = 4) {
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
  }, chunk);
  return { sent, turns, batches };
}

describe('AdmissionBatches', () => {
  it("gathers one turn's items per group, in arrival order, and answers each its own result", async () => {
    const { sent, turns, batches } = recorder(undefined, 10);
    const answers = Promise.all(['a1', 'b1', 'a2', 'a3', 'b2'].map((item) => batches.add(item[0], item)));
    expect(sent).toEqual([]);
    expect(await answers).toEqual(['a1!', 'b1!', 'a2!', 'a3!', 'b2!']);
    expect(sent).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2'],
    ]);
    expect(turns).toEqual([2]);
  });

  it('sends what waits as soon as `chunk` requests wait, over all groups; the rest at the end of the turn', async () => {
    const { sent, turns, batches } = recorder();
    const answers = Promise.all(['a0', 'b0', 'a1', 'a2', 'a3', 'b1'].map((item) => batches.add(item[0], item)));
    expect(sent).toEqual([['a0', 'a1', 'a2'], ['b0']]);
    expect(await answers).toEqual(['a0!', 'b0!', 'a1!', 'a2!', 'a3!', 'b1!']);
    expect(sent).toEqual([['a0', 'a1', 'a2'], ['b0'], ['a3'], ['b1']]);
    expect(turns).toEqual([2, 2]);
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
