/** What the feed reader tests share: the fixture of a publisher URL, and scratch files for the bad-data corpora. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { parseIPv4 } from '../../../src/address/ipAddress.js';

const PUBLISHERS = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');

/** A publisher URL's fixture in the mirror layout: `<host>/<path>`, the query left out (a folder's: its index.html). */
export function fixtureOf(url: string): string {
  const { host, pathname } = new URL(url);
  return path.join(PUBLISHERS, host, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
}

/** A writer of scratch files in a folder of its own, removed after the file's tests. */
export function scratchFiles(prefix: string): (content: string | Buffer) => string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `netlookup-${prefix}-`));
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));
  let written = 0;
  return (content) => {
    const file = path.join(folder, `file-${++written}`);
    fs.writeFileSync(file, content);
    return file;
  };
}

/** An IPv4 address as the readers' ranges hold it. */
export function v4(text: string): bigint {
  const n = parseIPv4(text);
  if (n < 0) throw new Error(`not an IPv4 address: ${text}`);
  return BigInt(n);
}
