/**
 * The facts of one IP record that come from beyond the IP tables, gathered in one place for the
 * single lookup, the batch and every renderer: the security feeds' verdicts, the RPKI state and
 * the abuse mailbox of the feed set in force (src/feeds/feedSet.ts), the blacklist's threat facts,
 * and what is asked of outside services at query time when the record shows it: the reverse DNS
 * name, and the abuse mailbox from RDAP where no fresh registry dump answers.
 *
 * A free-plan record shows none of these fields, except that a VPN range reports connection type
 * hosting (SPEC 2.2) at every level: there only a VPN verdict is passed on.
 */
import type { ParsedIp } from '../../address/ipAddress.js';
import type { ThreatFacts, UnknownThreatFacts } from '../../blacklist/threatFacts.js';
import { abuseEmailOf } from '../../enrichment/rdapAbuse.js';
import { hostnameOf, type ReverseDnsAnswer } from '../../enrichment/reverseDns.js';
import type { Eventually } from '../request/eventually.js';
import { NO_FEED_SECURITY } from '../../feeds/securityVerdicts.js';
import { keepsField, type FieldsFilter } from '../../records/fieldsFilter.js';
import type { FieldLevel, IpRecordFeeds } from '../../records/ipRecord.js';
import type { ServiceDeps } from '../serviceDeps.js';

/** What outside services said of one address at query time (null: nothing, not asked, or no answer by the deadline). */
export interface QueryTimeFacts {
  hostname: string | null;
  abuseEmail: string | null;
}

/** Which outside services a lookup asks: only for a paid record whose `fields` keep the field, with the service on. */
export interface QueryTimeWants {
  hostname: boolean;
  abuse: boolean;
}

/** What a lookup at `level` with `filter` asks at query time; null: nothing (the hot path stays as it is). */
export function queryTimeWants(
  deps: Pick<ServiceDeps, 'config' | 'feeds'>,
  filter: FieldsFilter | null,
  level: FieldLevel,
): QueryTimeWants | null {
  if (level !== 'full') return null;
  const dns = deps.config.dns;
  const hostname = dns !== undefined && dns.servers !== 'off' && keepsField(filter, 'network.hostname');
  // RDAP needs IANA's bootstrap, which only an update brings
  const abuse = deps.config.rdap?.enabled === true && deps.feeds.current.rdap !== null && keepsField(filter, 'abuse.email');
  return hostname || abuse ? { hostname, abuse } : null;
}

/**
 * The query-time facts of `ips`, each lookup by its service's deadline (a batch's run in parallel
 * within one budget). RDAP is asked only where the feed set has no mailbox, IANA's bootstrap names
 * the registry's service, and no fresh dump of that registry is loaded (its silence is an answer);
 * an answer the RDAP cache holds comes at once. When nothing needs the network (no hostname wanted,
 * every abuse contact decided or cached) the facts come at once, without a promise.
 */
export function queryTimeFacts(
  deps: Pick<ServiceDeps, 'feeds' | 'reverseDns' | 'rdap'>,
  ips: readonly ParsedIp[],
  wants: QueryTimeWants,
  now: Date,
  /** the account asking: it spends its own share of each registry's RDAP budget */
  caller: string,
): Eventually<QueryTimeFacts[]> {
  const set = deps.feeds.current;
  const nowMs = now.getTime();
  const emails: (string | null)[] = new Array<string | null>(ips.length).fill(null);
  const asking: Promise<void>[] = [];
  if (wants.abuse) {
    let deadlineAt: number | undefined;
    ips.forEach((ip, i) => {
      if (set.abuseOf(ip, nowMs) !== null) return;
      const service = set.rdapServiceOf(ip, nowMs);
      if (service === null || set.abuseDumpAnswers(service, nowMs)) return;
      const cached = deps.rdap.cached(ip);
      if (cached !== undefined) {
        emails[i] = abuseEmailOf(cached);
        return;
      }
      deadlineAt ??= deps.rdap.deadline();
      asking.push(deps.rdap.lookup(ip, service, deadlineAt, caller).then((answer) => void (emails[i] = abuseEmailOf(answer))));
    });
  }
  const factsOf = (names: ReverseDnsAnswer[] | null) =>
    ips.map((_, i) => ({ hostname: names ? hostnameOf(names[i]) : null, abuseEmail: emails[i] }));
  if (!wants.hostname && asking.length === 0) return factsOf(null);
  const names = wants.hostname ? deps.reverseDns.lookupMany(ips.map((ip) => ip.text)) : null;
  return Promise.all([names, ...asking]).then(([found]) => factsOf(found ?? null));
}

export function ipRecordFeeds(
  deps: Pick<ServiceDeps, 'feeds'>,
  ip: ParsedIp,
  level: FieldLevel,
  now: Date,
  threat: ThreatFacts | UnknownThreatFacts | undefined,
  found: QueryTimeFacts | null = null,
): IpRecordFeeds | undefined {
  const set = deps.feeds.current;
  const nowMs = now.getTime();
  const security = set.securityOf(ip, nowMs);
  if (level === 'basic') return security.is_vpn ? { security } : undefined;
  const rpki = set.rpkiOf(ip, nowMs);
  const abuse = set.abuseOf(ip, nowMs) ?? found?.abuseEmail ?? null;
  const hostname = found?.hostname ?? null;
  if (security === NO_FEED_SECURITY && rpki === null && abuse === null && hostname === null) return threat && { threat };
  return { security: security === NO_FEED_SECURITY ? null : security, rpki, abuse, hostname, threat };
}
