/**
 * Reader of one RDAP answer about an IP address (`GET <base>ip/<address>`, RFC 9082 3.1.1): an
 * "ip network" object (RFC 9083 5.4) with `startAddress`, `endAddress`, `ipVersion` and `entities`,
 * from which the abuse mailbox is taken the way RDAP clients take it: the entity nearest the
 * network whose `roles` hold "abuse", its vCard (jCard, RFC 7095) `email`.
 *
 * Where the registries put it: ARIN nests the abuse contact inside the registrant organisation
 * (`entities[].entities[]`); RIPE NCC, APNIC (the irt), AFRINIC and LACNIC list it beside the
 * registrant, at the top. So entities are walked breadth first: the shallowest abuse entity wins,
 * the first in document order among equals; of its e-mail properties the first that is a plain
 * address (`isAbuseMailbox`, as for the dumps) is taken.
 *
 * Rules: the answer is bounded (RDAP_ANSWER_MAX_BYTES, UTF-8, JSON depth) and strict about what
 * is used: the object class, both addresses of the asked family with start not after end, and the
 * asked address inside them (an answer about another block is refused, not cached). Entities are
 * walked to RDAP_ENTITY_DEPTH levels and RDAP_MAX_ENTITIES objects; anything else in the answer
 * (remarks, events, links, notices) is not read. Errors are RdapAnswerError.
 */
import { parseIPv4, parseIPv6, ipv6Value, type ParsedIp } from '../address/ipAddress.js';
import { isAbuseMailbox } from '../feeds/abuseMailbox.js';
import { isObject, parseBoundedJson } from '../feeds/boundedJson.js';

/** ARIN's and RIPE's answers are a few to tens of KB; the largest seen carry long remarks. */
export const RDAP_ANSWER_MAX_BYTES = 1024 * 1024;
const RDAP_ENTITY_DEPTH = 4;
/** entities nest a few levels; vCards and remarks add three or four */
const RDAP_JSON_DEPTH = 32;
const RDAP_MAX_ENTITIES = 256;

export class RdapAnswerError extends Error {}

export interface RdapNetwork {
  family: 4 | 6;
  /** the network's first and last address (IPv4 in the low 32 bits) */
  start: bigint;
  end: bigint;
  /** the abuse mailbox, or null when the registry names none */
  abuseEmail: string | null;
}

function addressOf(value: unknown, family: 4 | 6, key: string): bigint {
  if (typeof value !== 'string') throw new RdapAnswerError(`"${key}" is not a string`);
  if (family === 4) {
    const v4 = parseIPv4(value);
    if (v4 < 0) throw new RdapAnswerError(`"${key}" is not an IPv4 address`);
    return BigInt(v4);
  }
  const words = new Uint32Array(4);
  if (!parseIPv6(value, words)) throw new RdapAnswerError(`"${key}" is not an IPv6 address`);
  return ipv6Value(words);
}

/** The first plain e-mail address of a jCard (`["vcard", [[name, params, type, value], ...]]`), or null. */
function emailOfVcard(vcard: unknown): string | null {
  if (!Array.isArray(vcard) || vcard[0] !== 'vcard' || !Array.isArray(vcard[1])) return null;
  for (const property of vcard[1] as unknown[]) {
    if (!Array.isArray(property) || property[0] !== 'email') continue;
    const value: unknown = property[3];
    if (typeof value === 'string' && isAbuseMailbox(value)) return value;
  }
  return null;
}

/** The mailbox of the shallowest entity with the "abuse" role (breadth first, bounded), or null. */
function abuseEmailOf(root: Record<string, unknown>): string | null {
  let level: unknown[] = Array.isArray(root.entities) ? root.entities : [];
  let seen = 0;
  for (let depth = 1; depth <= RDAP_ENTITY_DEPTH && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const entity of level) {
      if (++seen > RDAP_MAX_ENTITIES) return null;
      if (!isObject(entity)) continue;
      const roles = entity.roles;
      if (Array.isArray(roles) && roles.includes('abuse')) {
        const email = emailOfVcard(entity.vcardArray);
        if (email !== null) return email;
      }
      if (Array.isArray(entity.entities)) next.push(...(entity.entities as unknown[]));
    }
    level = next;
  }
  return null;
}

/** Reads `body` (the answer's bytes) as the RDAP network holding `ip`. Throws RdapAnswerError. */
export function readRdapNetwork(body: Uint8Array, ip: ParsedIp): RdapNetwork {
  if (body.byteLength > RDAP_ANSWER_MAX_BYTES) throw new RdapAnswerError(`${body.byteLength} bytes, more than ${RDAP_ANSWER_MAX_BYTES}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new RdapAnswerError('not UTF-8');
  }
  let root: unknown;
  try {
    root = parseBoundedJson(text, RDAP_JSON_DEPTH);
  } catch (error) {
    throw new RdapAnswerError((error as Error).message);
  }
  if (!isObject(root)) throw new RdapAnswerError('not a JSON object');
  if (root.objectClassName !== 'ip network') throw new RdapAnswerError('not an "ip network" object');
  const family = ip.v4 >= 0 ? 4 : 6;
  if (root.ipVersion !== undefined && root.ipVersion !== `v${family}`) throw new RdapAnswerError(`"ipVersion" is not "v${family}"`);
  const start = addressOf(root.startAddress, family, 'startAddress');
  const end = addressOf(root.endAddress, family, 'endAddress');
  if (start > end) throw new RdapAnswerError('"startAddress" is after "endAddress"');
  const asked = family === 4 ? BigInt(ip.v4) : ipv6Value(ip.words);
  if (asked < start || asked > end) throw new RdapAnswerError('the network does not hold the asked address');
  return { family, start, end, abuseEmail: abuseEmailOf(root) };
}
