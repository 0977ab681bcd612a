/**
 * Reader of data/curated/mac-group-addresses.csv (`first,last,name,protocol,assigned_by,reference,
 * source`): the MAC addresses and ranges a registry or standard gives a meaning of their own, group
 * addresses (IANA's and IEEE's multicast assignments, vendors' documented protocol addresses,
 * broadcast) and special-purpose unicast ones (VRRP, HSRP, documentation). The MAC record answers
 * them as `special` (docs/api.md "Records").
 *
 * Rules, each refused with the file and line: the exact header; `first` and `last` as six upper-case
 * hex byte pairs joined by hyphens, as the registries write them, first ≤ last; name, assigned_by,
 * reference and a source naming a URL on every row (protocol may be empty); no space around a value
 * and no control character; rows ordered by first, a range before the ranges inside it; ranges either
 * apart or one inside the other (the most specific answers), never the same twice. The file is ours
 * and small: it is read whole, after its size is checked against a bound, and a value spanning lines
 * is refused, so that every row is one line.
 */
import fs from 'node:fs';
import { CsvError, parseCsv } from './csv.js';
import { SourceFormatError } from './textLines.js';

export const MAC_GROUP_COLUMNS = ['first', 'last', 'name', 'protocol', 'assigned_by', 'reference', 'source'] as const;

/** Bounds of the file: far above its size (a few dozen rows), far below anything that hurts. */
const MAX_BYTES = 1 << 20;
const MAX_LINE = 4096;
const MAX_ROWS = 10_000;

export interface MacGroupAddress {
  /** the first and last address of the range as 48-bit numbers */
  first: number;
  last: number;
  name: string;
  /** the protocols that use the addresses, where the source names them */
  protocol: string | null;
  /** who gives the addresses their meaning: IANA, IEEE, IETF, a vendor */
  assigned_by: string;
  /** the standard or document that assigns them */
  reference: string;
  /** where the row can be checked */
  source: string;
  /** the row's line in the file */
  line: number;
}

const ADDRESS = /^[0-9A-F]{2}(?:-[0-9A-F]{2}){5}$/;
const URL_IN_SOURCE = /\bhttps?:\/\/[^\s;]+/;
// C0 and C1 controls, DEL
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The 48-bit number of an address written `01-00-5E-00-00-FB`, or -1. */
function addressValue(text: string): number {
  return ADDRESS.test(text) ? parseInt(text.replaceAll('-', ''), 16) : -1;
}

/** The ranges of the file's text, in file order (see the module's rules); `file` names it in errors. */
export function parseMacGroupAddresses(text: string, file: string): MacGroupAddress[] {
  if (text.length > MAX_BYTES) throw new SourceFormatError(file, 0, `more than ${MAX_BYTES} bytes`);
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length - 1 > MAX_ROWS) throw new SourceFormatError(file, MAX_ROWS + 2, `more than ${MAX_ROWS} rows`);
  const header = lines[0].replace(/^\uFEFF/, '');
  if (header !== MAC_GROUP_COLUMNS.join(',')) {
    throw new SourceFormatError(file, 1, `the header is not ${MAC_GROUP_COLUMNS.join(',')}`);
  }
  const ranges: MacGroupAddress[] = [];
  /** the ranges that hold the current row's start, outermost first */
  const open: MacGroupAddress[] = [];
  lines.slice(1).forEach((lineText, i) => {
    const line = i + 2;
    const fail = (problem: string): never => {
      throw new SourceFormatError(file, line, problem);
    };
    if (lineText.length > MAX_LINE) fail(`line longer than ${MAX_LINE} characters`);
    let row: Record<string, string>;
    try {
      // one line at a time under the header: a quoted value cannot run on to the next line
      [row] = parseCsv(`${header}\n${lineText}`);
    } catch (error) {
      if (error instanceof CsvError) return fail(error.message.replace(/^CSV line \d+: /, ''));
      throw error;
    }
    if (row === undefined) return fail('blank line');
    for (const column of MAC_GROUP_COLUMNS) {
      const value = row[column];
      if (value !== value.trim()) fail(`${column} has spaces around it`);
      if (CONTROL.test(value)) fail(`${column} has a control character`);
    }
    for (const column of ['name', 'assigned_by', 'reference', 'source'] as const) {
      if (row[column] === '') fail(`no ${column}`);
    }
    if (!URL_IN_SOURCE.test(row.source)) fail('the source names no http(s) URL');
    const first = addressValue(row.first);
    const last = addressValue(row.last);
    if (first < 0) fail(`first ${JSON.stringify(row.first)} is not six hex byte pairs joined by hyphens (01-80-C2-00-00-00)`);
    if (last < 0) fail(`last ${JSON.stringify(row.last)} is not six hex byte pairs joined by hyphens (01-80-C2-00-00-00)`);
    if (last < first) fail(`last ${row.last} is before first ${row.first}`);
    const range: MacGroupAddress = {
      first,
      last,
      name: row.name,
      protocol: row.protocol || null,
      assigned_by: row.assigned_by,
      reference: row.reference,
      source: row.source,
      line,
    };
    const previous = ranges.at(-1);
    if (previous && (first < previous.first || (first === previous.first && last >= previous.last))) {
      fail(
        first === previous.first && last === previous.last
          ? `the range of line ${previous.line} again`
          : `out of order: rows go by first, and a range comes before the ranges inside it (line ${previous.line})`,
      );
    }
    while (open.length > 0 && open.at(-1)!.last < first) open.pop();
    const holder = open.at(-1);
    if (holder && last > holder.last) fail(`overlaps the range of line ${holder.line} without being inside it`);
    open.push(range);
    ranges.push(range);
  });
  return ranges;
}

/** The ranges of the file (parseMacGroupAddresses), its size checked before it is read. */
export function loadMacGroupAddresses(file: string): MacGroupAddress[] {
  const bytes = fs.statSync(file).size;
  if (bytes > MAX_BYTES) throw new SourceFormatError(file, 0, `more than ${MAX_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(file));
  } catch {
    throw new SourceFormatError(file, 0, 'not UTF-8 text');
  }
  return parseMacGroupAddresses(text, file);
}
