/**
 * How a request presents its key (SPEC 5.3, in this order: X-API-Key header, Authorization
 * Bearer, ?key=) and the website restriction of a key (SPEC 5.5).
 */
import type { IncomingHttpHeaders } from 'node:http';

export function presentedKey(headers: IncomingHttpHeaders, query: Record<string, unknown>): string | null {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const key = query.key;
  if (typeof key === 'string' && key.length > 0) return key;
  if (Array.isArray(key) && typeof key[0] === 'string' && key[0].length > 0) return key[0];
  return null;
}

/** The host the request says it comes from: Origin first, else Referer; null when neither says. */
export function requestingHost(headers: IncomingHttpHeaders): string | null {
  for (const value of [headers.origin, headers.referer]) {
    if (typeof value !== 'string' || value.length === 0 || value === 'null') continue;
    try {
      return new URL(value).hostname.toLowerCase().replace(/\.$/, '');
    } catch {
      continue;
    }
  }
  return null;
}

/** Exact hosts match themselves; `*.example.com` matches any subdomain of example.com, not itself. */
export function websiteAllowed(websites: readonly string[], host: string | null): boolean {
  if (websites.length === 0) return true;
  if (host === null) return false;
  return websites.some((site) => (site.startsWith('*.') ? host.endsWith(site.slice(1)) && host.length > site.length - 1 : host === site));
}
