/**
 * Reader of the IEEE IAB registry in its text listing (`iab.txt`, as IEEE published it and Debian's
 * ieee-data ships it; our copy and its origin are in data/registry). The IAB (Individual Address
 * Block) registry assigned 36-bit blocks under the IEEE's MA-L blocks 00-50-C2 and 40-D8-55 and
 * closed to new assignments in 2014, so a dated snapshot is the whole registry.
 *
 * The layout, checked line by line (a line that does not fit stops the build with file and line):
 * three header lines and an empty line, then records separated by one empty line. A record is
 *
 *     00-50-C2   (hex)        <organisation>
 *     7D5000-7D5FFF   (base 16)   <organisation, the same>
 *     <60 spaces><street>
 *     <60 spaces><city, state and postal code>
 *     <60 spaces><ISO 3166-1 alpha-2 country code>
 *
 * where each of the last three lines may be blank, or of just the first two lines when the
 * organisation is `Private` (the assignee asked not to be listed). Lines end in CRLF or LF.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface IabBlock {
  /** the block's 9 hex digits (upper case): 6 of the parent MA-L, 3 of the block */
  prefix: string;
  /** the assignee; null for a private registration */
  company: string | null;
  /** street and city lines joined with ", " (runs of spaces as one), null when both are blank */
  address: string | null;
  country_code: string | null;
}

/** The MA-L blocks of the IEEE Registration Authority that the IAB registry split into 36-bit blocks. */
export const IAB_PARENTS = ['0050C2', '40D855'];

const HEADER = [/^OUI\s+Organization\s*$/, /^IAB Range\s+Organization\s*$/, /^\s+Address\s*$/, /^$/];
const PARENT_LINE = /^([0-9A-F]{2})-([0-9A-F]{2})-([0-9A-F]{2}) +\(hex\) +(\S.*?) *$/;
const RANGE_LINE = /^([0-9A-F]{3})000-([0-9A-F]{3})FFF +\(base 16\) +(\S.*?) *$/;
const ADDRESS_INDENT = ' '.repeat(60);
export const PRIVATE_NAME = 'Private';

export function readIabRegistry(text: string, file: string): IabBlock[] {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines[lines.length - 1] === '') lines.pop();
  const fail = (index: number, problem: string): never => {
    throw new Error(`${file}:${index + 1}: ${problem}`);
  };
  HEADER.forEach((pattern, i) => {
    if (!pattern.test(lines[i] ?? '')) fail(i, 'not the header of the IEEE IAB listing');
  });
  const blocks: IabBlock[] = [];
  const seen = new Set<string>();
  let i = HEADER.length;
  while (i < lines.length) {
    const parent = PARENT_LINE.exec(lines[i]) ?? fail(i, 'expected "XX-XX-XX (hex) organisation"');
    const oui = parent[1] + parent[2] + parent[3];
    if (!IAB_PARENTS.includes(oui)) fail(i, `${oui} is not one of the IAB parent blocks ${IAB_PARENTS.join(', ')}`);
    const range = RANGE_LINE.exec(lines[i + 1] ?? '') ?? fail(i + 1, 'expected "XXX000-XXXFFF (base 16) organisation"');
    if (range[1] !== range[2]) fail(i + 1, 'the range is not one 36-bit block');
    if (range[3] !== parent[4]) fail(i + 1, 'the organisation differs from the line above');
    const prefix = oui + range[1];
    if (seen.has(prefix)) fail(i, `block ${prefix} appears twice`);
    seen.add(prefix);
    const organisation = parent[4];
    const next = i + 2;
    if (organisation === PRIVATE_NAME && (lines[next] ?? '') === '') {
      blocks.push({ prefix, company: null, address: null, country_code: null });
      i = next + 1;
      continue;
    }
    const detail = [next, next + 1, next + 2].map((at) => {
      const line = lines[at];
      if (line === undefined || line === '') fail(at, 'expected the three address lines of the record (street, city, country)');
      if (line.trim() !== '' && !line.startsWith(ADDRESS_INDENT)) fail(at, 'an address line must start at column 61');
      return line.trim().replace(/\s+/g, ' ');
    });
    const [street, city, country] = detail;
    if (country !== '' && !/^[A-Z]{2}$/.test(country)) fail(next + 2, `country "${country}" is not a two-letter code`);
    if ((lines[next + 3] ?? '') !== '') fail(next + 3, 'expected an empty line after the record');
    const addressLines = [street, city].filter((part) => part !== '');
    blocks.push({
      prefix,
      company: organisation === PRIVATE_NAME ? null : organisation,
      address: addressLines.length > 0 ? addressLines.join(', ') : null,
      country_code: country === '' ? null : country,
    });
    i = next + 4;
  }
  if (blocks.length === 0) throw new Error(`${file}: no IAB record`);
  return blocks;
}

/** data/registry/iab-source.json: where our copy of the listing comes from, its date and hashes. */
export interface IabSource {
  file: string;
  sha256: string;
  csv_file: string;
  csv_sha256: string;
  origin: string;
  version: string;
  /** the snapshot's date (ISO 8601) */
  date: string;
}

/** Reads the listing of `dir` after checking it is the file its iab-source.json describes. */
export function loadIabRegistry(dir: string): { source: IabSource; blocks: IabBlock[] } {
  const sourceFile = path.join(dir, 'iab-source.json');
  const source = JSON.parse(fs.readFileSync(sourceFile, 'utf8')) as IabSource;
  for (const key of ['file', 'sha256', 'csv_file', 'csv_sha256', 'origin', 'version', 'date'] as const) {
    if (typeof source[key] !== 'string' || source[key] === '') throw new Error(`${sourceFile}: ${key} is not a non-empty string`);
  }
  if (Number.isNaN(Date.parse(source.date))) throw new Error(`${sourceFile}: date ${source.date} is not a date`);
  const file = path.join(dir, source.file);
  const bytes = fs.readFileSync(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== source.sha256) throw new Error(`${file}: sha256 ${sha256} is not the ${source.sha256} of ${sourceFile}`);
  return { source, blocks: readIabRegistry(new TextDecoder('utf-8', { fatal: true }).decode(bytes), file) };
}
