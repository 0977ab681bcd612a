/**
 * The IP record (SPEC 2.2) as JSON text, for the single-lookup hot path: the same text as
 * `JSON.stringify(ipRecord(answer, level, now, feeds))`, made from a template per matched range
 * and level (src/records/jsonTemplate.ts). Of a found record only these parts change between two
 * addresses of one range: the echoed `ip`, the full level's clock fields (`timezone`), the
 * `security` block (the blacklist's threat facts) and, for IPv6, `network.range` (the CIDR block
 * around the address). Everything else is the range's location and network rows, rendered once.
 *
 * Reserved and not-found answers, and records with VPN/proxy/RPKI feed facts (which change the
 * connection type and RPKI fields per address), take the object path: they are rare. A range seen
 * before costs no decoding of table rows at all: the range index is the template's key.
 */
import type { ParsedIp } from '../address/ipAddress.js';
import { NO_THREAT_FACTS, type ThreatFacts, type UnknownThreatFacts } from '../blacklist/threatFacts.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import type { ConnectionType } from '../tables/format/ipTable.js';
import { JsonTemplate } from './jsonTemplate.js';
import {
  ipRecord,
  isHostingOf,
  NO_SECURITY_FACTS,
  rangeOf,
  securityRecord,
  timezoneFull,
  type FieldLevel,
  type IpRecordFeeds,
} from './ipRecord.js';

/** Templates kept per renderer; past this many the cache starts afresh (memory stays bounded). */
const TEMPLATE_LIMIT = 65_536;
/**
 * A template costs several object-path renders to make, so it is made on a range's second
 * request: traffic that never comes back to a range (a scan) pays only for remembering it.
 */
const SEEN_ONCE_LIMIT = 4 * TEMPLATE_LIMIT;

const holesOf = (level: FieldLevel, version: 4 | 6): readonly string[] =>
  level === 'basic' ? ['ip'] : version === 4 ? ['ip', 'timezone', 'security'] : ['ip', 'timezone', 'network.range', 'security'];

interface RangeTemplate {
  template: JsonTemplate;
  zone: string | null;
  isHosting: boolean | null;
}

/** One renderer per loaded table set: templates are per range of those tables. */
export class IpRecordRenderer {
  /** by range and level; null: the range has no data (a not-found answer) */
  private readonly templates = new Map<number, RangeTemplate | null>();
  /** ranges (with level) asked for once, not yet worth a template */
  private readonly seenOnce = new Set<number>();
  /** the full level's timezone JSON per zone, for the second it was made in */
  private readonly clocks = new Map<string | null, { second: number; json: string }>();
  /** the security block without threat facts, by is_hosting (false, true, null) */
  private readonly quietSecurity = [false, true, null].map((hosting) =>
    JSON.stringify(securityRecord(NO_SECURITY_FACTS, hosting, NO_THREAT_FACTS)),
  );

  /**
   * The record of a parsed address, range first: a range seen before needs no answer decoded
   * from the tables at all, only its template and this request's parts.
   */
  render(engine: LookupEngine, ip: ParsedIp, level: FieldLevel, now: Date, feeds?: IpRecordFeeds): string {
    const range = feeds?.security || feeds?.rpki ? -1 : engine.rangeOf(ip);
    const version = ip.v4 >= 0 ? 4 : 6;
    const entry = range < 0 ? null : this.templateOf(engine, ip, range, version, level, now);
    if (entry === null) return JSON.stringify(ipRecord(engine.answerOf(ip), level, now, feeds));
    const text = JSON.stringify(ip.text);
    if (level === 'basic') return entry.template.render([text]);
    const ms = now.getTime();
    const timezone = this.timezoneJson(entry.zone, ms);
    const security = this.securityJson(entry.isHosting, feeds?.threat ?? NO_THREAT_FACTS);
    if (version === 4) return entry.template.render([text, timezone, security]);
    return entry.template.render([text, timezone, JSON.stringify(rangeOf(engine.blockOfIPv6(ip.words, range), 6)), security]);
  }

  private templateOf(
    engine: LookupEngine,
    ip: ParsedIp,
    range: number,
    version: 4 | 6,
    level: FieldLevel,
    now: Date,
  ): RangeTemplate | null {
    // Ranges of both families in one map: IPv6 ranges on the negative side, the level in the low bit.
    const id = (version === 4 ? range : -1 - range) * 2 + (level === 'full' ? 1 : 0);
    let entry = this.templates.get(id);
    if (entry === undefined) {
      if (!this.seenOnce.has(id)) {
        if (this.seenOnce.size >= SEEN_ONCE_LIMIT) this.seenOnce.clear();
        this.seenOnce.add(id);
        return null;
      }
      this.seenOnce.delete(id);
      const answer = engine.answerOf(ip);
      entry = null;
      if (answer.status === 'found') {
        const record = ipRecord(answer, level, now) as {
          timezone: { id: string | null };
          network: { connection_type: ConnectionType | null };
        };
        const zone = record.timezone.id;
        const isHosting = isHostingOf(record.network.connection_type);
        entry = { template: JsonTemplate.compile(record, holesOf(level, version)), zone, isHosting };
      }
      if (this.templates.size >= TEMPLATE_LIMIT) this.templates.clear();
      this.templates.set(id, entry);
    }
    return entry;
  }

  private timezoneJson(zone: string | null, ms: number): string {
    const second = Math.floor(ms / 1000);
    let clock = this.clocks.get(zone);
    if (clock === undefined || clock.second !== second) {
      clock = { second, json: JSON.stringify(timezoneFull(zone, ms)) };
      this.clocks.set(zone, clock);
    }
    return clock.json;
  }

  private securityJson(isHosting: boolean | null, threat: ThreatFacts | UnknownThreatFacts): string {
    return threat === NO_THREAT_FACTS
      ? this.quietSecurity[isHosting === null ? 2 : isHosting ? 1 : 0]
      : JSON.stringify(securityRecord(NO_SECURITY_FACTS, isHosting, threat));
  }
}
