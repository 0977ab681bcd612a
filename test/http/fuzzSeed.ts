/**
 * The seed of a test file's fast-check properties: drawn afresh on each run, so that runs cover
 * new inputs, and named in the failure so that `NETLOOKUP_FUZZ_SEED=<n>` replays it.
 */
import fc from 'fast-check';

function seedOf(env: NodeJS.ProcessEnv): number {
  const given = env.NETLOOKUP_FUZZ_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 0x7fffffff);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`NETLOOKUP_FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);
  return seed;
}

const FUZZ_SEED = seedOf(process.env);

/** fc.assert on FUZZ_SEED: a failure's message says fast-check's report and how to replay it. */
export async function assertSeeded<Ts>(property: fc.IRawProperty<Ts>, params: fc.Parameters<Ts> = {}): Promise<void> {
  const details = await fc.check(property, { ...params, seed: FUZZ_SEED });
  if (details.failed) throw new Error(`${fc.defaultReportMessage(details)}\nreplay: NETLOOKUP_FUZZ_SEED=${FUZZ_SEED}`);
}
