/**
 * Structured JSON logs (pino). Secrets never reach a log line: headers are not logged, logged URLs
 * and paths are redacted by what a secret looks like (redactedUrl), and every line passes a last
 * filter that blanks API keys (`nlk_` + 40 hex, or the 40 hex alone) and the admin token wherever
 * they appear.
 */
import cluster from 'node:cluster';
import pino, { type Logger } from 'pino';

const REDACTED = '[redacted]';
/** an API key (apiKeySecret.ts: `nlk_` + 40 hex digits) or its hex part alone */
const KEY_TEXT = /(?:nlk_)?[0-9a-f]{40}/gi;
/** parameter names that carry secrets, compared with everything but letters removed (`key%00`, `key[]`, `api_key`, `X-Token`) */
const SECRET_NAME = /key|token|secret|password|passwd|auth|credential/;

/** `secrets`: values to blank wherever they appear (the admin token); `destination`: stdout unless given. */
export function createLogger(level: string, secrets: readonly string[] = [], destination?: pino.DestinationStream): Logger {
  // Under `serve --workers N` each line names its worker, so an operator can tell them apart.
  const worker = cluster.isWorker ? { worker: cluster.worker!.id } : {};
  // In a JSON line a secret appears with JSON's escapes.
  const forms = secrets.filter((s) => s.length > 0).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  const options = { level, base: { service: 'netlookup', ...worker }, hooks: { streamWrite: (line: string) => blankSecrets(line, forms) } };
  return destination ? pino(options, destination) : pino(options);
}

function blankSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(KEY_TEXT, REDACTED);
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

/** Percent-decoding repeated until stable (at most 3 rounds: %256e is `n` encoded twice); `+` is a space. */
function decoded(text: string): string {
  let out = text.replace(/\+/g, ' ');
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      // a stray % stops decoding; the %XX sequences that are valid still count
      next = out.replace(/%[0-9a-f]{2}/gi, (hex) => String.fromCharCode(parseInt(hex.slice(1), 16)));
    }
    if (next === out) break;
    out = next;
  }
  return out;
}

function looksSecret(text: string, secrets: readonly string[]): boolean {
  const plain = decoded(text);
  KEY_TEXT.lastIndex = 0;
  return KEY_TEXT.test(plain) || secrets.some((s) => s.length > 0 && plain.includes(s));
}

/**
 * A request URL (or path) fit for a log line: a path segment or query pair that contains an API key
 * or a given secret, however encoded, is replaced, and so is the value of any parameter whose name,
 * reduced to its letters, speaks of a key or token.
 */
export function redactedUrl(url: string, secrets: readonly string[] = []): string {
  const query = url.indexOf('?');
  const pathPart = query < 0 ? url : url.slice(0, query);
  const path = pathPart
    .split('/')
    .map((segment) => (looksSecret(segment, secrets) ? REDACTED : segment))
    .join('/');
  if (query < 0) return path;
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      if (looksSecret(rawName, secrets)) return REDACTED;
      const name = decoded(rawName)
        .toLowerCase()
        .replace(/[^a-z]/g, '');
      if (equals >= 0 && (SECRET_NAME.test(name) || looksSecret(pair.slice(equals + 1), secrets))) return `${rawName}=${REDACTED}`;
      return pair;
    });
  return `${path}?${pairs.join('&')}`;
}
