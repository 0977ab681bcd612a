/** Structured JSON logs (pino). API keys never reach a log line: headers are not logged, ?key= is redacted. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'netlookup' } });
}

/** The request URL with the value of any `key` parameter replaced. */
export function redactedUrl(url: string): string {
  return url.replace(/([?&]key=)[^&#]*/gi, '$1[redacted]');
}
