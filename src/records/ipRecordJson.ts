/**
 * The IP record (SPEC 2.2) as JSON text, for the single-lookup hot path: the same text as
 * `JSON.stringify(ipRecord(answer, level, now, feeds))`, written by the WASM engine straight from
 * the tables (src/engine/recordJson.ts) without an answer object.
 *
 * What the engine writes comes from the object path: the record's JSON split at its values (made
 * here from ipRecord itself), and per country, connection type, time zone and is_hosting the
 * fragments ipRecord would give. The engine puts the table's values in between.
 *
 * Reserved and not-found answers, and addresses a VPN feed lists (which changes the connection
 * type the engine writes), take the object path. The other feed facts are put in by text: the
 * hostname and RPKI state in their places in the network block, and the security block (Tor and
 * proxy verdicts, threat facts) and the abuse mailbox appended to the engine's text, which then
 * stops where the security block starts; so are the blacklist's threat facts (a listed address,
 * or a blacklist that cannot be read).
 */
import type { ParsedIp } from '../address/ipAddress.js';
import { reservedIPv4, reservedIPv6 } from '../address/reservedRange.js';
import { NO_THREAT_FACTS, type ThreatFacts, type UnknownThreatFacts } from '../blacklist/threatFacts.js';
import type { IpAnswer } from '../engine/answers.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import type { IpJsonShape } from '../engine/recordJson.js';
import { ipHoles } from '../engine/recordJsonLayout.js';
import { withEnding } from '../engine/recordText.js';
import { connectionTypes } from '../tables/format/ipTable.js';
import type { CountryFacts } from '../tables/format/tableMeta.js';
import { JsonTemplate } from './jsonTemplate.js';
import {
  ipRecord,
  NO_SECURITY_FACTS,
  securityRecord,
  timezoneFull,
  usageOf,
  type FieldLevel,
  type IpRecordFeeds,
  type SecurityFacts,
  type IpRecordFull,
} from './ipRecord.js';
import { TWO_DIGITS } from './zoneClock.js';

/** A found answer with every part present, for the object path to show where the values go. */
function foundAnswer(version: 4 | 6, country: CountryFacts | null): IpAnswer {
  return {
    ip: '',
    version,
    status: 'found',
    reserved: null,
    location: {
      country_code: country?.code ?? null,
      region: null,
      city: null,
      district: null,
      postal_code: null,
      latitude: null,
      longitude: null,
      accuracy_radius_km: null,
      timezone: null,
    },
    country,
    network: {
      asn: null,
      organization: null,
      domain: null,
      connection_type: null,
      asn_name: null,
      isp: null,
      org_domain: null,
      holding: null,
      holding_domain: null,
      datacenter_address: null,
      datacenter_country: null,
    },
    block: { start: '', end: '', size: version === 4 ? 1 : null, prefix: version === 4 ? null : 1 },
    range: 0,
  };
}

/** The location's JSON around the datacenter address the engine puts in after is_eu: before its value, and after it up to the location's end. */
function addressParts(): [string, string] {
  const answer = foundAnswer(4, null);
  answer.location!.country_code = 'ZZ';
  answer.network!.datacenter_address = '';
  answer.network!.datacenter_country = 'ZZ';
  const { location } = ipRecord(answer, 'full', new Date(0)) as IpRecordFull;
  const [, before, after] = JsonTemplate.compile(location, ['is_eu', 'address']).parts;
  // the location's closing brace is the template's
  return [before, after.slice(0, -1)];
}

const templateOf = (version: 4 | 6, level: FieldLevel) =>
  JsonTemplate.compile(ipRecord(foundAnswer(version, null), level, new Date(0)), ipHoles(level, version)).parts;

const SHAPE: IpJsonShape = {
  templates: {
    4: { basic: templateOf(4, 'basic'), full: templateOf(4, 'full') },
    6: { basic: templateOf(6, 'basic'), full: templateOf(6, 'full') },
  },
  country(facts) {
    const record = ipRecord(foundAnswer(4, facts), 'full', new Date(0)) as IpRecordFull;
    const { location } = record;
    const texts = {
      continent: JSON.stringify(location.continent),
      continentCode: JSON.stringify(location.continent_code),
      country: JSON.stringify(location.country),
      isEu: JSON.stringify(location.is_eu),
      countryInfo: JSON.stringify(record.country_info),
    };
    // a value JSON cannot show (is_eu missing from the facts) drops its key: the object path answers
    return Object.values(texts).every((text) => typeof text === 'string') ? texts : null;
  },
  address: addressParts(),
  connectionTypes: connectionTypes.map((type) => JSON.stringify(type)),
  usages: connectionTypes.map((type) => JSON.stringify(usageOf(type))),
  quietSecurity: [false, true, null].map((hosting) => JSON.stringify(securityRecord(NO_SECURITY_FACTS, hosting, NO_THREAT_FACTS))) as [
    string,
    string,
    string,
  ],
  clock(zone, ms) {
    const timezone = timezoneFull(zone, ms);
    const text = JSON.stringify(timezone);
    if (timezone.current_time === null || timezone.utc_offset === null) return [text];
    // current_time ends in the seconds and the offset: the slot keeps what lies around the seconds
    const tail = `${timezone.utc_offset}"}`;
    const head = text.slice(0, text.length - tail.length - 2);
    const seconds = TWO_DIGITS[Math.floor((ms - Math.floor(ms / 60000) * 60000) / 1000)];
    return text.endsWith(seconds + tail) ? [head, tail] : null;
  },
};

/** The found record's JSON without the security block and the rest (the template's last part). */
const AFTER_SECURITY = { 4: SHAPE.templates[4].full.at(-1)!, 6: SHAPE.templates[6].full.at(-1)! };

export class IpRecordRenderer {
  /**
   * The record of a parsed address as JSON text: the engine's when it can write it, else the object
   * path's. `ending` (ASCII, such as a metered answer's meta) takes the place of its closing brace.
   */
  render(engine: LookupEngine, ip: ParsedIp, level: FieldLevel, now: Date, feeds?: IpRecordFeeds, ending = ''): string {
    if (engineWrites(ip, feeds)) {
      const writer = engine.ipJsonWriter(SHAPE);
      const threat = feeds?.threat ?? NO_THREAT_FACTS;
      // the security block and what follows are written here when a fact of theirs is not the quiet default
      const quiet = quietSecurity(feeds);
      const whole = quiet || level === 'basic';
      let json = writer?.write(ip, level, now.getTime(), quiet, whole ? ending : '') ?? null;
      if (json !== null) {
        if (level === 'full') json = withNetworkFacts(json, feeds, ip.v4 >= 0);
        if (whole) return json;
        const security = securityJson(feeds?.security ?? NO_SECURITY_FACTS, writer!.hosting, threat);
        return json + security + withEnding(afterSecurity(ip.v4 >= 0 ? 4 : 6, feeds?.abuse ?? null), ending);
      }
    }
    return withEnding(JSON.stringify(ipRecord(engine.answerOf(ip), level, now, feeds)), ending);
  }

  /**
   * The same record's UTF-8 bytes, one per character of a Latin-1 string, for a body made of such
   * bytes (a batch's, src/http/request/respond.ts Utf8Body); null unless the engine writes the record whole
   * (no threat or feed facts at the full level).
   */
  renderUtf8(engine: LookupEngine, ip: ParsedIp, level: FieldLevel, now: Date, feeds?: IpRecordFeeds, ending = ''): string | null {
    if (!engineWrites(ip, feeds) || (level !== 'basic' && feeds !== undefined && hasFacts(feeds))) return null;
    return engine.ipJsonWriter(SHAPE)?.writeUtf8(ip, level, now.getTime(), ending) ?? null;
  }
}

/**
 * The security block's JSON. Without threat facts it depends on the verdict and is_hosting only,
 * and the feed set shares one verdict object per listing: kept per verdict.
 */
function securityJson(security: SecurityFacts, hosting: boolean | null, threat: ThreatFacts | UnknownThreatFacts): string {
  if (threat !== NO_THREAT_FACTS) return JSON.stringify(securityRecord(security, hosting, threat));
  let texts = QUIET_SECURITY.get(security);
  if (texts === undefined) QUIET_SECURITY.set(security, (texts = new Map()));
  let text = texts.get(hosting);
  if (text === undefined) texts.set(hosting, (text = JSON.stringify(securityRecord(security, hosting, NO_THREAT_FACTS))));
  return text;
}

const QUIET_SECURITY = new WeakMap<SecurityFacts, Map<boolean | null, string>>();

/** No threat facts, security verdict or abuse contact: the engine writes the security block and what follows. */
function quietSecurity(feeds: IpRecordFeeds | undefined): boolean {
  return (feeds?.threat ?? NO_THREAT_FACTS) === NO_THREAT_FACTS && !feeds?.security && !feeds?.abuse;
}

/** A fact the engine writes as null or quiet, which the host puts in its place. */
function hasFacts(feeds: IpRecordFeeds): boolean {
  return !quietSecurity(feeds) || !!feeds.rpki || !!feeds.hostname;
}

/**
 * The network's hostname and (IPv4) RPKI state, which the engine writes as null: put in their places. A
 * key pattern such as `,"rpki":null,"speed_mbps":` cannot occur inside a JSON string of the record
 * (its quotes would be escaped there), so its first occurrence is the key's.
 */
function withNetworkFacts(json: string, feeds: IpRecordFeeds | undefined, ipv4: boolean): string {
  let out = json;
  if (feeds?.hostname) out = out.replace(HOSTNAME_NULL, `,"hostname":${JSON.stringify(feeds.hostname)},"range":`);
  // SPEC 2.2: rpki is for IPv4 only
  if (feeds?.rpki && ipv4) out = out.replace(RPKI_NULL, `,"rpki":${JSON.stringify(feeds.rpki)},"speed_mbps":`);
  return out;
}

const HOSTNAME_NULL = ',"hostname":null,"range":';
const RPKI_NULL = ',"rpki":null,"speed_mbps":';

/** The found record's JSON after the security block, with the abuse mailbox in its place. */
function afterSecurity(version: 4 | 6, abuse: string | null): string {
  const tail = AFTER_SECURITY[version];
  return abuse === null ? tail : tail.replace('"email":null', `"email":${JSON.stringify(abuse)}`);
}

/**
 * Whether the engine may write the record: a public address that no VPN feed lists (a VPN range
 * changes the connection type, usage and is_hosting, which the engine writes from the tables).
 */
function engineWrites(ip: ParsedIp, feeds: IpRecordFeeds | undefined): boolean {
  return !feeds?.security?.is_vpn && !(ip.v4 >= 0 ? reservedIPv4(ip.v4) : reservedIPv6(ip.words));
}
