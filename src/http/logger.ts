/** Structured JSON logs (pino). API keys never reach a log line: headers are not logged, ?key= is redacted. */
import cluster from 'node:cluster';
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  // Under `serve --workers N` each line names its worker, so an operator can tell them apart.
  const worker = cluster.isWorker ? { worker: cluster.worker!.id } : {};
  return pino({ level, base: { service: 'netlookup', ...worker } });
}

/** The request URL with the value of any parameter whose decoded name is `key` replaced. */
export function redactedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const pairs = url.slice(query + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      name = rawName;
    }
    return name.trim().toLowerCase() === 'key' ? `${rawName}=[redacted]` : pair;
  });
  return `${url.slice(0, query)}?${pairs.join('&')}`;
}
