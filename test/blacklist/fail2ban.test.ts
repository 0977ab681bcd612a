/**
 * Bulk import and the fail2ban action (docs/blacklist.md): one real-looking fail2ban log replayed twice into a running server,
 * (1) through `netlookup blacklist import` writing the server's store from another process, and
 * (2) through the fail2ban action file (contrib/fail2ban/netlookup.conf): its actionban command,
 * tags substituted as fail2ban does, run by sh with curl for each ban fail2ban would report.
 * Both must list the same addresses with the same report counts; restored bans are not reported.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFail2banLine } from '../../src/blacklist/fail2banLog.js';
import { runCli } from '../cli/cliProcess.js';
import { Harness, projectRoot, tempDir } from '../http/harness.js';
import { untilValue } from '../until.js';

const HOUR = 3600_000;
const start = Math.floor(Date.now() / 1000) * 1000 - 6 * HOUR;
const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');

/** Categories the jails of this replay would configure in their action (docs/blacklist.md example). */
const jailCategories: Record<string, string> = { sshd: '18,22', 'postfix-sasl': '18,11', 'nginx-botsearch': '19', recidive: '15' };

function fail2banLog(): string {
  const lines: string[] = [];
  const at = (minutes: number) => stamp(start + minutes * 60_000);
  const ev = (minutes: number, logger: string, level: string, jail: string, text: string) =>
    lines.push(`${at(minutes)} fail2ban.${logger.padEnd(16)}[812]: ${level.padEnd(7)} [${jail}] ${text}`);
  lines.push(`${at(0)} fail2ban.server         [812]: INFO    --------------------------------------------------`);
  lines.push(`${at(0)} fail2ban.server         [812]: INFO    Starting Fail2ban v1.0.2`);
  // Restored at start: banned (and reported) before this log begins.
  ev(0, 'actions', 'NOTICE', 'sshd', 'Restore Ban 45.130.9.9');
  ev(0, 'actions', 'NOTICE', 'recidive', 'Restore Ban 45.130.9.10');
  for (let i = 0; i < 5; i++) ev(1 + i / 10, 'filter', 'INFO', 'sshd', `Found 45.130.0.1 - ${at(1 + i / 10).slice(0, 19)}`);
  ev(2, 'actions', 'NOTICE', 'sshd', 'Ban 45.130.0.1');
  ev(12, 'actions', 'NOTICE', 'sshd', 'Unban 45.130.0.1');
  // Banned again 10 minutes after the first ban: merges into the first report.
  ev(12.5, 'actions', 'NOTICE', 'sshd', 'Ban 45.130.0.1');
  ev(22.5, 'actions', 'NOTICE', 'sshd', 'Unban 45.130.0.1');
  // And again an hour later: a second report.
  ev(62, 'actions', 'NOTICE', 'sshd', 'Ban 45.130.0.1');
  ev(63, 'actions', 'WARNING', 'sshd', '45.130.0.1 already banned');
  ev(70, 'actions', 'NOTICE', 'postfix-sasl', 'Ban 45.130.0.2');
  ev(71, 'actions', 'NOTICE', 'nginx-botsearch', 'Ban 2a01:4f8:130::7');
  ev(72, 'actions', 'NOTICE', 'sshd', 'Ban 192.168.1.20');
  ev(80, 'actions', 'NOTICE', 'recidive', 'Ban 45.130.0.3');
  ev(90, 'actions', 'NOTICE', 'sshd', 'Ban 45.130.0.4');
  return lines.join('\n') + '\n';
}

const listed = ['45.130.0.1', '45.130.0.2', '2a01:4f8:130::7', '45.130.0.3', '45.130.0.4'];
const expectedReports: Record<string, number> = {
  '45.130.0.1': 2,
  '45.130.0.2': 1,
  '2a01:4f8:130::7': 1,
  '45.130.0.3': 1,
  '45.130.0.4': 1,
};

let dir: string;
let logFile: string;

beforeAll(() => {
  dir = tempDir('netlookup-f2b-');
  logFile = path.join(dir, 'fail2ban.log');
  fs.writeFileSync(logFile, fail2banLog());
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function listingOf(h: Harness, key: string): Promise<Record<string, { total_reports: number; threat_type: string }>> {
  const r = await h.call('/v1/blacklist/batch', { key, json: [...listed, '45.130.9.9', '45.130.9.10', '192.168.1.20'] });
  expect(r.status).toBe(200);
  return Object.fromEntries(
    r.body.results
      .filter((x: { listed: boolean }) => x.listed)
      .map((x: { ip: string; total_reports: number; threat_type: string }) => [x.ip, x]),
  );
}

/** The action file's [Definition] and [Init] values (fail2ban's INI: indented lines continue a value). */
function actionFile(): { definition: Record<string, string>; init: Record<string, string> } {
  const sections: Record<string, Record<string, string>> = {};
  let section = '';
  let last: string | null = null;
  for (const line of fs.readFileSync(path.join(projectRoot, 'contrib/fail2ban/netlookup.conf'), 'utf8').split('\n')) {
    if (/^\s*#/.test(line) || line.trim() === '') {
      last = null;
      continue;
    }
    const header = /^\[(\w+)\]$/.exec(line.trim());
    if (header) {
      section = header[1];
      sections[section] = {};
      continue;
    }
    if (/^\s/.test(line) && last !== null) sections[section][last] += '\n' + line.trim();
    else {
      const [name, ...rest] = line.split('=');
      last = name.trim();
      sections[section][last] = rest.join('=').trim();
    }
  }
  return { definition: sections.Definition, init: sections.Init };
}

describe('fail2ban log replay', () => {
  it('through `netlookup blacklist import`, into the store of a running server', async () => {
    const h = await Harness.start({ clockStart: new Date(start + 2 * HOUR).toISOString() });
    try {
      const key = await h.newKey('pro');
      const result = await runCli(['blacklist', 'import', '--json', '--data-dir', h.dataDir, '--reporter', 'host-a', logFile], process.env);
      expect(result.code, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ saved: 7, merged: 1, restored: 2 });
      expect(summary.refused).toEqual([
        { file: logFile, line: expect.any(Number), code: 'reserved_ip', reason: expect.stringContaining('192.168.1.20') },
      ]);
      // The server finds another process's changes within a second.
      const seen: Record<string, { total_reports: number; threat_type: string }> = await untilValue(
        'the listing to hold every address',
        () => listingOf(h, key),
        (listing) => Object.keys(listing).length >= listed.length,
        3000,
        100,
      );
      expect(Object.keys(seen).sort()).toEqual([...listed].sort());
      for (const ip of listed) expect(seen[ip].total_reports, ip).toBe(expectedReports[ip]);
      expect(seen['45.130.0.1'].threat_type).toBe('brute-force');
      expect(seen['45.130.0.2'].threat_type).toBe('brute-force');
      expect(seen['2a01:4f8:130::7'].threat_type).toBe('bot');
      expect(seen['45.130.0.3'].threat_type).toBe('other');
      // The IP record of the paid plan shows the same facts.
      expect((await h.call('/v1/ip/45.130.0.1', { key })).body.security).toMatchObject({ is_threat: true, threat_reports: 2 });
    } finally {
      await h.stop();
    }
  });

  it('through the fail2ban action: actionban run with its tags substituted, with curl, for each ban fail2ban reports', async () => {
    const { definition, init } = actionFile();
    expect(definition.norestored).toBe('1');
    expect(definition.actionban).toContain('curl --fail');
    const h = await Harness.start({ clockStart: new Date(start + 2 * HOUR).toISOString() });
    try {
      const key = await h.newKey('pro');
      const outcomes: { ip: string; code: number }[] = [];
      const now = new Date();
      for (const line of fail2banLog().split('\n')) {
        const ban = parseFail2banLine(line, 0, now);
        // norestored = 1: fail2ban does not run actionban for bans it restores at start.
        if (!ban || (ban.restored && definition.norestored === '1')) continue;
        const tags: Record<string, string> = {
          ...init,
          netlookup_url: h.url,
          netlookup_key: key,
          categories: jailCategories[ban.jail],
          ip: ban.ip,
          name: ban.jail,
          failures: '5',
          time: String(ban.at!.getTime() / 1000),
        };
        const command = definition.actionban.replace(/<(\w+)>/g, (tag, name: string) => tags[name] ?? tag);
        expect(command).not.toMatch(/<\w+>/);
        const result = await run('sh', ['-c', command]);
        outcomes.push({ ip: ban.ip, code: result.code });
      }
      // curl --fail: the reserved address is a failed action (exit 22), the others succeed.
      expect(outcomes.filter((o) => o.code !== 0)).toEqual([{ ip: '192.168.1.20', code: 22 }]);
      const arrived = h.clock.ms;
      const seen = await listingOf(h, key);
      expect(Object.keys(seen).sort()).toEqual([...listed].sort());
      // Reports over HTTP are dated when they arrive: the replay's two bans of 45.130.0.1 by one
      // account arrive together and merge into one report (the import above keeps both).
      for (const ip of listed) expect(seen[ip].total_reports, ip).toBe(1);
      expect(seen['2a01:4f8:130::7'].threat_type).toBe('bot');
      expect(seen['45.130.0.2'].threat_type).toBe('brute-force');
      const record = await h.call('/v1/blacklist/45.130.0.1', { key });
      expect(record.body.reports.map((r: { source: string; message: string }) => [r.source, r.message])).toEqual([
        ['fail2ban', 'fail2ban jail sshd: 5 failures'],
      ]);
      expect(record.body.last_seen).toBe(stamp(arrived).slice(0, 19));
    } finally {
      await h.stop();
    }
  });
});
