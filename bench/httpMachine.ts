/** The machine under the HTTP bench: pinning of the processes, waiting for quiet CPUs, CPU time read from /proc. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { which } from './systemPackages.js';
import { PIN, env, log, round } from './httpSettings.js';

export const cores = os.cpus().length;

function pinningPlan() {
  const tasksetPath = which('taskset');
  return PIN && tasksetPath && cores >= 2
    ? {
        taskset: tasksetPath,
        server_cpu: 0,
        generator_cpu: 1,
        bench_process_cpu: 1,
        note: 'servers on CPU 0; the load generator and this orchestrating process on CPU 1',
      }
    : {
        taskset: tasksetPath,
        server_cpu: null,
        generator_cpu: null,
        bench_process_cpu: null,
        note: !PIN
          ? 'pinning switched off (BENCH_HTTP_PIN=0)'
          : !tasksetPath
            ? 'no taskset: processes are not pinned'
            : `only ${cores} CPU: processes are not pinned`,
      };
}

/** Which CPU the servers, the load generator and this process run on (null: not pinned). */
export type Pinning = ReturnType<typeof pinningPlan>;

/** The pinning plan, with this process already moved to its CPU. */
export async function pinProcesses(): Promise<Pinning> {
  const pinning = pinningPlan();
  if (pinning.bench_process_cpu !== null) {
    // All threads of this process (tsx's loader thread too) away from the server's CPU.
    const r = await run('taskset', ['-a', '-p', '-c', String(pinning.bench_process_cpu), String(process.pid)]);
    if (r.code !== 0) log(`could not pin this process: ${r.stderr.trim()}`);
  }
  return pinning;
}

/**
 * A shared machine makes every number here noisy: wait (up to BENCH_HTTP_QUIET_WAIT seconds) for the
 * CPUs to be nearly idle, and record how busy they were.
 */
export async function waitForQuiet() {
  const QUIET_WAIT_S = Number(env.BENCH_HTTP_QUIET_WAIT ?? 15);
  const QUIET_BUSY = 0.15;
  let busyBefore = await machineBusy(1000);
  const quietStarted = performance.now();
  while (busyBefore && busyBefore.some((b) => b > QUIET_BUSY) && performance.now() - quietStarted < QUIET_WAIT_S * 1000) {
    log(
      `machine busy (${busyBefore.map((b) => `${Math.round(b * 100)} %`).join(', ')} per CPU); waiting for it to quieten (at most ${QUIET_WAIT_S} s)`,
    );
    busyBefore = await machineBusy(2000);
  }
  const quiet = {
    cpu_busy_before_start: busyBefore,
    waited_s: round((performance.now() - quietStarted) / 1000, 1),
    quiet: busyBefore ? busyBefore.every((b) => b <= QUIET_BUSY) : null,
  };
  if (quiet.quiet === false)
    log(
      'the machine is still busy: other processes will share the CPUs and the numbers will be noisy (see others_on_server_cpu in the JSON)',
    );
  return quiet;
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Busy and total ticks of each CPU (Linux /proc/stat); null elsewhere. */
export function cpuTicks(): { busy: number; total: number }[] | null {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((l) => /^cpu\d+ /.test(l))
      .map((l) => {
        const v = l.split(/\s+/).slice(1).map(Number);
        const idle = v[3] + (v[4] ?? 0);
        const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
        return { busy: total - idle, total };
      });
  } catch {
    return null;
  }
}

/** CPU ticks (user + system) of one process; null when it is gone or /proc is missing. */
export function processTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * CPU ticks of this process's waited-for children (cutime + cstime): across one load generator run,
 * the generator's own CPU time (the servers are reaped only when they stop).
 */
export function childrenTicks(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]);
  } catch {
    return null;
  }
}

export const CLOCK_TICKS = 100;

export function ticksOf(pids: number[]): number | null {
  let sum = 0;
  for (const pid of pids) {
    const ticks = processTicks(pid);
    if (ticks === null) return null;
    sum += ticks;
  }
  return sum;
}

/** Busy share of each CPU over `ms` (Linux), to tell a quiet machine from a shared one. */
async function machineBusy(ms: number): Promise<number[] | null> {
  const before = cpuTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuTicks();
  if (!before || !after) return null;
  return after.map((a, i) => round((a.busy - before[i].busy) / Math.max(1, a.total - before[i].total), 3));
}
