/**
 * The security table of the feed set in force, copied beside the compact sets (`security.nlt` and
 * `security.nlt.gz`) for the browser and edge engine (CompactEngine.useSecurityTable): an operator
 * who serves the compact folder from a CDN or an edge store serves the Tor, VPN and proxy flags
 * with it, as fresh as the last feed update. The table is the feed set's own file (its META
 * carries every feed's date and stale_after, so a copy that is not refreshed answers null, not
 * stale verdicts); a set without one removes the copies.
 *
 * The server itself never serves this file: its verdicts are paid-plan fields (SPEC 1), and who
 * may fetch the compact folder is the operator's choice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { FEED_FILES, FEEDS_FOLDER } from '../feeds/feedSet.js';
import { CURRENT_POINTER, INSTALLED_SET, readPointer, replaceFile, setFolder } from '../tables/tableSets.js';

export const COMPACT_SECURITY_FILE = FEED_FILES.security;

/** Copies (or removes) the compact folder's security table to match the feed set in force; returns what it did. */
export function publishCompactSecurity(tablesDir: string, compactDir: string): 'copied' | 'removed' | 'none' {
  const feedsDir = path.join(tablesDir, FEEDS_FOLDER);
  const name = fs.existsSync(path.join(feedsDir, CURRENT_POINTER)) ? readPointer(feedsDir, CURRENT_POINTER) : null;
  const source = name === null || name === INSTALLED_SET ? null : path.join(setFolder(feedsDir, name), COMPACT_SECURITY_FILE);
  const target = path.join(compactDir, COMPACT_SECURITY_FILE);
  if (source === null || !fs.existsSync(source)) {
    const had = fs.existsSync(target);
    fs.rmSync(target, { force: true });
    fs.rmSync(`${target}.gz`, { force: true });
    return had ? 'removed' : 'none';
  }
  const bytes = fs.readFileSync(source);
  fs.mkdirSync(compactDir, { recursive: true });
  // the gzip copy first: a reader that finds the new table finds its gzip copy too
  replaceFile(`${target}.gz`, gzipSync(bytes, { level: 9 }));
  replaceFile(target, bytes);
  return 'copied';
}
