/**
 * The strict RFC 4180 reader of the table sources: whole texts with a header (our curated files,
 * data/curated/*.csv: parseCsv) and single lines (the publishers' big files, one record a line:
 * csvLineFields). Anything that is not well-formed RFC 4180 is refused with its line instead of
 * being guessed at. It is hand-written because it is fast where it matters: csv-parse took 2.5 to
 * 7 times as long over the 24 MB ASN file as the whole ASN reader built on csvLineFields.
 *
 * Accepted: fields separated by commas; records separated by CRLF or LF; fields in double quotes,
 * which may contain commas, line breaks and doubled quotes (""); an optional UTF-8 BOM; an optional
 * line break after the last record. The first record is the header.
 *
 * Refused: a quote inside an unquoted field, anything but a separator after a closing quote, an
 * unterminated quoted field, a bare CR, a blank line, a record whose field count differs from the
 * header's, an empty or duplicate header name.
 */

export class CsvError extends Error {
  readonly line: number;

  constructor(message: string, line: number) {
    super(`CSV line ${line}: ${message}`);
    this.name = 'CsvError';
    this.line = line;
  }
}

/** One record of raw fields and the line it starts on. */
interface CsvRow {
  fields: string[];
  line: number;
}

/** Splits CSV text into records of raw fields (header included), enforcing RFC 4180 syntax. */
function parseCsvRows(text: string): CsvRow[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: CsvRow[] = [];
  const n = src.length;
  let fields: string[] = [];
  let field = '';
  let quoted = false; // the current field was written in quotes
  let line = 1;
  let recordLine = 1;
  let i = 0;

  const endField = (): void => {
    fields.push(field);
    field = '';
    quoted = false;
  };
  const endRecord = (): void => {
    const blank = fields.length === 0 && field === '' && !quoted;
    if (blank) throw new CsvError('blank line', recordLine);
    endField();
    rows.push({ fields, line: recordLine });
    fields = [];
  };

  while (i < n) {
    const ch = src[i];
    if (ch === '"') {
      if (field !== '' || quoted) throw new CsvError('quote inside an unquoted field', line);
      quoted = true;
      i++;
      let closed = false;
      while (i < n) {
        const c = src[i];
        if (c === '"') {
          if (src[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        if (c === '\n') line++;
        field += c;
        i++;
      }
      if (!closed) throw new CsvError('unterminated quoted field', line);
      if (i < n && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') {
        throw new CsvError('text after a closing quote', line);
      }
      continue;
    }
    if (ch === ',') {
      endField();
      i++;
      continue;
    }
    if (ch === '\r') {
      if (src[i + 1] !== '\n') throw new CsvError('bare CR (line breaks must be CRLF or LF)', line);
      endRecord();
      i += 2;
      line++;
      recordLine = line;
      continue;
    }
    if (ch === '\n') {
      endRecord();
      i++;
      line++;
      recordLine = line;
      continue;
    }
    field += ch;
    i++;
  }

  // the last record may end without a line break
  if (n > 0 && src[n - 1] !== '\n') endRecord();
  return rows;
}

/**
 * Parses CSV text whose first record is the header into one object per record, keyed by the
 * header names. Every record must have exactly as many fields as the header.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const rows = parseCsvRows(text);
  if (rows.length === 0) throw new CsvError('no header', 1);
  const header = rows[0].fields;
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') throw new CsvError('empty header name', 1);
    if (seen.has(name)) throw new CsvError(`duplicate header name "${name}"`, 1);
    seen.add(name);
  }
  const records: Record<string, string>[] = [];
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r].fields;
    if (row.length !== header.length) {
      throw new CsvError(`${row.length} fields, the header has ${header.length}`, rows[r].line);
    }
    const record: Record<string, string> = {};
    for (let f = 0; f < header.length; f++) record[header[f]] = row[f];
    records.push(record);
  }
  return records;
}

/** The header names of CSV text (its first record). */
export function csvHeader(text: string): string[] {
  const rows = parseCsvRows(text);
  if (rows.length === 0) throw new CsvError('no header', 1);
  return rows[0].fields;
}

/**
 * The fields of one RFC 4180 record written on one line, or a sentence saying why it is not one. A
 * quoted field may not hold a line break here: the publishers' names have none, and a quote left
 * open at the end of a line is a broken file. A line without quotes, most of a big file, is split
 * at its commas.
 */
export function csvLineFields(text: string): string[] | string {
  if (!text.includes('"')) return text.split(',');
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (text.charCodeAt(at) === QUOTE) {
      let value = '';
      let from = at + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote < 0) return 'unterminated quoted field (not closed on its line)';
        value += text.slice(from, quote);
        if (text.charCodeAt(quote + 1) === QUOTE) {
          value += '"';
          from = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      fields.push(value);
      if (at === text.length) return fields;
      if (text.charCodeAt(at) !== COMMA) return 'text after a closing quote';
      at++;
    } else {
      const comma = text.indexOf(',', at);
      const value = comma < 0 ? text.slice(at) : text.slice(at, comma);
      if (value.includes('"')) return 'a quote inside an unquoted field';
      fields.push(value);
      if (comma < 0) return fields;
      at = comma + 1;
    }
  }
}

const QUOTE = 34;
const COMMA = 44;
