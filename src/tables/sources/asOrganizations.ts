/**
 * Reader of the CAIDA AS Organizations dataset in its JSON Lines form
 * (`https://publicdata.caida.org/datasets/as-organizations/YYYYMMDD.as-org2info.jsonl.gz`): one
 * object a line, either an Organization (`organizationId`, `name`, `country`, `changed`, `source`,
 * `type`) or an ASN (`asn` as a string, `name`, `organizationId`, `opaqueId`, `changed`, `source`,
 * `type`); `changed` and `opaqueId` are absent from some rows (JPNIC organisations). CAIDA's README:
 * "each AS entry containing a reference to one of the organization entries".
 *
 * Rules: every line is one JSON object of a known `type` (another type is refused); the keys it
 * names are checked (strings of their form; keys CAIDA may add later are ignored); no blank lines;
 * an organisation or an AS number defined twice is refused (which one would be meant?); an ASN row
 * naming an organisation no Organization row defines is refused, as the other readers of the
 * dataset do (the file is inferred as one self-contained mapping). Lines are bounded
 * (AS_ORG_MAX_LINE_LENGTH). Names are kept as published: some carry Latin-1 text decoded as UTF-8
 * twice ("Ã©"), which is not repaired here.
 */
import path from 'node:path';
import { SourceFormatError, type NumberedLine } from './textLines.js';

export interface AsOrganization {
  asn: number;
  /** the registered AS name, e.g. TE-AS */
  asName: string | null;
  organizationId: string;
  organization: string | null;
  country: string | null;
  /** the registry whose WHOIS holds the AS: ARIN, RIPE, APNIC, LACNIC, AFRINIC, JPNIC, KRNIC */
  source: string;
}

export interface AsOrganizations {
  /** YYYY-MM-DD from the file name: the day of the WHOIS dumps the mapping was inferred from */
  date: string;
  byAsn: Map<number, AsOrganization>;
  /** Organization rows read */
  organizations: number;
}

/** The longest line read; real rows are a few hundred characters. Pass it to linesOf too. */
export const AS_ORG_MAX_LINE_LENGTH = 8 * 1024;

const FILE_NAME = /^(\d{4})(\d{2})(\d{2})\.as-org2info\.jsonl(?:\.gz)?$/;
const LINKED_FILE = /href="(\d{8})\.as-org2info\.jsonl\.gz"/g;
const AS_NUMBER = /^[1-9]\d{0,9}$/;
const CHANGED = /^\d{8}$/;
const COUNTRY = /^[A-Z]{2}$/;
const SOURCE = /^[A-Z]{2,16}$/;
const MAX_ASN = 0xffffffff;
/** A directory index is a few hundred lines; a page far larger is not the index. */
const MAX_INDEX_LENGTH = 4 * 1024 * 1024;

interface OrganizationRow {
  name: string | null;
  country: string | null;
}

interface AsnRow {
  asName: string | null;
  organizationId: string;
  source: string;
  line: number;
}

/** Reads a `YYYYMMDD.as-org2info.jsonl(.gz)` from its lines; `file` (its name decides the date) names errors. */
export async function readAsOrg2Info(lines: AsyncIterable<NumberedLine>, file: string): Promise<AsOrganizations> {
  const date = dateOfFileName(path.basename(file));
  if (date === null) throw new SourceFormatError(file, 0, 'the file name is not YYYYMMDD.as-org2info.jsonl(.gz)');
  const organizations = new Map<string, OrganizationRow>();
  const asns = new Map<number, AsnRow>();
  let lineNo = 0;
  const fail = (message: string): never => {
    throw new SourceFormatError(file, lineNo, message);
  };
  try {
    for await (const { text, line } of lines) {
      lineNo = line;
      if (text.length > AS_ORG_MAX_LINE_LENGTH) fail(`line longer than ${AS_ORG_MAX_LINE_LENGTH} characters`);
      if (text.length === 0) fail('blank line');
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch {
        fail('not JSON');
      }
      if (typeof row !== 'object' || row === null || Array.isArray(row)) fail('not a JSON object');
      const fields = row as Record<string, unknown>;
      /** The string at `key` ("" and an absent optional key give null), checked against `form`. */
      const stringField = (key: string, form: RegExp | null, optional: boolean): string | null => {
        const value = fields[key];
        if (value === undefined && optional) return null;
        if (typeof value !== 'string') return fail(`"${key}" is ${value === undefined ? 'missing' : 'not a string'}`);
        if (value.length === 0) return null;
        if (form !== null && !form.test(value)) fail(`bad "${key}" ${JSON.stringify(value)}`);
        return value;
      };
      const required = (key: string, form: RegExp | null = null): string => stringField(key, form, false) ?? fail(`"${key}" is empty`);
      stringField('changed', CHANGED, true);
      if (fields.type === 'Organization') {
        const organizationId = required('organizationId');
        if (organizations.has(organizationId)) fail(`organization ${organizationId} defined twice`);
        const name = stringField('name', null, true);
        const country = stringField('country', COUNTRY, false);
        required('source', SOURCE);
        organizations.set(organizationId, { name, country });
      } else if (fields.type === 'ASN') {
        const asnText = required('asn');
        const asn = AS_NUMBER.test(asnText) ? Number(asnText) : NaN;
        if (!(asn <= MAX_ASN)) fail(`bad AS number ${JSON.stringify(asnText)}`);
        if (asns.has(asn)) fail(`AS${asn} listed twice`);
        const asName = stringField('name', null, true);
        const organizationId = required('organizationId');
        const source = required('source', SOURCE);
        stringField('opaqueId', null, true);
        asns.set(asn, { asName, organizationId, source, line });
      } else {
        fail(`unknown type ${JSON.stringify(fields.type)}`);
      }
    }
  } catch (error) {
    if (error instanceof SourceFormatError) throw error;
    throw new SourceFormatError(file, lineNo + 1, `unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (organizations.size === 0 || asns.size === 0) throw new SourceFormatError(file, lineNo, 'no Organization or no ASN rows');
  const byAsn = new Map<number, AsOrganization>();
  for (const [asn, row] of asns) {
    const organization = organizations.get(row.organizationId);
    if (organization === undefined) {
      throw new SourceFormatError(file, row.line, `AS${asn} names organization ${row.organizationId}, which no Organization row defines`);
    }
    byAsn.set(asn, {
      asn,
      asName: row.asName,
      organizationId: row.organizationId,
      organization: organization.name,
      country: organization.country,
      source: row.source,
    });
  }
  return { date, byAsn, organizations: organizations.size };
}

/** YYYY-MM-DD of a `YYYYMMDD.as-org2info.jsonl(.gz)` name, null for any other name or an impossible date. */
function dateOfFileName(name: string): string | null {
  const m = FILE_NAME.exec(name);
  if (m === null) return null;
  const [, year, month, day] = m;
  const time = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (time.getUTCFullYear() !== Number(year) || time.getUTCMonth() !== Number(month) - 1 || time.getUTCDate() !== Number(day)) return null;
  return `${year}-${month}-${day}`;
}

/**
 * The newest `YYYYMMDD.as-org2info.jsonl.gz` the directory index HTML links to (the Apache listing
 * of https://publicdata.caida.org/datasets/as-organizations/, whose link texts are cut at 23
 * characters: the href is read, not the text). Throws SourceFormatError when there is none.
 */
export function newestAsOrgFile(indexHtml: string, file: string): string {
  if (indexHtml.length > MAX_INDEX_LENGTH) throw new SourceFormatError(file, 0, `more than ${MAX_INDEX_LENGTH} characters: not the index`);
  let newest: string | null = null;
  for (const [, stamp] of indexHtml.matchAll(LINKED_FILE)) {
    const name = `${stamp}.as-org2info.jsonl.gz`;
    if (dateOfFileName(name) !== null && (newest === null || name > newest)) newest = name;
  }
  if (newest === null) throw new SourceFormatError(file, 0, 'links to no YYYYMMDD.as-org2info.jsonl.gz');
  return newest;
}
