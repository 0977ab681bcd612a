/** The hot reload's one load at a time: reloads asked for during a load share one more load after it. */
import { describe, expect, it } from 'vitest';
import { LiveEngine } from '../../src/engine/liveEngine.js';
import type { LookupEngine } from '../../src/engine/lookupEngine.js';

/** A load that finishes when the test says so; `engine` stands for the set of tables it loaded. */
function controlledLoads() {
  const started: { finish: (ok: boolean) => void; engine: LookupEngine }[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const load = () =>
    new Promise<LookupEngine>((resolve, reject) => {
      const engine = { id: started.length } as unknown as LookupEngine;
      mostAtOnce = Math.max(mostAtOnce, ++running);
      started.push({
        engine,
        finish: (ok) => {
          running--;
          if (ok) resolve(engine);
          else reject(new Error(`load ${started.indexOf(started.find((s) => s.engine === engine)!)} refused`));
        },
      });
    });
  return { load, started, mostAtOnce: () => mostAtOnce };
}

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveEngine.reload', () => {
  it('a burst of reloads during a load runs one more load after it, never two at once', async () => {
    const loads = controlledLoads();
    const initial = {} as LookupEngine;
    const live = new LiveEngine(initial, loads.load);
    const first = live.reload();
    const burst = Array.from({ length: 10 }, () => live.reload());
    await settle();
    expect(loads.started).toHaveLength(1);
    loads.started[0].finish(true);
    expect(await first).toBe(loads.started[0].engine);
    await settle();
    expect(loads.started).toHaveLength(2);
    expect(live.engine).toBe(loads.started[0].engine);
    loads.started[1].finish(true);
    for (const reload of burst) expect(await reload).toBe(loads.started[1].engine);
    expect(live.engine).toBe(loads.started[1].engine);
    expect(loads.mostAtOnce()).toBe(1);
  });

  it('a refused load keeps the engine in use, and the reload waiting behind it still runs', async () => {
    const loads = controlledLoads();
    const initial = {} as LookupEngine;
    const live = new LiveEngine(initial, loads.load);
    const first = live.reload();
    const second = live.reload();
    loads.started[0].finish(false);
    await expect(first).rejects.toThrow('refused');
    expect(live.engine).toBe(initial);
    await settle();
    loads.started[1].finish(true);
    expect(await second).toBe(loads.started[1].engine);
    expect(live.engine).toBe(loads.started[1].engine);
  });

  it('after a burst has been served, the next reload starts a load at once', async () => {
    const loads = controlledLoads();
    const live = new LiveEngine({} as LookupEngine, loads.load);
    const first = live.reload();
    loads.started[0].finish(true);
    await first;
    const again = live.reload();
    expect(loads.started).toHaveLength(2);
    loads.started[1].finish(true);
    expect(await again).toBe(loads.started[1].engine);
  });
});
