/**
 * `serve` with NETLOOKUP_UPDATE_INTERVAL runs `netlookup update` on that schedule, each run in a
 * child process: a build holds a second table set in memory and must not share the serving heap,
 * and a crash of the build must not take the server with it. Start-up never waits for it; the
 * servers take the new set by following the `current` pointer (src/http/server.ts).
 */
import { spawn } from 'node:child_process';
import { readUpdateStatus } from '../tables/tableSets.js';

/** The first run waits this long after start, so an update never competes with start-up. */
const FIRST_RUN_DELAY_MS = 5_000;
/** The build holds a second table set beside the first: the serving heap's limit would be too tight for it. */
const UPDATE_HEAP = '--max-old-space-size=4096';

export interface UpdateSchedule {
  stop(): void;
}

export function scheduleUpdates(
  tablesDir: string,
  intervalMs: number,
  log: (level: 'info' | 'warn', message: string) => void,
  /** what to update: everything, only the table sources, or only the feeds (each with its own schedule) */
  part: 'all' | 'tables' | 'feeds' = 'all',
): UpdateSchedule {
  // the same entry and loader flags as this process (dist/cli/main.js, or the sources through tsx), with the update's heap
  const nodeFlags = [...process.execArgv.filter((flag) => !flag.startsWith('--max-old-space-size')), UPDATE_HEAP];
  const cli = process.argv[1];
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const next = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(run, Math.max(0, delayMs));
    timer.unref();
  };
  const run = () => {
    log('info', `scheduled update${part === 'feeds' ? ' of the feeds' : ''} starting`);
    const partFlags = part === 'feeds' ? ['--feeds-only'] : part === 'tables' ? ['--tables-only'] : [];
    const child = spawn(process.execPath, [...nodeFlags, cli, 'update', ...partFlags], {
      env: { ...process.env, NETLOOKUP_TABLES: tablesDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      tail = (tail + text).slice(-2000);
    });
    child.on('error', (error) => {
      log('warn', `scheduled update could not start: ${error.message}`);
      next(intervalMs);
    });
    child.on('exit', (code, signal) => {
      const last = tail.trim().split('\n').pop() ?? '';
      log(code === 0 ? 'info' : 'warn', `scheduled update ended (${code ?? signal}): ${last}`);
      next(intervalMs);
    });
  };
  // feeds run from the first interval on: they are quick, and stale feeds answer null until then
  const lastSuccess = part === 'feeds' ? null : readUpdateStatus(tablesDir)?.last_success;
  const due = lastSuccess ? Date.parse(lastSuccess) + intervalMs - Date.now() : 0;
  next(Math.max(FIRST_RUN_DELAY_MS, due));
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
