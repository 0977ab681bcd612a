import type { Context } from 'koa';

/**
 * Whether the client's cached copy is current (RFC 9110 13.1.2, 13.1.3): If-None-Match decides
 * when sent (any of its tags, weak or strong, or `*`); else If-Modified-Since against
 * `lastModified`, when the answer has one.
 */
export function clientCopyIsCurrent(ctx: Context, etag: string, lastModified?: Date): boolean {
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch) {
    return ifNoneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === etag;
    });
  }
  if (lastModified === undefined) return false;
  const since = Date.parse(ctx.get('if-modified-since'));
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}
