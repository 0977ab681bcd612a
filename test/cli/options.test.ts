/**
 * The options of serve, build-tables and blacklist import refuse values they cannot mean, as bad
 * usage (exit 2) before anything is opened or started; help names every option's purpose.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cliProcess.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-cli-options-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_DATA_DIR: path.join(root, 'data') };
delete env.REDIS_URL;
const cli = (args: string[]) => runCli(args, env);

describe('option values of the wrong form are bad usage (exit 2)', () => {
  it.each([
    [['serve', '--port', '99999'], /--port <port>.*'99999' is invalid\. A whole number from 0 to 65535 is expected\./],
    [['serve', '--port', '80abc'], /'80abc' is invalid/],
    [
      ['serve', '--workers', '0x2'],
      /--workers <n>.*'0x2' is invalid\. A whole number from 1 to 256, or auto \(one per core\), is expected\./,
    ],
    [['serve', '--workers', 'all'], /--workers <n>.*'all' is invalid/],
    [['serve', '--workers', '0'], /'0' is invalid/],
    [['serve', '--host', 'a b'], /--host <host>.*'a b' is invalid\. An IP address or host name is expected\./],
    [['blacklist', 'import', 'x.log', '--utc-offset', '+25:00'], /--utc-offset <offset>.*'\+25:00' is invalid\. An offset from -14:00/],
    [['blacklist', 'import', 'x.log', '--format', 'xml'], /'xml' is invalid\. Allowed choices are auto, fail2ban, csv\./],
    [['build-tables', '--compact', '--city-mmdb', 'city.mmdb'], /option '--compact' cannot be used with option '--city-mmdb <file>'/],
    [
      ['build-tables', '--built-at', '99'],
      /--built-at <seconds>.*'99' is invalid\. Unix seconds from 946684800 to 4294967295 are expected\./,
    ],
    [['build-tables', '--built-at', '1.7e9'], /'1\.7e9' is invalid/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('netlookup %j', async (args, message) => {
    const run = await cli(args as string[]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(fs.existsSync(path.join(root, 'data'))).toBe(false);
  });
});

describe('netlookup build-tables', () => {
  it('refuses a SOURCE_DATE_EPOCH it cannot read as bad usage, before writing anything', async () => {
    const out = path.join(root, 'tables');
    const run = await runCli(['build-tables', '--out', out], { ...env, SOURCE_DATE_EPOCH: '2026-11-25' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--built-at <seconds>' value '2026-11-25' from env 'SOURCE_DATE_EPOCH' is invalid/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('netlookup blacklist import', () => {
  it('refuses a missing file with exit 1 before reading any row', async () => {
    const missing = path.join(root, 'missing.log');
    const run = await cli(['blacklist', 'import', missing, '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toEqual({ success: false, error: { code: 'invalid_input', message: `${missing}: no such file` } });
  });
});

describe('help', () => {
  it('every option of every command says what it does', async () => {
    const commands = [
      ['build-tables'],
      ['lookup'],
      ['serve'],
      ['account', 'create'],
      ['account', 'show'],
      ['account', 'update'],
      ['key', 'create'],
      ['key', 'update'],
      ['key', 'roll'],
      ['key', 'delete'],
      ['key', 'list'],
      ['blacklist', 'import'],
    ];
    const runs = await Promise.all(commands.map((command) => cli([...command, '--help'])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, commands[i].join(' ')).toBe(0);
      const options = run.stdout.slice(run.stdout.indexOf('\nOptions:\n') + 10).split('\n');
      // an option line: two spaces, the flags, at least two spaces, then the description
      for (const line of options.filter((text) => /^ {2}-/.test(text)))
        expect(line, `${commands[i].join(' ')}: ${line}`).toMatch(/^ {2}-\S.*? {2,}\S/);
    }
  });
});
