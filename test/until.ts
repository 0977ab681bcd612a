/**
 * Waiting for something in a test: poll for the event rather than sleep a fixed time and then
 * assert, so that a test waits no longer than the event takes, does not fail on a loaded machine
 * where the event comes a little late, and fails naming what never came.
 */

type Read<T> = () => T | Promise<T>;
type Check<T> = (value: T) => boolean;

/**
 * Reads `read` every `everyMs` until `ok` holds of its value, and answers that value; past `ms`,
 * throws naming `what` and the last value read.
 */
export async function untilValue<T>(what: string, read: Read<T>, ok: Check<T>, ms = 5000, everyMs = 10): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${shown(value)}`);
    await elapse(everyMs);
  }
}

/**
 * Reads `read` every `everyMs` until two reads in a row give the same value and `ok` holds of it
 * (a count that has stopped moving), and answers that value; past `ms`, throws naming `what`.
 */
export async function untilSteady<T>(what: string, read: Read<T>, ok: Check<T>, ms = 5000, everyMs = 10): Promise<T> {
  let before: { value: T } | null = null;
  return untilValue(
    what,
    read,
    (value) => {
      const steady = before !== null && before.value === value;
      before = { value };
      return steady && ok(value);
    },
    ms,
    everyMs,
  );
}

/** Polls `ok` every `everyMs` until it holds; past `ms`, throws naming `what`. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 5000, everyMs = 10): Promise<void> {
  await untilValue(what, ok, (held) => held, ms, everyMs);
}

/**
 * A fixed wait. Only where there is no event to poll for: a test that asserts something does NOT
 * happen within a time, or one that needs time to pass (an idle period a policy counts, a pace).
 * Each use says which.
 */
export function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function shown(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
