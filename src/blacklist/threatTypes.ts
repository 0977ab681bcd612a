/**
 * The blacklist's threat types (docs/blacklist.md) and how reports name them: by our own
 * name, or by the numeric category lists that intrusion-prevention tools send (the common
 * bulk-report numbering used by fail2ban's reporting actions and by AbuseIPDB-style CSV files).
 */

export const threatTypes = ['brute-force', 'spam', 'scanner', 'web-attack', 'ddos', 'phishing', 'malware', 'bot', 'other'] as const;
export type ThreatType = (typeof threatTypes)[number];

/**
 * Category number → threat type. Numbers without a row of their own (DNS compromise, fraud,
 * open proxy, VPN, hacking, spoofing, IoT targeted) are `other`.
 */
const categoryThreatTypes: Readonly<Record<number, ThreatType>> = Object.freeze({
  1: 'other', // DNS compromise
  2: 'other', // DNS poisoning
  3: 'other', // fraud orders
  4: 'ddos', // DDoS attack
  5: 'brute-force', // FTP brute-force
  6: 'ddos', // ping of death
  7: 'phishing',
  8: 'other', // fraud VoIP
  9: 'other', // open proxy
  10: 'spam', // web spam
  11: 'spam', // email spam
  12: 'spam', // blog spam
  13: 'other', // VPN IP
  14: 'scanner', // port scan
  15: 'other', // hacking
  16: 'web-attack', // SQL injection
  17: 'other', // spoofing
  18: 'brute-force',
  19: 'bot', // bad web bot
  20: 'malware', // exploited host
  21: 'web-attack', // web app attack
  22: 'brute-force', // SSH
  23: 'other', // IoT targeted
});

/** Our name of a threat type from the loose spellings tools use (Brute_Force, "web attack"), or null. */
export function threatTypeOf(text: string): ThreatType | null {
  const name = text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
  const aliased =
    name === 'bruteforce'
      ? 'brute-force'
      : name === 'webattack'
        ? 'web-attack'
        : name === 'scan' || name === 'port-scan'
          ? 'scanner'
          : name;
  return (threatTypes as readonly string[]).includes(aliased) ? (aliased as ThreatType) : null;
}

/**
 * The threat type of a category list ("18,22", "18 22", [18, 22]): the first category that names
 * a specific type, `other` when all are unspecific. Null when an entry is not a known category.
 */
export function threatTypeOfCategories(list: string | number | readonly (string | number)[]): ThreatType | null {
  const entries = (Array.isArray(list) ? list : String(list).split(/[\s,;]+/)).map((e) => String(e).trim()).filter((e) => e.length > 0);
  if (entries.length === 0) return null;
  let found: ThreatType | null = null;
  for (const entry of entries) {
    if (!/^\d{1,3}$/.test(entry)) return null;
    const type = categoryThreatTypes[Number(entry)];
    if (type === undefined) return null;
    if (found === null || (found === 'other' && type !== 'other')) found = type;
  }
  return found;
}
