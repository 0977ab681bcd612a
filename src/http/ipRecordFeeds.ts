/**
 * The facts of one IP record that come from beyond the IP tables, gathered in one place for the
 * single lookup, the batch and every renderer: the security feeds' verdicts, the RPKI state and
 * the abuse mailbox of the feed set in force (src/feeds/feedSet.ts), the blacklist's threat facts,
 * and the reverse DNS name when it was asked for.
 *
 * A free-plan record shows none of these fields, except that a VPN range reports connection type
 * hosting (SPEC 2.2) at every level: there only a VPN verdict is passed on.
 */
import type { ParsedIp } from '../address/ipAddress.js';
import type { ThreatFacts, UnknownThreatFacts } from '../blacklist/threatFacts.js';
import { NO_FEED_SECURITY } from '../feeds/feedSet.js';
import type { FieldLevel, IpRecordFeeds } from '../records/ipRecord.js';
import type { ServiceDeps } from './serviceDeps.js';

export function ipRecordFeeds(
  deps: Pick<ServiceDeps, 'feeds'>,
  ip: ParsedIp,
  level: FieldLevel,
  now: Date,
  threat: ThreatFacts | UnknownThreatFacts | undefined,
  hostname: string | null = null,
): IpRecordFeeds | undefined {
  const set = deps.feeds.current;
  const nowMs = now.getTime();
  const security = set.securityOf(ip, nowMs);
  if (level === 'basic') return security.is_vpn ? { security } : undefined;
  const rpki = set.rpkiOf(ip, nowMs);
  const abuse = set.abuseOf(ip, nowMs);
  if (security === NO_FEED_SECURITY && rpki === null && abuse === null && hostname === null) return threat && { threat };
  return { security: security === NO_FEED_SECURITY ? null : security, rpki, abuse, hostname, threat };
}
