/**
 * Reader of the RIRs' RPSL database dumps: RIPE NCC's split files
 * (`https://ftp.ripe.net/ripe/dbase/split/ripe.db.<class>.gz`), APNIC's
 * (`https://ftp.apnic.net/apnic/whois/apnic.db.<class>.gz`) and AFRINIC's single file of every class
 * (`https://ftp.afrinic.net/dbase/afrinic.db.gz`). Objects, as RFC 2622 §2 writes them and as
 * RIPE's whois software exports them (RpslObject.writeTo, ExportFileWriter in RIPE-NCC/whois):
 *
 * - an object is a run of attribute lines ended by an empty line (the exporter writes one before
 *   each object; AFRINIC's file has runs of them); its class is its first attribute's name;
 * - an attribute line is `name:value`, the name at column 0 (letters, digits, `-`, `_`; read
 *   lowercased, as RIPE's RpslAttribute does), the value padded with spaces after the colon;
 * - a line starting with a space, a tab or `+` continues the attribute above (`+` lets a value hold
 *   an empty line); a continuation holding only white space stays in the object, as RIPE's GRS
 *   importer reads it;
 * - a line starting with `#` or `%` is a comment wherever it stands (RIPE's and AFRINIC's dumps open
 *   with a `#` banner of terms, APNIC's with a dated copyright banner; older RIPE exports carried
 *   `% Tags relating to …` lines between objects).
 *
 * Values come back as written: the value after the colon and each continuation (its `+` dropped)
 * trimmed, joined with `\n`. End-of-line `#` comments stay in the value (RIPE's dumps have them, e.g.
 * `auth: … # Real value hidden for security`, AFRINIC's `country: EU # Country is really world
 * wide`); `cleanRpslValue` takes them out the way RIPE's RpslAttribute.getCleanValue does.
 *
 * Text: RIPE NCC writes `ripe.db.*.gz` in ISO-8859-1 (ExportFileWriterFactory; its `.utf8.gz` files
 * are UTF-8), APNIC's and AFRINIC's are read as UTF-8 by RIPE's GRS importer, and third parties find
 * Latin-1 lines in all of them. `encoding: 'latin1'` reads any byte as one character; `'utf-8'`
 * refuses text that is not UTF-8.
 *
 * Bounds (each a SourceFormatError naming file and line): the line length and the inflated size (as
 * textLines.ts `linesOf` words them), the characters of one object (RIPE's whois refuses objects over
 * 5,000,000, its `whois.max.object.size`) and the attributes of one object. A cut gzip stream is
 * refused; a dump cut at an object boundary cannot be told from a whole one (the dumps carry no count
 * or end mark).
 *
 * Only what the caller keeps is held: `keep` names the classes returned and, for each, the
 * attributes kept (the class attribute always comes first); other objects are read, checked against
 * the bounds and dropped line by line.
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { SourceFormatError, type NumberedLine } from '../../tables/sources/textLines.js';

export interface RpslObject {
  /** the name of the first attribute, lowercase (`inetnum`, `role`, …) */
  class: string;
  /** name (lowercase) and value, in file order; the class attribute first */
  attributes: [string, string][];
  /** 1-based line of the class attribute */
  line: number;
}

export interface RpslDumpCounts {
  /** objects read, of every class */
  objects: number;
  /** objects returned */
  kept: number;
}

export interface RpslDumpOptions {
  /** the classes returned, each with the attributes kept (`'all'`: every one); absent: every object whole */
  keep?: Readonly<Record<string, readonly string[] | 'all'>>;
  /** the only classes the file may hold (a split file holds one); an object of another is an error */
  classes?: readonly string[];
  /** `'utf-8'` (the default) or `'latin1'` */
  encoding?: 'utf-8' | 'latin1';
  /** the longest line, in characters (default RPSL_MAX_LINE_LENGTH) */
  maxLineLength?: number;
  /** the most text after inflating, in bytes (default RPSL_MAX_BYTES) */
  maxBytes?: number;
  /** the most characters of one object, its line breaks counted (default RPSL_MAX_OBJECT_LENGTH) */
  maxObjectLength?: number;
  /** the most attribute lines of one object (default RPSL_MAX_ATTRIBUTES) */
  maxAttributes?: number;
  /** filled while reading */
  counts?: RpslDumpCounts;
}

const RPSL_MAX_LINE_LENGTH = 64 * 1024;
/** RIPE NCC's inetnum dump inflates to a few gigabytes. */
const RPSL_MAX_BYTES = 16 * 1024 ** 3;
/** RIPE's whois refuses an object larger than this (`whois.max.object.size`). */
const RPSL_MAX_OBJECT_LENGTH = 5_000_000;
/** Far above any inetnum, role or organisation; a large as-set lists its members a few per line. */
const RPSL_MAX_ATTRIBUTES = 100_000;

const CH_TAB = 9;
const CH_SPACE = 32;
const CH_HASH = 35;
const CH_PERCENT = 37;
const CH_PLUS = 43;
const CH_COLON = 58;
const MAX_NAME_LENGTH = 64;

/** The length of the attribute name before the colon, or -1 when the line is not `name:…`. */
function nameLength(text: string): number {
  const end = Math.min(text.length, MAX_NAME_LENGTH + 1);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === CH_COLON) return i > 0 ? i : -1;
    const lower = c | 0x20;
    const alphanumeric = (c >= 48 && c <= 57) || (lower >= 97 && lower <= 122);
    // '-' and '_' inside a name only
    if (!alphanumeric && (i === 0 || (c !== 45 && c !== 95))) return -1;
  }
  return -1;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== CH_SPACE && c !== CH_TAB) return false;
  }
  return true;
}

/**
 * A value without its end-of-line `#` comments and with its white space (line breaks included)
 * folded to single spaces: RIPE's clean value, which its whois compares and resolves references by.
 */
export function cleanRpslValue(value: string): string {
  let text = value;
  if (text.includes('#')) {
    text = text
      .split('\n')
      .map((part) => {
        const hash = part.indexOf('#');
        return hash === -1 ? part : part.slice(0, hash);
      })
      .join(' ');
  }
  return text.trim().replace(/\s+/g, ' ');
}

/** The line-by-line state of one file's objects; `line` returns an object when an empty line ends it. */
class RpslParser {
  private readonly maxObject: number;
  private readonly maxAttributes: number;
  private readonly counts: RpslDumpCounts;
  private readonly classes: ReadonlySet<string> | null;
  private readonly keep: Map<string, ReadonlySet<string> | 'all'> | null;
  private current: RpslObject | null = null;
  private inObject = false;
  private kept: ReadonlySet<string> | 'all' | null = null;
  private lastKept = false;
  private objectLine = 0;
  private objectLength = 0;
  private attributeCount = 0;

  constructor(
    private readonly file: string,
    options: RpslDumpOptions,
  ) {
    this.maxObject = options.maxObjectLength ?? RPSL_MAX_OBJECT_LENGTH;
    this.maxAttributes = options.maxAttributes ?? RPSL_MAX_ATTRIBUTES;
    this.counts = options.counts ?? { objects: 0, kept: 0 };
    this.classes = options.classes === undefined ? null : new Set(options.classes);
    if (options.keep === undefined) {
      this.keep = null;
    } else {
      this.keep = new Map();
      for (const [name, attributes] of Object.entries(options.keep))
        this.keep.set(name, attributes === 'all' ? 'all' : new Set(attributes));
    }
  }

  line(text: string, line: number): RpslObject | null {
    if (text.length === 0) return this.end();
    const first = text.charCodeAt(0);
    if (first === CH_HASH || first === CH_PERCENT) return null;

    if (first === CH_SPACE || first === CH_TAB || first === CH_PLUS) {
      if (!this.inObject) {
        if (first !== CH_PLUS && isBlank(text)) return null;
        throw new SourceFormatError(this.file, line, `a continuation line outside an object: "${text.slice(0, 80)}"`);
      }
      this.objectLength += text.length + 1;
      if (this.objectLength > this.maxObject)
        throw new SourceFormatError(this.file, this.objectLine, `an object longer than ${this.maxObject} characters`);
      if (this.lastKept && this.current !== null) {
        const attribute = this.current.attributes[this.current.attributes.length - 1];
        attribute[1] += `\n${(first === CH_PLUS ? text.slice(1) : text).trim()}`;
      }
      return null;
    }

    const length = nameLength(text);
    if (length < 0) throw new SourceFormatError(this.file, line, `not an attribute line ("name: value"): "${text.slice(0, 80)}"`);
    const name = text.slice(0, length).toLowerCase();

    if (!this.inObject) {
      this.inObject = true;
      this.objectLine = line;
      this.objectLength = text.length + 1;
      this.attributeCount = 1;
      this.counts.objects++;
      if (this.classes !== null && !this.classes.has(name)) {
        throw new SourceFormatError(this.file, line, `a ${name} object in a file of ${[...this.classes].join(', ')} objects`);
      }
      if (this.objectLength > this.maxObject)
        throw new SourceFormatError(this.file, line, `an object longer than ${this.maxObject} characters`);
      this.kept = this.keep === null ? 'all' : (this.keep.get(name) ?? null);
      this.lastKept = this.kept !== null;
      this.current = this.kept === null ? null : { class: name, attributes: [[name, text.slice(length + 1).trim()]], line };
      return null;
    }

    this.objectLength += text.length + 1;
    if (this.objectLength > this.maxObject)
      throw new SourceFormatError(this.file, this.objectLine, `an object longer than ${this.maxObject} characters`);
    if (++this.attributeCount > this.maxAttributes) {
      throw new SourceFormatError(this.file, this.objectLine, `an object of more than ${this.maxAttributes} attributes`);
    }
    const kept = this.kept;
    this.lastKept = kept !== null && (kept === 'all' || kept.has(name));
    if (this.lastKept && this.current !== null) this.current.attributes.push([name, text.slice(length + 1).trim()]);
    return null;
  }

  /** The object the file ends in (no empty line after it), if any. */
  end(): RpslObject | null {
    const object = this.current;
    this.current = null;
    this.inObject = false;
    if (object !== null) this.counts.kept++;
    return object;
  }
}

/** zlib's own errors (a cut or damaged stream) become the publisher's fault, with a place. */
function asSourceError(error: unknown, file: string, line: number): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new SourceFormatError(file, line, `the gzip stream is cut or damaged (${(error as Error).message})`);
  }
  return error;
}

/** The RPSL objects in numbered lines (see the module comment); throws SourceFormatError. */
export async function* rpslObjectsOf(
  lines: AsyncIterable<NumberedLine>,
  file: string,
  options: RpslDumpOptions = {},
): AsyncGenerator<RpslObject> {
  const parser = new RpslParser(file, options);
  let line = 0;
  try {
    for await (const numbered of lines) {
      line = numbered.line;
      const object = parser.line(numbered.text, line);
      if (object !== null) yield object;
    }
  } catch (error) {
    throw asSourceError(error, file, line);
  }
  const last = parser.end();
  if (last !== null) yield last;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** The file's bytes, inflated when they open with gzip's magic. */
async function* bytesOf(file: string): AsyncGenerator<Buffer> {
  const head = Buffer.alloc(2);
  const handle = await fs.promises.open(file, 'r');
  let read: number;
  try {
    ({ bytesRead: read } = await handle.read(head, 0, 2, 0));
  } finally {
    await handle.close();
  }
  const source = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const gzip = read === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  // pipeline destroys the gunzip stream with the source's error, so the iteration below sees it
  const stream = gzip ? pipeline(source, createGunzip({ chunkSize: 1 << 20 }), () => {}) : source;
  yield* stream as AsyncIterable<Buffer>;
}

/**
 * The RPSL objects of a dump file, gzip or plain (see the module comment); throws SourceFormatError.
 * Lines are split here, chunk by chunk, with linesOf's bounds and messages: a dump has ~90 million
 * lines, and an async step per line (linesOf) costs more than the parse.
 */
export async function* readRpslDump(file: string, options: RpslDumpOptions = {}): AsyncGenerator<RpslObject> {
  const maxLine = options.maxLineLength ?? RPSL_MAX_LINE_LENGTH;
  const maxBytes = options.maxBytes ?? RPSL_MAX_BYTES;
  const latin1 = options.encoding === 'latin1';
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parser = new RpslParser(file, options);
  const ready: RpslObject[] = [];
  let carry = '';
  let bytes = 0;
  let line = 0;
  const decode = (chunk: Buffer | undefined): string => {
    if (latin1) return chunk === undefined ? '' : chunk.toString('latin1');
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw new SourceFormatError(file, line + 1, 'not UTF-8 text');
    }
  };
  const take = (text: string, end: number) => {
    line++;
    if (end > maxLine) throw new SourceFormatError(file, line, `line longer than ${maxLine} characters`);
    const object = parser.line(text, line);
    if (object !== null) ready.push(object);
  };
  try {
    for await (const chunk of bytesOf(file)) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw new SourceFormatError(file, line, `more than ${maxBytes} bytes of text`);
      const text = carry + decode(chunk);
      let from = 0;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
        const end = at > from && text.charCodeAt(at - 1) === 13 ? at - 1 : at;
        take(text.slice(from, end), end - from);
        from = at + 1;
      }
      carry = text.slice(from);
      if (carry.length > maxLine) throw new SourceFormatError(file, line + 1, `line longer than ${maxLine} characters`);
      yield* ready;
      ready.length = 0;
    }
  } catch (error) {
    throw asSourceError(error, file, line);
  }
  carry += decode(undefined);
  if (carry.length > 0) take(carry.endsWith('\r') ? carry.slice(0, -1) : carry, carry.length);
  const last = parser.end();
  if (last !== null) ready.push(last);
  yield* ready;
}
