/**
 * Abuse mailboxes as the service shows them, wherever they come from (a registry's dump, an RDAP
 * answer): which strings count as a mailbox, and which registries' dumps are read, named as the
 * feed catalog names their feeds and as IANA's RDAP bootstrap names their services.
 */

export type AbuseRegistry = 'ripencc' | 'apnic' | 'afrinic';

/** RFC 5321's longest forward-path (256 octets) less its angle brackets; RIPE's whois allows 320. */
const MAX_MAILBOX_LENGTH = 254;
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ALL_DIGITS = /^\d+$/;

/**
 * A plain addr-spec a report can be sent to: a dot-atom local part of at most 64 characters, `@`, a
 * host name of two or more labels (ASCII; an internationalised domain in its xn-- form), at most
 * MAX_MAILBOX_LENGTH in all. No display name, quoted local part, address literal or masked local part.
 */
export function isAbuseMailbox(text: string): boolean {
  if (text.length > MAX_MAILBOX_LENGTH) return false;
  const at = text.indexOf('@');
  if (at < 1 || at !== text.lastIndexOf('@') || at > 64) return false;
  const local = text.slice(0, at).split('.');
  if (!local.every((atom) => ATOM.test(atom))) return false;
  // `*` is atext, but a local part of asterisks alone is a mask (RIPE's dummified exports: `***@domain`)
  if (/^[*.]+$/.test(text.slice(0, at))) return false;
  const labels = text.slice(at + 1).split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  return !ALL_DIGITS.test(labels[labels.length - 1]);
}

/** The host of each registry's RDAP service (IANA's bootstrap names it): where its dumps answer, RDAP is not asked. */
export const RDAP_HOSTS: Readonly<Record<AbuseRegistry, string>> = {
  ripencc: 'rdap.db.ripe.net',
  apnic: 'rdap.apnic.net',
  afrinic: 'rdap.afrinic.net',
};

/** The feed id of a registry's dump file: `abuse-<registry>`, or `abuse-<registry>-<class>` when it splits its dump. */
export function abuseFeedId(registry: AbuseRegistry, part: string | null): string {
  return part === null ? `abuse-${registry}` : `abuse-${registry}-${part}`;
}

/** The registry of a feed id `abuseFeedId` made; null for any other id. */
export function registryOfAbuseFeed(id: string): AbuseRegistry | null {
  const m = /^abuse-(ripencc|apnic|afrinic)(?:-[a-z0-9]+)?$/.exec(id);
  return m === null ? null : (m[1] as AbuseRegistry);
}
