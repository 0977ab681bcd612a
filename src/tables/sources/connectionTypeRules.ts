/**
 * Connection types estimated from an AS's registered organisation name, for the ASNs that
 * data/curated/asn-connection-types.csv does not list (a curated row always wins). Each rule names
 * one kind of holder by words that leave little doubt about its business ("Universidad",
 * "Hosting", "Ministry of Defence"); words that many kinds of holder use ("Telecom", "Net",
 * "Wireless", "Fiber", "Digital") type nothing. Names of small access providers ("Provedor de
 * Internet", "Broadband", "Fibra", rural "Telephone Cooperative") are residential: they sell to
 * homes first. The first matching rule wins, so the more specific kinds come first: the Navy
 * Federal Credit Union is a bank, a university hospital healthcare, a ministry of defence
 * military, a cable-TV company cable rather than media or satellite, and "Cable & Wireless" (a
 * telecom group) no cable operator. test/tables/connectionTypeRules.test.ts holds real names each
 * rule must and must not match.
 */
import type { ConnectionType } from '../format/ipTable.js';

export interface ConnectionTypeRule {
  /** short name for the build report */
  name: string;
  type: ConnectionType;
  pattern: RegExp;
}

/** A word's start and end, Unicode-aware (`\b` knows only ASCII letters). */
const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';

/** Whole words only, case-insensitive. */
function words(...alternatives: string[]): RegExp {
  return new RegExp(`${B}(?:${alternatives.join('|')})${E}`, 'iu');
}

export const connectionTypeRules: readonly ConnectionTypeRule[] = [
  { name: 'stock exchange', type: 'financial', pattern: words('stock exchange', 'b(?:ö|oe)rsen?', 'bolsa de valores') },
  {
    name: 'bank or insurer',
    type: 'financial',
    pattern: words(
      'bank',
      'banks',
      'banco',
      'banque',
      'banca',
      'banka',
      'bankas[iı]',
      'bancorp',
      'banking',
      'sparkasse',
      'credit union',
      'insurance',
      'assurances?',
      'versicherung(?:en)?',
      'securities',
    ),
  },
  {
    name: 'internet exchange',
    type: 'ixp',
    pattern: words('internet exchange(?: point)?', 'exchange point', 'ponto de troca de tr[aá]fego'),
  },
  {
    name: 'armed forces',
    type: 'military',
    pattern: words(
      'air force',
      'armed forces',
      '(?<!salvation )army',
      'navy',
      'naval',
      'marine corps',
      'bundeswehr',
      'department of defen[cs]e',
      'ministry of defen[cs]e',
      'defen[cs]e information',
      'ministerio de defensa',
      'minist[eè]re des arm[eé]es',
      'dod network information center',
    ),
  },
  {
    name: 'hospital',
    type: 'healthcare',
    pattern: words(
      'hospitals?',
      'hospital(?:ier|ar)',
      'h[oô]pita(?:l|ux)',
      'klinik(?:um|en)?',
      'universit(?:ä|ae|a)tsklinikum',
      'krankenhaus',
      'clinics?',
      'medical cent(?:er|re)s?',
      'health ?care',
      'health systems?',
      'health services',
      'health authority',
      'ospedale',
    ),
  },
  {
    name: 'university or school',
    type: 'education',
    pattern: words(
      'universit(?:y|ies|ät|aet|at|é|e|à|a|as|eit|eits|et|etet|atea|ate|ario|aria|aire)',
      'universidad(?:e)?',
      'üniversitesi',
      'universitesi',
      'uniwersytet',
      'univerzita',
      'univerza',
      'egyetem',
      'yliopisto',
      'hochschule',
      'fachhochschule',
      'colleges?',
      'coll[eè]ge',
      'schools?',
      'school district',
      'schule',
      'polytechnic',
      'politecnico',
      'polit[eé]cnica',
      'politehnica',
      'institute of technology',
      'instituto tecnol[oó]gico',
      'technische universit[aä]t',
      '[eé]cole',
      'lyc[eé]e',
      'education network',
      'board of education',
    ),
  },
  {
    name: 'research network or laboratory',
    type: 'research',
    pattern: words(
      'research (?:and|&) education network',
      'research network',
      'academic (?:and|&) research network',
      'national laborator(?:y|ies)',
      'academy of sciences?',
      'akademie der wissenschaften',
      'research cent(?:er|re)',
      'forschungszentrum',
      'recherche scientifique',
      'research institute',
      'research organi[sz]ation',
    ),
  },
  {
    name: 'government',
    type: 'government',
    pattern: words(
      'ministry',
      'ministerio',
      'minist[eè]re',
      'ministerium',
      'bundesministerium',
      'bundesamt',
      'government',
      'gobierno',
      'governo',
      'gouvernement',
      'regierung',
      'state of [a-z]+',
      'county of [a-z]+',
      'commonwealth of [a-z]+',
      'federal agency',
      'u\\.? ?s\\.? department of',
      'city council',
      'kommuner?',
      'kommun',
      'gemeente',
      'county council',
      'prefeitura',
      'ayuntamiento',
    ),
  },
  {
    name: 'cable operator',
    type: 'cable',
    pattern:
      /(?<![\p{L}\p{N}])(?:cable(?!\s*(?:&|and)\s*wireless)(?:vision| ?tv)?|kabel(?:-?tv)?|kablowa|cablevision|cable television)(?![\p{L}\p{N}])/iu,
  },
  { name: 'satellite', type: 'satellite', pattern: words('satellites?', 'sat[eé]lites?', 'satelital', 'vsat') },
  {
    name: 'hosting, data centre or cloud',
    type: 'hosting',
    pattern: words(
      '[a-z]*hosting',
      'hoster',
      'data ?cent(?:er|re)s?',
      'centro de datos',
      'veri merkezi',
      'sunucu',
      'web ?host',
      'host',
      'colocation',
      'co-location',
      'vps',
      'servers?',
      'dedicated servers?',
      '(?<!\\bst\\.? |\\bsaint )cloud',
      // brand compounds: HostPapa, ServerMania, Serverworks, PebbleHost, Eqservers, GigsGigsCloud
      '(?:host|server|cloud)[\\p{L}\\p{N}]+',
      '[\\p{L}\\p{N}]+(?:host|hosting|servers?|cloud)',
      'idc',
      'vpn',
    ),
  },
  {
    name: 'mobile operator',
    type: 'mobile',
    pattern: words('mobile', 'mobilfunk', 'm[oó]vil(?:es)?', 'm[oó]vel', 'cellular', 'mobile telesystems'),
  },
  {
    name: 'broadcaster',
    type: 'media',
    pattern: words('broadcasting', 'broadcaster', 'rundfunk', 'television', 'televisi[oó]n', 'televis[aã]o'),
  },
  { name: 'fixed wireless', type: 'fixed_wireless', pattern: words('wisp', 'wireless internet', 'fixed wireless') },
  {
    name: 'consumer access provider',
    type: 'residential',
    pattern: words(
      'provedor(?:a)?',
      'internet service provider',
      'broadband',
      'bredb(?:aa|[aå])nd',
      'banda larga',
      'fibra',
      'glasfaser',
      'ftth',
      '[sś]wiat[lł]owod(?:y|owe)?',
      'stadtnetz',
      'stadsn(?:ä|ae|a)t',
      'telephone (?:company|co\\.?|cooperative|coop|membership corporation|association)',
      '(?:rural|mutual|cooperative) telephone',
    ),
  },
  {
    // Brazil's thousands of small regional ISPs register as "… Telecom Ltda", "… Internet Eireli"
    name: 'Brazilian access provider',
    type: 'residential',
    pattern: new RegExp(
      `^(?=.*${B}(?:ltda|eireli)${E})(?=.*${B}(?:telecom|telecomunica[cç](?:[aã]o|[oõ]es)|internet|net|multim[ií]dia|comunica[cç](?:[aã]o|[oõ]es)|wi-?fi)${E})`,
      'iu',
    ),
  },
];

export interface AsConnectionType {
  type: ConnectionType | null;
  provenance: 'curated' | 'rule' | 'peeringdb' | 'none';
  /** the name of the rule that gave the type */
  rule: string | null;
}

/**
 * An AS's connection type: the curated one, else the first matching rule's, else the one its
 * operators' PeeringDB network types say (peeringDb.ts; where the operator turned PeeringDB on),
 * else unknown. The name rules come before PeeringDB: they name kinds PeeringDB has no word for
 * (a bank, a hospital, an army), and each later source only fills what the earlier leave unknown.
 */
export function connectionTypeOfAs(
  curated: ConnectionType | null | undefined,
  organization: string | null,
  peeringDb: ConnectionType | null = null,
): AsConnectionType {
  if (curated) return { type: curated, provenance: 'curated', rule: null };
  const rule = ruleOfOrganization(organization);
  if (rule) return { type: rule.type, provenance: 'rule', rule: rule.name };
  return peeringDb ? { type: peeringDb, provenance: 'peeringdb', rule: null } : { type: null, provenance: 'none', rule: null };
}

/** The first rule the organisation name matches, or null. */
export function ruleOfOrganization(organization: string | null): ConnectionTypeRule | null {
  if (organization === null) return null;
  for (const rule of connectionTypeRules) if (rule.pattern.test(organization)) return rule;
  return null;
}

/**
 * A registry handle rather than a name people write: capitals, digits and separators only, with a
 * hyphen (`TE-AS`, `NAL-AS`, `CSMNAP-ASN`, `DACOM-PUBNETPLUS`) or the bare AS number (`AS64011`).
 * Acronyms that are the organisation's name (`USDA`, `RENATER`, `UPMC`) are not handles.
 */
export function isRegistryHandle(organization: string): boolean {
  return /^AS\d+$/.test(organization) || (/^[A-Z0-9]+(?:[-_.][A-Z0-9]+)*$/.test(organization) && organization.includes('-'));
}
