/**
 * `netlookup serve` in a child process, as an operator runs it (`npm start`: the compiled dist/, which
 * the test setup keeps current): its URL once it prints the listening line, its output so far, its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { ADMIN_TOKEN, projectRoot } from './harness.js';

export interface Child {
  process: ChildProcess;
  url: string;
  /** everything written so far */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

/** Kills the children still running (each test file's afterAll). */
export function killChildren(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Starts `netlookup serve [args]` on a free port with the admin token and debug logs. The store is
 * the embedded one under `dataDir` unless `extraEnv` gives REDIS_URL.
 */
export async function serve(
  dataDir: string,
  plansFile: string,
  extraEnv: Record<string, string> = {},
  args: string[] = [],
): Promise<Child> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NETLOOKUP_TABLES;
  delete env.NETLOOKUP_TRUST_PROXY;
  delete env.REDIS_URL;
  Object.assign(
    env,
    {
      PORT: '0',
      HOST: '127.0.0.1',
      NETLOOKUP_DATA_DIR: dataDir,
      NETLOOKUP_PLANS: plansFile,
      NETLOOKUP_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
    },
    extraEnv,
  );
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 60 s; output:\n${out}`)), 60_000);
    const check = () => {
      const match = /netlookup listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
  return { process: child, url, output: () => out, exited };
}

/**
 * A GET on a connection of its own, its body parsed as JSON: `serve --workers N` hands each new
 * connection to the next worker, so calls in a row reach every worker.
 */
export function getAlone(base: string, p: string, key?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(p, base), { agent: false, headers: key === undefined ? {} : { 'x-api-key': key } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}
