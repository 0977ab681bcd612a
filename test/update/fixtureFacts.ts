/** What the publisher fixtures (test/fixtures/publishers, provenance in its README files) say about a few addresses. */
import { gunzipSync, gzipSync } from 'node:zlib';

/** An address whose city a re-published DB-IP file changes, for the swap test. */
export const SWAP_PROBE = {
  ip: '8.8.8.8',
  file: '/download.db-ip.com/free/dbip-city-lite-2026-11.csv.gz',
  cityBefore: 'Mountain View',
  cityAfter: 'Mountain View (renamed)',
  republished: (gz: Buffer): Buffer => {
    const text = gunzipSync(gz).toString('utf8');
    if (!text.includes(',"Mountain View",')) throw new Error('the DB-IP fixture no longer has the Mountain View row');
    return gzipSync(Buffer.from(text.replaceAll(',"Mountain View",', ',"Mountain View (renamed)",')));
  },
};
