/**
 * Reader of the IEEE Registration Authority's public listings of MAC address blocks as CSV, one
 * file a registry on standards-oui.ieee.org: MA-L (`oui/oui.csv`), MA-M (`oui28/mam.csv`), MA-S
 * (`oui36/oui36.csv`) and the IAB registry, closed to new assignments in 2014 but still published
 * and still edited (`iab/iab.csv`). It also turns the rows into the two inputs of the MAC table
 * builder: oui-data's index.json shape (registryIndexOf) and the IAB blocks (iabBlocksOf).
 *
 * The format, as the files of 2026-06-06 have it (test/fixtures/publishers/ieee-README.md): UTF-8
 * without BOM (linesOf's decoder would drop one), CRLF line ends, one row a line (no field holds a
 * line break), the header `Registry,Assignment,Organization Name,Organization Address`, RFC 4180
 * quoting (a field holding a comma or a quote is quoted, quotes doubled), rows in no order.
 * Organization Address is IEEE's street, city, state, country code and postal code joined by single
 * spaces, with a space at the end: `1 Infinite Loop Cupertino CA US 95014 `. Assignees who asked not
 * to be listed are named `Private`, mostly with an empty address.
 *
 * Rules (a row that breaks one throws SourceFormatError with file and line): the header exactly as
 * above; four fields; the Registry column the file's registry; the Assignment upper-case hex of the
 * registry's width (6, 7, 9, 9), an IAB block under one of the IAB parents; no assignment twice,
 * except the two IEEE itself lists more than once (IEEE_DUPLICATE_ASSIGNMENTS); a non-empty
 * organization; no control character but tab; no line longer than IEEE_REGISTRY_MAX_LINE; and at
 * least the registry's minimum number of rows (IEEE_REGISTRY_FILES), since a truncated or empty
 * download is the likeliest fault.
 */
import { countryCodeOfName } from './countries.js';
import { csvLineFields } from './csv.js';
import { IAB_PARENTS, PRIVATE_NAME, type IabBlock } from './iabRegistry.js';
import { SourceFormatError, type LineBounds, type NumberedLine } from './textLines.js';

export type IeeeRegistry = 'MA-L' | 'MA-M' | 'MA-S' | 'IAB';

export interface IeeeAssignment {
  registry: IeeeRegistry;
  /** upper-case hex: 6 digits (MA-L), 7 (MA-M) or 9 (MA-S, IAB) */
  assignment: string;
  /** as published, with runs of spaces and tabs as one space, trimmed, HTML character references decoded */
  organization: string;
  /** as published, one line (its spacing marks the parts, see organizationAddressParts); null when blank */
  address: string | null;
}

export interface IeeeRegistryFile {
  url: string;
  /** hex digits of an assignment */
  digits: number;
  /**
   * The fewest rows a whole listing has: about 95% of the rows of 2026-06-06 (MA-L 39,493, MA-M
   * 6,425, MA-S 7,033, IAB 4,575). The registries only grow, and the IAB registry is closed.
   */
  minimumRows: number;
}

export const IEEE_REGISTRY_FILES: Readonly<Record<IeeeRegistry, IeeeRegistryFile>> = {
  'MA-L': { url: 'https://standards-oui.ieee.org/oui/oui.csv', digits: 6, minimumRows: 37_500 },
  'MA-M': { url: 'https://standards-oui.ieee.org/oui28/mam.csv', digits: 7, minimumRows: 6_100 },
  'MA-S': { url: 'https://standards-oui.ieee.org/oui36/oui36.csv', digits: 9, minimumRows: 6_700 },
  IAB: { url: 'https://standards-oui.ieee.org/iab/iab.csv', digits: 9, minimumRows: 4_500 },
};

export const IEEE_REGISTRY_HEADER = 'Registry,Assignment,Organization Name,Organization Address';

/** The longest line accepted: the longest published is 339 characters (MA-M, 2026-06-06). */
const IEEE_REGISTRY_MAX_LINE = 1024;

/** Bounds to read a listing with (linesOfFile): the largest, MA-L, is 3.8 MB. */
export const IEEE_REGISTRY_LINE_BOUNDS: LineBounds = { maxLineLength: IEEE_REGISTRY_MAX_LINE, maxBytes: 64 * 1024 ** 2 };

/**
 * Assignments IEEE lists more than once, each row a different assignee: 08-00-30 (Network Research
 * Corporation, Royal Melbourne Inst of Tech, CERN) and 00-01-C8 (Thomas Conrad Corp., Conrad Corp.),
 * in every listing from 2021 (Debian's ieee-data) to 2026. Any other repeat is refused.
 */
export const IEEE_DUPLICATE_ASSIGNMENTS: Readonly<Record<IeeeRegistry, readonly string[]>> = {
  'MA-L': ['0001C8', '080030'],
  'MA-M': [],
  'MA-S': [],
  IAB: [],
};

export interface IeeeReadOptions {
  /** default: the registry's minimumRows; tests of small excerpts pass their own */
  minimumRows?: number;
}

// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes HTML character references: IEEE's records hold some (`digitech GmbH &amp; Co. KG`,
 * `Bois D&#39;Arcy`), as Wireshark's make-manuf also finds. A reference to a control character,
 * surrogate or no character at all is refused.
 */
function decodeReferences(text: string): string {
  return text.replace(REFERENCE, (reference, name: string | undefined, decimal: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return NAMED[name];
    const code = decimal !== undefined ? parseInt(decimal, 10) : parseInt(hex!, 16);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code < 0xe000) || code > 0x10ffff) {
      throw new Error(`${reference} is not a character`);
    }
    return String.fromCodePoint(code);
  });
}

/** Spaces and tabs as oui-data has them: runs as one space, none at the ends. */
const spaced = (text: string): string => text.replace(/[ \t]+/g, ' ').trim();

export async function readIeeeRegistryCsv(
  lines: AsyncIterable<NumberedLine>,
  expected: IeeeRegistry,
  file: string,
  options: IeeeReadOptions = {},
): Promise<IeeeAssignment[]> {
  const { digits, minimumRows } = IEEE_REGISTRY_FILES[expected];
  const fewest = options.minimumRows ?? minimumRows;
  const hex = new RegExp(`^[0-9A-F]{${digits}}$`);
  const repeatable = new Set(IEEE_DUPLICATE_ASSIGNMENTS[expected]);
  const seen = new Set<string>();
  const assignments: IeeeAssignment[] = [];
  let header = false;
  for await (const { text, line } of lines) {
    const fail = (problem: string): never => {
      throw new SourceFormatError(file, line, problem);
    };
    if (text.length > IEEE_REGISTRY_MAX_LINE) fail(`line longer than ${IEEE_REGISTRY_MAX_LINE} characters`);
    if (!header) {
      if (text !== IEEE_REGISTRY_HEADER) fail(`expected the header "${IEEE_REGISTRY_HEADER}"`);
      header = true;
      continue;
    }
    if (text === '') fail('an empty line');
    if (CONTROL.test(text)) fail('a control character (only tab is taken)');
    const fields = csvLineFields(text);
    if (typeof fields === 'string') return fail(fields);
    if (fields.length !== 4) fail(`${fields.length} fields, expected 4 (${IEEE_REGISTRY_HEADER})`);
    const [registry, assignment, name, address] = fields;
    if (registry !== expected) fail(`registry "${registry}" in the ${expected} listing`);
    if (!hex.test(assignment)) fail(`assignment "${assignment}" is not ${digits} upper-case hex digits`);
    if (expected === 'IAB' && !IAB_PARENTS.includes(assignment.slice(0, 6))) {
      fail(`IAB block ${assignment} is not under one of the IAB parents ${IAB_PARENTS.join(', ')}`);
    }
    if (seen.has(assignment) && !repeatable.has(assignment)) fail(`assignment ${assignment} appears twice`);
    seen.add(assignment);
    let organization: string;
    try {
      organization = spaced(decodeReferences(name));
      decodeReferences(address); // so that organizationAddressParts cannot fail later
    } catch (error) {
      return fail((error as Error).message);
    }
    if (organization === '') fail(`assignment ${assignment} names no organization`);
    assignments.push({ registry: expected, assignment, organization, address: address.trim() === '' ? null : address });
  }
  if (!header) throw new SourceFormatError(file, 1, `empty, expected the header "${IEEE_REGISTRY_HEADER}"`);
  if (assignments.length < fewest) {
    throw new SourceFormatError(
      file,
      0,
      `${assignments.length} rows, fewer than the ${fewest} of a whole ${expected} listing (a truncated download?)`,
    );
  }
  return assignments;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const countries = new Map<string, { code: string; name: string } | null>();

/**
 * The country of a code as oui-data writes it from IEEE's text listing: the English (CLDR) name,
 * which the builder's countryCodeOfName reads back, and the code it reads back (a retired code
 * comes back as its successor's: YU as Serbia, RS, as in oui-data). Null for a pair that names no
 * country (a US state, letters of a postal code).
 */
export function countryOfCode(code: string): { code: string; name: string } | null {
  let country = countries.get(code);
  if (country === undefined) {
    const name = regionNames.of(code);
    const named = name === undefined || name === code ? null : countryCodeOfName(name);
    country = named === null ? null : { code: named, name: name! };
    countries.set(code, country);
  }
  return country;
}

/** Two capitals that start the text or follow a space, then one space: where a country code can be. */
const CODE_PLACE = /(?<![^ ])([A-Z]{2}) /g;

/**
 * The address and country code of an Organization Address. IEEE joins street, city, state,
 * country code and postal code with single spaces and ends with a space, so the country is a
 * two-letter code followed by one space and the postal code; it is taken as the last such code
 * that names a country. IEEE's text listings give the country a line of its own; against them this
 * misreads 3 of the 4,551 IAB addresses of Debian's 2022 snapshot (and reads the retired YU as RS,
 * as oui-data does), and 20 of the 52,948 MA-L, MA-M and MA-S assignments of 2026-06-06 against
 * oui-data. What one line cannot tell apart: an empty country after a US state
 * (`Sunnyvale CA  94089` reads as Canada), a postal code holding a country-like pair
 * (`KR GN 630-857` reads as Guinea), an empty state before a state-like postal code
 * (`Adelaide   AU SA 5000` reads as Saudi Arabia).
 *
 * The address is the rest with the code taken out, spaces as oui-data has them and character
 * references decoded (`1 Infinite Loop Cupertino CA 95014`); null when nothing is left.
 */
export function organizationAddressParts(published: string): { address: string | null; country_code: string | null } {
  const body = published.endsWith(' ') ? published.slice(0, -1) : published;
  let place: RegExpExecArray | null = null;
  for (const candidate of body.matchAll(CODE_PLACE)) {
    if (countryOfCode(candidate[1]) !== null) place = candidate;
  }
  const rest = place === null ? body : `${body.slice(0, place.index)} ${body.slice(place.index + 3)}`;
  const address = spaced(decodeReferences(rest));
  return { address: address === '' ? null : address, country_code: place === null ? null : countryOfCode(place[1])!.code };
}

/** The rows by assignment; of an assignment IEEE lists several times, the last row, as oui-data keeps. */
function lastRowOfEach(assignments: IeeeAssignment[]): Map<string, IeeeAssignment> {
  const rows = new Map<string, IeeeAssignment>();
  for (const row of assignments) {
    const earlier = rows.get(row.assignment);
    if (earlier && !IEEE_DUPLICATE_ASSIGNMENTS[row.registry].includes(row.assignment)) {
      throw new Error(`assignment ${row.assignment} appears twice (${earlier.registry} and ${row.registry})`);
    }
    rows.set(row.assignment, row);
  }
  return rows;
}

/**
 * The assignments in the shape of oui-data's index.json, which the MAC table builder reads:
 * assignment → "organization\naddress\ncountry name", the address and country lines left out when
 * there is none. The update passes MA-L, MA-M and MA-S here and the IAB blocks to iabBlocksOf.
 */
export function registryIndexOf(assignments: IeeeAssignment[]): Record<string, string> {
  const index: Record<string, string> = {};
  for (const [assignment, row] of lastRowOfEach(assignments)) {
    const { address, country_code } = row.address === null ? { address: null, country_code: null } : organizationAddressParts(row.address);
    index[assignment] = [row.organization, address, country_code === null ? null : regionNames.of(country_code)!]
      .filter((part) => part !== null)
      .join('\n');
  }
  return index;
}

/** The IAB listing's rows as the blocks readIabRegistry gives (a private registration without company). */
export function iabBlocksOf(assignments: IeeeAssignment[]): IabBlock[] {
  return [...lastRowOfEach(assignments).values()].map((row) => {
    if (row.registry !== 'IAB') throw new Error(`assignment ${row.assignment} is of ${row.registry}, not IAB`);
    const parts = row.address === null ? { address: null, country_code: null } : organizationAddressParts(row.address);
    return { prefix: row.assignment, company: row.organization === PRIVATE_NAME ? null : row.organization, ...parts };
  });
}
