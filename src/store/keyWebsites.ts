/** Rules every store applies to input: a refusal of the caller's input and the key website list form. */

/** Refusal of a caller's input (a bad host, plan or date, an unknown account): the caller's fault, not the store's. */
export class StoreInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInputError';
  }
}

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostPattern = new RegExp(`^(?:\\*\\.)?${label}(?:\\.${label})*$`);

/**
 * A key's website list (SPEC 5.5) in its stored form: lower case, each an exact host (example.com)
 * or a wildcard of a host (*.example.com), duplicates dropped. URLs, ports and paths are refused
 * rather than guessed at, since a wrong guess would silently lock a key out.
 */
export function normalizeWebsites(websites: unknown): string[] {
  if (!Array.isArray(websites)) throw new StoreInputError('websites must be a list of hosts');
  const out: string[] = [];
  for (const entry of websites) {
    if (typeof entry !== 'string') throw new StoreInputError('websites must be a list of hosts');
    const host = entry.trim().toLowerCase();
    if (host.replace(/^\*\./, '').length > 253 || !hostPattern.test(host)) {
      throw new StoreInputError(
        `website ${JSON.stringify(entry)} is not a host: give example.com or *.example.com, without scheme, port or path`,
      );
    }
    if (!out.includes(host)) out.push(host);
  }
  return out;
}
