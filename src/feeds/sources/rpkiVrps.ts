/**
 * Reader of the validated ROA payloads (VRPs) two publishers export as JSON: Cloudflare's
 * `https://rpki.cloudflare.com/rpki.json` and rpki-client's `https://console.rpki-client.org/vrps.json`
 * (see test/fixtures/publishers/feeds-rpki-README.md). One object: `metadata` (when the list was made
 * and counts), `roas` (one VRP each: `prefix` "1.0.0.0/24", `maxLength`, `asn`, `ta`, and `expires` in
 * rpki-client's files) and arrays this reader skips (`bgpsec_keys`, `aspas`, `nonfunc_cas`, …).
 * Cloudflare now publishes rpki-client's output; its earlier OctoRPKI files (and rpki-client before
 * 7.x, and Routinator) write the AS number as `"AS13335"` rather than `13335`: both are read.
 *
 * The files are about 100 MB, so they are parsed as a token stream (stream-json's tokenizer), gzip
 * inflated when the magic bytes say so, and never held whole. Rules: at most `maxBytes` of text; the
 * document is one object whose `roas` is an array of flat objects; nesting deeper than MAX_DEPTH is
 * refused; in each VRP the prefix is an IPv4 or IPv6 prefix with no host bits set, its length ≤
 * maxLength ≤ 32 or 128 (RFC 6482's constraint on a ROA), the AS number 0..4294967295 (AS 0 is a
 * real ROA that authorises no origin, RFC 6483 section 4 and RFC 7607), the trust anchor a short
 * printable name, `expires` (when present) a whole number of seconds. Members a VRP does not need are
 * ignored; a VRP missing one it needs, or naming one twice, is refused. The first VRP that breaks a
 * rule is an error naming its position (`roas[i]`): the publishers write one VRP a line or the whole
 * file on one line, so the index locates it where a line number would not. Duplicates (one VRP
 * under two trust anchors) are kept; validation does not mind them.
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { SourceFormatError } from '../../tables/sources/textLines.js';

/** The IPv4 VRPs, as parallel typed arrays (about half a million VRPs: a few MB, not objects). */
export interface Ipv4Vrps {
  count: number;
  /** the prefix's first address */
  start: Uint32Array;
  prefixLength: Uint8Array;
  maxLength: Uint8Array;
  asn: Uint32Array;
}

export interface Ipv6Vrp {
  start: bigint;
  prefixLength: number;
  maxLength: number;
  asn: number;
}

export interface Vrps {
  /** when the publisher made the list (ISO 8601, UTC): metadata `buildtime`, or `generated` (Unix seconds) */
  date: string | null;
  ipv4: Ipv4Vrps;
  ipv6: Ipv6Vrp[];
}

export interface VrpBounds {
  /** the most text accepted after inflating, in bytes (default VRP_MAX_BYTES) */
  maxBytes?: number;
}

/** The real files are about 100 MB (Cloudflare's, 2025); five times that is not a VRP list. */
export const VRP_MAX_BYTES = 512 * 1024 * 1024;
/** The document's own nesting is 3 (object, `roas`, a VRP); the skipped arrays nest a level more. */
const MAX_DEPTH = 8;
const MAX_ASN = 0xffffffff;
const LENGTH = /^(?:0|[1-9]\d{0,2})$/;
const ASN_NUMBER = /^(?:0|[1-9]\d{0,9})$/;
const ASN_TEXT = /^AS(0|[1-9]\d{0,9})$/;
const SECONDS = /^(?:0|[1-9]\d{0,15})$/;
const TRUST_ANCHOR = /^[\x20-\x7e]{1,64}$/;
const BUILD_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z$/;
const GZIP_MAGIC = [0x1f, 0x8b];
const READ_CHUNK = 1 << 20;
/** stream-json's tokenizer takes stream-chain's registered `none` symbol as "end of input" and returns it for "no tokens". */
const END_OF_INPUT = Symbol.for('object-stream.none');

/** Reads a VRP file (plain or gzip) from disk; `name` (default: the path) names it in errors. */
export async function readVrps(file: string, name: string = file, bounds: VrpBounds = {}): Promise<Vrps> {
  return readVrpsFrom(await fileBytes(file), name, bounds);
}

/** The bytes of `file`, inflated when it starts with the gzip magic. */
async function fileBytes(file: string): Promise<AsyncIterable<Buffer>> {
  const head = Buffer.alloc(2);
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.read(head, 0, 2, 0);
  } finally {
    await handle.close();
  }
  const raw = fs.createReadStream(file, { highWaterMark: READ_CHUNK });
  if (head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) return raw;
  // pipeline, not pipe: a read error reaches the reader, and a reader that stops closes the file.
  return pipeline(raw, createGunzip({ chunkSize: READ_CHUNK }), () => {});
}

/** Reads a VRP document from its (already inflated) bytes. */
export async function readVrpsFrom(bytes: AsyncIterable<Buffer | string>, name: string, bounds: VrpBounds = {}): Promise<Vrps> {
  const maxBytes = bounds.maxBytes ?? VRP_MAX_BYTES;
  const document = new VrpDocument(name);
  const tokenizer = jsonParser({ packValues: true, streamValues: false }) as unknown as (input: string | symbol) => unknown;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  const feed = (input: string | symbol): void => {
    let result: unknown;
    try {
      result = tokenizer(input);
    } catch (error) {
      throw document.fail(
        `not JSON${input === END_OF_INPUT ? ' (truncated?)' : ''}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (result !== END_OF_INPUT) document.take((result as { values: Token[] }).values);
  };
  try {
    for await (const chunk of bytes) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) throw document.fail(`more than ${maxBytes} bytes of text`);
      feed(decoder.decode(buffer, { stream: true }));
    }
    feed(decoder.decode());
  } catch (error) {
    if (error instanceof SourceFormatError) throw error;
    // TextDecoder's TypeError, or the file's or gunzip's error (a truncated gzip stream)
    throw document.fail(
      error instanceof TypeError ? 'not UTF-8 text' : `unreadable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  feed(END_OF_INPUT);
  return document.finish();
}

/** Where the token stream is: what the next token may be. */
const Place = {
  /** before the document */
  Start: 0,
  /** in the top-level object, expecting a key or its end */
  Top: 1,
  /** after a top-level key, expecting its value */
  TopValue: 2,
  /** in `metadata`, expecting a key or its end */
  Metadata: 3,
  MetadataValue: 4,
  /** in `roas`, expecting a VRP or the array's end */
  Roas: 5,
  /** in a VRP, expecting a key or its end */
  Vrp: 6,
  VrpValue: 7,
  /** after the document */
  End: 8,
} as const;
type Place = (typeof Place)[keyof typeof Place];

/** The VRP being read, member by member. */
interface VrpFields {
  prefix: string | null;
  maxLength: string | null;
  asn: string | null;
  asnIsText: boolean;
  ta: string | null;
  expires: string | null;
}

/**
 * A hand-written pushdown reader of the token stream: the document's shape is fixed, so each token is
 * checked against the place it arrives in, and values nobody reads are skipped by depth alone.
 */
class VrpDocument {
  private place: Place = Place.Start;
  private key = '';
  /** depth of the value being skipped (0: none), and where to return after it */
  private skipDepth = 0;
  private afterSkip: Place = Place.Top;
  private seenTop = new Set<string>();
  /** the members of the VRP being read (a Member each), for "twice" */
  private seenMembers = 0;
  private member = 0;
  private readonly fields: VrpFields = emptyFields();
  private index = -1;
  private buildtime: string | null = null;
  private generated: string | null = null;
  private readonly ipv4 = new Ipv4VrpBuilder();
  private readonly ipv6: Ipv6Vrp[] = [];
  private readonly words = new Uint32Array(4);

  constructor(private readonly name: string) {}

  fail(message: string): SourceFormatError {
    const inVrps =
      this.place === Place.Roas ||
      this.place === Place.Vrp ||
      this.place === Place.VrpValue ||
      (this.skipDepth > 0 && this.afterSkip === Place.Vrp);
    const where = inVrps ? `roas[${this.index}]: ` : '';
    return new SourceFormatError(this.name, 0, where + message);
  }

  take(tokens: Token[]): void {
    for (const token of tokens) {
      if (this.skipDepth > 0) this.skip(token);
      else this.step(token);
    }
  }

  finish(): Vrps {
    if (this.place !== Place.End) throw this.fail('the document ends early: truncated');
    if (!this.seenTop.has('roas')) throw this.fail('no "roas" array');
    return { date: this.date(), ipv4: this.ipv4.build(), ipv6: this.ipv6 };
  }

  private date(): string | null {
    if (this.buildtime !== null) return this.buildtime;
    if (this.generated !== null) return new Date(Number(this.generated) * 1000).toISOString().replace('.000Z', 'Z');
    return null;
  }

  /** Passes over a value nobody reads, keeping only its depth. */
  private skip(token: Token): void {
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        if (++this.skipDepth + this.depthOf(this.afterSkip) > MAX_DEPTH) throw this.fail(`nested deeper than ${MAX_DEPTH}`);
        break;
      case 'endObject':
      case 'endArray':
        if (--this.skipDepth === 0) this.place = this.afterSkip;
        break;
      default:
        break;
    }
  }

  /** The depth of the containers open at a place (for the nesting bound while skipping). */
  private depthOf(place: Place): number {
    return place === Place.Top ? 1 : place === Place.Metadata ? 2 : 3;
  }

  /** Starts skipping the value `token` begins (a scalar is skipped at once). */
  private skipValue(token: Token, returnTo: Place): void {
    if (token.name === 'startObject' || token.name === 'startArray') {
      this.afterSkip = returnTo;
      this.skipDepth = 0;
      this.skip(token);
    } else if (token.name === 'endObject' || token.name === 'endArray' || token.name === 'keyValue') {
      throw this.fail(`unexpected ${token.name}`);
    } else {
      this.place = returnTo;
    }
  }

  private step(token: Token): void {
    switch (this.place) {
      case Place.Start:
        if (token.name !== 'startObject') throw this.fail('the document is not an object');
        this.place = Place.Top;
        return;
      case Place.Top:
        if (token.name === 'endObject') {
          this.place = Place.End;
          return;
        }
        this.key = this.keyOf(token);
        if (this.seenTop.has(this.key)) throw this.fail(`"${this.key}" twice`);
        this.seenTop.add(this.key);
        this.place = Place.TopValue;
        return;
      case Place.TopValue:
        if (this.key === 'metadata') {
          if (token.name !== 'startObject') throw this.fail('"metadata" is not an object');
          this.place = Place.Metadata;
        } else if (this.key === 'roas') {
          if (token.name !== 'startArray') throw this.fail('"roas" is not an array');
          this.place = Place.Roas;
        } else {
          this.skipValue(token, Place.Top);
        }
        return;
      case Place.Metadata:
        if (token.name === 'endObject') {
          this.place = Place.Top;
          return;
        }
        this.key = this.keyOf(token);
        this.place = Place.MetadataValue;
        return;
      case Place.MetadataValue:
        this.metadataValue(token);
        return;
      case Place.Roas:
        if (token.name === 'endArray') {
          this.place = Place.Top;
          return;
        }
        this.index++;
        if (token.name !== 'startObject') throw this.fail('not an object');
        clearFields(this.fields);
        this.seenMembers = 0;
        this.place = Place.Vrp;
        return;
      case Place.Vrp:
        if (token.name === 'endObject') {
          this.addVrp();
          this.place = Place.Roas;
          return;
        }
        this.key = this.keyOf(token);
        this.member = memberOf(this.key);
        if ((this.seenMembers & this.member) !== 0) throw this.fail(`"${this.key}" twice`);
        this.seenMembers |= this.member;
        this.place = Place.VrpValue;
        return;
      case Place.VrpValue:
        this.vrpValue(token);
        return;
      case Place.End:
        throw this.fail('text after the document');
    }
  }

  private keyOf(token: Token): string {
    if (token.name !== 'keyValue') throw this.fail(`expected a key, not ${token.name}`);
    return token.value;
  }

  private metadataValue(token: Token): void {
    if (this.key === 'buildtime') {
      if (token.name !== 'stringValue' || !isBuildTime(token.value))
        throw this.fail(`metadata.buildtime is not a UTC time: ${describe(token)}`);
      if (this.buildtime !== null) throw this.fail('metadata.buildtime twice');
      this.buildtime = token.value;
      this.place = Place.Metadata;
    } else if (this.key === 'generated') {
      if (token.name !== 'numberValue' || !SECONDS.test(token.value))
        throw this.fail(`metadata.generated is not Unix seconds: ${describe(token)}`);
      if (this.generated !== null) throw this.fail('metadata.generated twice');
      this.generated = token.value;
      this.place = Place.Metadata;
    } else {
      this.skipValue(token, Place.Metadata);
    }
  }

  private vrpValue(token: Token): void {
    const f = this.fields;
    switch (this.member) {
      case Member.Prefix:
        if (token.name !== 'stringValue') throw this.fail(`prefix is not a string: ${describe(token)}`);
        f.prefix = token.value;
        break;
      case Member.MaxLength:
        if (token.name !== 'numberValue') throw this.fail(`maxLength is not a number: ${describe(token)}`);
        f.maxLength = token.value;
        break;
      case Member.Asn:
        if (token.name !== 'numberValue' && token.name !== 'stringValue')
          throw this.fail(`asn is not a number or "AS…": ${describe(token)}`);
        f.asn = token.value;
        f.asnIsText = token.name === 'stringValue';
        break;
      case Member.Ta:
        if (token.name !== 'stringValue') throw this.fail(`ta is not a string: ${describe(token)}`);
        f.ta = token.value;
        break;
      case Member.Expires:
        if (token.name !== 'numberValue') throw this.fail(`expires is not a number: ${describe(token)}`);
        f.expires = token.value;
        break;
      default:
        this.skipValue(token, Place.Vrp);
        return;
    }
    this.place = Place.Vrp;
  }

  /** Checks the VRP just closed and stores it. */
  private addVrp(): void {
    const f = this.fields;
    if (f.prefix === null || f.maxLength === null || f.asn === null || f.ta === null) {
      const missing = (['prefix', 'maxLength', 'asn', 'ta'] as const).filter((k) => f[k] === null);
      throw this.fail(`no ${missing.join(', ')}`);
    }
    const asn = asnOf(f.asn, f.asnIsText);
    if (asn < 0) throw this.fail(`AS number out of range or malformed: ${JSON.stringify(f.asn)}`);
    if (!TRUST_ANCHOR.test(f.ta)) throw this.fail(`ta is not a short printable name: ${JSON.stringify(f.ta)}`);
    if (f.expires !== null && !SECONDS.test(f.expires)) throw this.fail(`expires is not Unix seconds: ${f.expires}`);
    if (!LENGTH.test(f.maxLength)) throw this.fail(`maxLength is not a prefix length: ${f.maxLength}`);
    const maxLength = Number(f.maxLength);

    const slash = f.prefix.indexOf('/');
    const lengthText = slash < 0 ? '' : f.prefix.slice(slash + 1);
    if (!LENGTH.test(lengthText)) throw this.fail(`not a prefix: ${JSON.stringify(f.prefix)}`);
    const length = Number(lengthText);
    const address = f.prefix.slice(0, slash);
    if (address.includes(':')) {
      if (!parseIPv6(address, this.words) || length > 128) throw this.fail(`not an IPv6 prefix: ${JSON.stringify(f.prefix)}`);
      const w = this.words;
      const start = ipv6Value(w);
      if ((start & ((1n << BigInt(128 - length)) - 1n)) !== 0n) throw this.fail(`${f.prefix} has host bits set`);
      if (maxLength < length || maxLength > 128) throw this.fail(`maxLength ${maxLength} outside ${length}..128`);
      this.ipv6.push({ start, prefixLength: length, maxLength, asn });
    } else {
      const start = parseIPv4(address);
      if (start < 0 || length > 32) throw this.fail(`not an IPv4 prefix: ${JSON.stringify(f.prefix)}`);
      if (length < 32 && start % 2 ** (32 - length) !== 0) throw this.fail(`${f.prefix} has host bits set`);
      if (maxLength < length || maxLength > 32) throw this.fail(`maxLength ${maxLength} outside ${length}..32`);
      this.ipv4.push(start, length, maxLength, asn);
    }
  }
}

function emptyFields(): VrpFields {
  return { prefix: null, maxLength: null, asn: null, asnIsText: false, ta: null, expires: null };
}

function clearFields(f: VrpFields): void {
  f.prefix = f.maxLength = f.asn = f.ta = f.expires = null;
  f.asnIsText = false;
}

/** The members of a VRP this reader reads, as bits; 0 for the others (read past, never checked for "twice"). */
const Member = { Prefix: 1, MaxLength: 2, Asn: 4, Ta: 8, Expires: 16 } as const;

function memberOf(key: string): number {
  switch (key) {
    case 'prefix':
      return Member.Prefix;
    case 'maxLength':
      return Member.MaxLength;
    case 'asn':
      return Member.Asn;
    case 'ta':
      return Member.Ta;
    case 'expires':
      return Member.Expires;
    default:
      return 0;
  }
}

/** The AS number of `13335` or `"AS13335"`, or -1. */
function asnOf(text: string, isText: boolean): number {
  let digits = text;
  if (isText) {
    const m = ASN_TEXT.exec(text);
    if (m === null) return -1;
    digits = m[1];
  } else if (!ASN_NUMBER.test(text)) {
    return -1;
  }
  const asn = Number(digits);
  return asn <= MAX_ASN ? asn : -1;
}

/** Whether `text` is `YYYY-MM-DDTHH:MM:SSZ` naming a real instant (strftime "%FT%TZ" in UTC). */
function isBuildTime(text: string): boolean {
  const m = BUILD_TIME.exec(text);
  if (m === null) return false;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const time = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return (
    time.getUTCFullYear() === y &&
    time.getUTCMonth() === mo - 1 &&
    time.getUTCDate() === d &&
    time.getUTCHours() === h &&
    time.getUTCMinutes() === mi
  );
}

function describe(token: Token): string {
  return 'value' in token ? `${token.name} ${JSON.stringify(token.value)}` : token.name;
}

/** Growing parallel arrays for the IPv4 VRPs. */
class Ipv4VrpBuilder {
  private count = 0;
  private start = new Uint32Array(1024);
  private prefixLength = new Uint8Array(1024);
  private maxLength = new Uint8Array(1024);
  private asn = new Uint32Array(1024);

  push(start: number, prefixLength: number, maxLength: number, asn: number): void {
    if (this.count === this.start.length) this.grow();
    const i = this.count++;
    this.start[i] = start;
    this.prefixLength[i] = prefixLength;
    this.maxLength[i] = maxLength;
    this.asn[i] = asn;
  }

  private grow(): void {
    const size = this.start.length * 2;
    const wider = <T extends Uint32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.start = wider(this.start, (n) => new Uint32Array(n));
    this.prefixLength = wider(this.prefixLength, (n) => new Uint8Array(n));
    this.maxLength = wider(this.maxLength, (n) => new Uint8Array(n));
    this.asn = wider(this.asn, (n) => new Uint32Array(n));
  }

  build(): Ipv4Vrps {
    const n = this.count;
    return {
      count: n,
      start: this.start.slice(0, n),
      prefixLength: this.prefixLength.slice(0, n),
      maxLength: this.maxLength.slice(0, n),
      asn: this.asn.slice(0, n),
    };
  }
}
