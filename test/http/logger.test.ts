/** Log redaction by what a secret looks like, not only by the parameter's name. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactedUrl } from '../../src/http/operations/logger.js';

const key = `nlk_${'0123456789abcdef'.repeat(2)}01234567`;
const token = 'admin-token-with-enough-characters-0001';

describe('redactedUrl', () => {
  it.each([
    [`/v1/ip/1.1.1.1?key=${key}`, '/v1/ip/1.1.1.1?key=[redacted]'],
    [`/v1/ip/1.1.1.1?key%00=${key}&pretty`, '/v1/ip/1.1.1.1?key%00=[redacted]&pretty'],
    [`/v1/ip/1.1.1.1?key[]=abc`, '/v1/ip/1.1.1.1?key[]=[redacted]'],
    [`/v1/ip/1.1.1.1?Api_Key=abc`, '/v1/ip/1.1.1.1?Api_Key=[redacted]'],
    [`/v1/ip/1.1.1.1?fields=country,${key}`, '/v1/ip/1.1.1.1?fields=[redacted]'],
    [`/v1/ip/${key}?pretty`, '/v1/ip/[redacted]?pretty'],
    [`/v1/ip/1.1.1.1?${key}`, '/v1/ip/1.1.1.1?[redacted]'],
    [`/v1/ip/1.1.1.1?fields=%6Elk_${key.slice(4)}`, '/v1/ip/1.1.1.1?fields=[redacted]'],
    [`/admin/accounts?token=anything`, '/admin/accounts?token=[redacted]'],
    [`/admin/accounts?x=${encodeURIComponent(token)}`, '/admin/accounts?x=[redacted]'],
    [`/admin/${token}/x`, '/admin/[redacted]/x'],
    ['/v1/ip/8.8.8.8?fields=country&pretty', '/v1/ip/8.8.8.8?fields=country&pretty'],
    ['/v1/mac/00:00:0c:12:34:56?bad=%zz', '/v1/mac/00:00:0c:12:34:56?bad=%zz'],
  ])('%s', (url, expected) => {
    expect(redactedUrl(url, [token])).toBe(expected);
  });
});

describe('createLogger', () => {
  it('blanks keys (with or without nlk_) and the admin token wherever they appear in a line', () => {
    let written = '';
    const sink = new Writable({ write: (chunk, _encoding, done) => ((written += chunk), done()) });
    const logger = createLogger('info', [token, 'quote"and\\slash-secret'], sink);
    logger.info(
      {
        err: new Error(`bad ${key}`),
        path: `/v1/${key.slice(4).toUpperCase()}`,
        header: `Bearer ${token}`,
        other: 'quote"and\\slash-secret',
      },
      'request failed',
    );
    expect(written).toContain('request failed');
    expect(written).not.toMatch(/[0-9a-f]{40}/i);
    expect(written).not.toContain(token);
    expect(written).not.toContain('slash-secret');
    expect(written.match(/\[redacted\]/g)!.length).toBeGreaterThanOrEqual(4);
  });
});
