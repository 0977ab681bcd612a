/**
 * The four conformance suites (accounts, meter, blacklist, sessions) on one kind of store: each
 * suite on stores of its own, which `open` gives for that part (a SQLite file, a key prefix), and
 * `cleanup` removes after it.
 */
import type { Store } from '../../src/store/store.js';
import { accountsConformance } from './accountsConformance.js';
import { blacklistConformance } from './blacklistConformance.js';
import { meterConformance } from './meterConformance.js';
import { sessionsConformance } from './sessionsConformance.js';

const CONFORMANCE_PARTS = ['accounts', 'meter', 'blacklist', 'sessions'] as const;
export type ConformancePart = (typeof CONFORMANCE_PARTS)[number];

/** `value(part)` for each part, made once: what `open` and `cleanup` of a part must agree on (a folder, a key prefix). */
export const perPart = <T>(value: (part: ConformancePart) => T): Record<ConformancePart, T> =>
  Object.fromEntries(CONFORMANCE_PARTS.map((part) => [part, value(part)])) as Record<ConformancePart, T>;

export function storeConformance(
  name: string,
  open: (part: ConformancePart) => Promise<Store>,
  cleanup?: (part: ConformancePart) => Promise<void>,
): void {
  const suites = { accounts: accountsConformance, meter: meterConformance, blacklist: blacklistConformance, sessions: sessionsConformance };
  for (const part of CONFORMANCE_PARTS) suites[part](name, () => open(part), cleanup && (() => cleanup(part)));
}
