/**
 * The fail2ban action under a real fail2ban (runs where `fail2ban-client` and the stock sshd
 * filter are installed, e.g. Debian's fail2ban package; skipped elsewhere): a jail with only our
 * action watches a log file, sshd failures are appended, fail2ban bans and reports through curl
 * to a running server, then fail2ban restarts and restores the bans without reporting them again.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Harness, projectRoot, tempDir } from '../http/harness.js';
import { elapse, untilValue } from '../until.js';

const installed =
  spawnSync('sh', ['-c', 'command -v fail2ban-client && command -v curl'], { encoding: 'utf8' }).status === 0 &&
  fs.existsSync('/etc/fail2ban/filter.d/sshd.conf');

const dir = tempDir('netlookup-f2b-server-');
const conf = path.join(dir, 'etc');
const client = (...args: string[]) => spawnSync('fail2ban-client', ['-c', conf, ...args], { encoding: 'utf8' });

afterAll(() => {
  if (installed) client('stop');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!installed)('fail2ban itself with contrib/fail2ban/netlookup.conf', () => {
  it('bans are reported once; bans restored at restart are not reported again', async () => {
    // fail2ban stamps reports with the real time: the service's clock runs a little ahead of it.
    const h = await Harness.start({ clockStart: new Date(Date.now() + 120_000).toISOString(), tickMs: 0 });
    try {
      const key = await h.newKey('pro');
      fs.cpSync('/etc/fail2ban', conf, { recursive: true });
      fs.rmSync(path.join(conf, 'jail.d'), { recursive: true, force: true });
      fs.copyFileSync(path.join(projectRoot, 'contrib/fail2ban/netlookup.conf'), path.join(conf, 'action.d/netlookup.conf'));
      const authLog = path.join(dir, 'auth.log');
      const f2bLog = path.join(dir, 'fail2ban.log');
      fs.writeFileSync(authLog, '');
      fs.writeFileSync(
        path.join(conf, 'fail2ban.local'),
        `[Definition]\nlogtarget = ${f2bLog}\nsocket = ${dir}/f2b.sock\npidfile = ${dir}/f2b.pid\ndbfile = ${dir}/f2b.sqlite3\n`,
      );
      fs.writeFileSync(
        path.join(conf, 'jail.local'),
        `[DEFAULT]\nbackend = polling\nmaxretry = 3\nfindtime = 600\nbantime = 3600\n\n[sshd]\nenabled = true\nport = ssh\nlogpath = ${authLog}\n` +
          `action = netlookup[netlookup_url="${h.url}", netlookup_key="${key}", categories="18,22"]\n`,
      );
      expect(client('-t').status).toBe(0);
      expect(client('start').status).toBe(0);
      // syslog's local time, as sshd writes it: "Nov 23 10:15:32"
      const stamp = () => {
        const d = new Date();
        return `${d.toString().slice(4, 7)} ${String(d.getDate()).padStart(2, ' ')} ${d.toTimeString().slice(0, 8)}`;
      };
      for (const ip of ['45.160.0.1', '45.160.0.2']) {
        for (let i = 0; i < 4; i++)
          fs.appendFileSync(authLog, `${stamp()} web1 sshd[4242]: Failed password for root from ${ip} port ${50000 + i} ssh2\n`);
      }
      // Report requests the service answered (201 saved, 200 merged into a report of the last 15 minutes).
      const reported = async () =>
        String(
          [
            ...(await h.call('/metrics')).text.matchAll(
              /netlookup_requests_total\{endpoint="\/v1\/blacklist\/report",status="20[01]"\} (\d+)/g,
            ),
          ].reduce((n, m) => n + Number(m[1]), 0),
        );
      await untilValue('two reports', reported, (n) => n === '2', 20_000, 250);
      const check = await h.call('/v1/blacklist/45.160.0.1', { key });
      expect(check.body).toMatchObject({
        listed: true,
        threat_type: 'brute-force',
        total_reports: 1,
        source: 'fail2ban',
        reports: [{ message: 'fail2ban jail sshd: 3 failures' }],
      });

      client('stop');
      expect(client('start').status).toBe(0);
      await untilValue(
        'restored bans',
        () => (fs.readFileSync(f2bLog, 'utf8').match(/Restore Ban/g) ?? []).length,
        (n) => n === 2,
        20_000,
        250,
      );
      // A restored ban must NOT be reported again, which no event shows: give a wrongly configured
      // action time to report; it would have by now.
      await elapse(2000);
      expect(await reported()).toBe('2');
    } finally {
      client('stop');
      await h.stop();
    }
  });
});
