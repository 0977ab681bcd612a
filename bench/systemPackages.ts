/**
 * Programs the benches run that npm does not bring (wrk, nginx and its GeoIP2 module): found on the
 * PATH, and installed with apt-get when missing, so that a bench run on a fresh Debian machine
 * measures what its report says rather than skipping a peer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { log } from './httpSettings.js';

/** The executable `command` on the PATH, or null. */
export function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, command);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * `apt-get install` of the packages (as root, or through `sudo -n`), logged; false where there is no
 * apt-get or the install fails (the caller then says what is missing).
 */
export function installDebianPackages(packages: readonly string[]): boolean {
  if (!which('apt-get')) return false;
  const install = ['install', '-y', '--no-install-recommends', ...packages];
  const [command, args] = process.getuid?.() === 0 ? ['apt-get', install] : ['sudo', ['-n', 'apt-get', ...install]];
  log(`installing ${packages.join(', ')}: ${command} ${args.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync(command, args, { encoding: 'utf8', env });
  // A fresh machine's package lists may be empty or stale: fetch them once and try again.
  if (r.status !== 0) {
    spawnSync(command, command === 'sudo' ? ['-n', 'apt-get', 'update', '-qq'] : ['update', '-qq'], { encoding: 'utf8', env });
    r = spawnSync(command, args, { encoding: 'utf8', env });
  }
  if (r.status !== 0)
    log(`  failed (exit ${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-3).join(' ')}`);
  return r.status === 0;
}
