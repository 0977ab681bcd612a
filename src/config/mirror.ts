/**
 * With a mirror (NETLOOKUP_UPDATE_MIRROR), every publisher URL is taken from
 * `<mirror>/<host>/<path>` instead: operators without direct access (and the tests) serve the same
 * files, and the same RDAP answers, from their own server.
 */
export function mirroredUrl(url: string, mirror: string | null): string {
  if (!mirror) return url;
  const publisher = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${publisher.host}${publisher.pathname}${publisher.search}`;
}
