import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../../../src/address/ipAddress.js';
import { readVrps, readVrpsFrom, type Vrps } from '../../../src/feeds/sources/rpkiVrps.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';

const RPKI_CLIENT = 'test/fixtures/publishers/console.rpki-client.org/vrps.json';
const CLOUDFLARE = 'test/fixtures/publishers/rpki.cloudflare.com/rpki.json';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vrps-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The document in chunks of `size` bytes (1: every token split across chunks). */
function read(text: string, size = 1 << 20, maxBytes?: number): Promise<Vrps> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return readVrpsFrom(Readable.from(chunks), 'inline', { maxBytes });
}

async function refusal(promise: Promise<unknown>): Promise<SourceFormatError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceFormatError);
  return error as SourceFormatError;
}

/** The VRPs as (prefix text, maxLength, asn) rows, IPv4 then IPv6, in file order. */
function rows(vrps: Vrps): [string, number, number][] {
  const out: [string, number, number][] = [];
  const v4 = vrps.ipv4;
  for (let i = 0; i < v4.count; i++) {
    const s = v4.start[i];
    out.push([`${s >>> 24}.${(s >>> 16) & 255}.${(s >>> 8) & 255}.${s & 255}/${v4.prefixLength[i]}`, v4.maxLength[i], v4.asn[i]]);
  }
  for (const v of vrps.ipv6) out.push([`${v.start.toString(16)}/${v.prefixLength}`, v.maxLength, v.asn]);
  return out;
}

function ipv6(text: string): bigint {
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) throw new Error(text);
  return words.reduce((n, w) => (n << 32n) | BigInt(w), 0n);
}

/** One VRP in a minimal document, for the bad-data corpus. */
function oneVrp(members: string): string {
  return `{"metadata":{"buildtime":"2026-10-01T06:12:31Z"},"roas":[{"asn":13335,"prefix":"1.0.0.0/24","maxLength":24,"ta":"apnic"},{${members}}]}`;
}

describe('readVrps on the publisher fixtures', () => {
  it("reads rpki-client's vrps.json (numeric AS numbers, expires, metadata.buildtime)", async () => {
    const vrps = await readVrps(RPKI_CLIENT);
    expect(vrps.date).toBe('2021-07-27T18:56:02Z');
    expect(vrps.ipv4.count).toBe(4);
    expect(vrps.ipv6).toHaveLength(14);
    expect(rows(vrps).slice(0, 4)).toEqual([
      ['1.0.0.0/24', 24, 13335],
      ['1.0.4.0/24', 24, 38803],
      ['1.0.4.0/22', 22, 38803],
      ['1.0.5.0/24', 24, 38803],
    ]);
    expect(vrps.ipv6[0]).toEqual({ start: ipv6('2001:200:136::'), prefixLength: 48, maxLength: 48, asn: 9367 });
    expect(vrps.ipv6).toContainEqual({ start: ipv6('2800:38::'), prefixLength: 32, maxLength: 128, asn: 27808 });
    // One prefix under two maxLengths: both kept.
    expect(vrps.ipv6.filter((v) => v.start === ipv6('2800:40::'))).toHaveLength(2);
  });

  it("reads Cloudflare's rpki.json, skipping bgpsec_keys and aspas", async () => {
    const vrps = await readVrps(CLOUDFLARE);
    expect(vrps.date).toBe('2026-10-01T06:12:31Z');
    expect(vrps.ipv4.count).toBe(9);
    expect(vrps.ipv6).toHaveLength(7);
    expect(rows(vrps)).toContainEqual(['5.105.0.0/16', 16, 43554]);
    expect(rows(vrps)).toContainEqual(['218.103.58.0/23', 24, 4515]);
    expect(vrps.ipv6).toContainEqual({ start: ipv6('2a10:cc44:1d0::'), prefixLength: 44, maxLength: 48, asn: 208454 });
  });

  it('reads a gzip file as the same VRPs', async () => {
    const gz = path.join(dir, 'rpki.json.gz');
    fs.writeFileSync(gz, gzipSync(fs.readFileSync(CLOUDFLARE)));
    const [plain, inflated] = await Promise.all([readVrps(CLOUDFLARE), readVrps(gz)]);
    expect(inflated).toEqual(plain);
  });

  it('reads the same VRPs whatever the chunk boundaries (one byte at a time)', async () => {
    const text = fs.readFileSync(RPKI_CLIENT, 'utf8');
    expect(await read(text, 1)).toEqual(await read(text));
  });
});

describe('readVrps forms', () => {
  it('reads the "AS13335" spelling and the metadata of OctoRPKI files (generated, Unix seconds)', async () => {
    // The form cloudflare/cfrpki's OctoRPKI wrote for rpki.cloudflare.com (gortr prefixfile.ROAList, Go json.Encoder).
    const text =
      '{"metadata":{"counts":2,"generated":1577865600,"valid":1577869200,"signature":"3045","signatureDate":"3046"},' +
      '"roas":[{"prefix":"1.0.0.0/24","maxLength":24,"asn":"AS13335","ta":"APNIC"},{"prefix":"2001:610::/29","maxLength":29,"asn":"AS1103","ta":"RIPE"}]}\n';
    const vrps = await read(text);
    expect(vrps.date).toBe('2020-01-01T08:00:00Z');
    expect(rows(vrps)).toEqual([
      ['1.0.0.0/24', 24, 13335],
      ['20010610000000000000000000000000/29', 29, 1103],
    ]);
  });

  it('reads both spellings in one file (stayrtr smalltest.rpki.json)', async () => {
    const text =
      '{\n  "metadata": {\n    "buildtime": "2021-07-27T18:56:02Z",\n    "vrps": 2\n  },\n\n  "roas": [\n    {\n      "asn": 13335,\n      "prefix": "1.0.0.0/24",\n      "maxLength": 24,\n      "ta": "apnic",\n      "expires": 1627568318\n    },\n    {\n      "asn": "AS9367",\n      "prefix": "2001:200:136::/48",\n      "maxLength": 48,\n      "ta": "apnic",\n      "expires": 1627575699\n    }\n  ]\n}\n';
    const vrps = await read(text);
    expect(vrps.ipv4.asn[0]).toBe(13335);
    expect(vrps.ipv6[0].asn).toBe(9367);
  });

  it('reads the bounds of the fields: AS 0 and AS 4294967295, /0 and /32, /128', async () => {
    const text = JSON.stringify({
      roas: [
        { asn: 0, prefix: '0.0.0.0/0', maxLength: 32, ta: 'apnic-as0' },
        { asn: 'AS4294967295', prefix: '255.255.255.255/32', maxLength: 32, ta: 'x' },
        { asn: 'AS0', prefix: '::/0', maxLength: 128, ta: 'x' },
        { asn: 4294967295, prefix: 'ffff::1/128', maxLength: 128, ta: 'x', expires: 0 },
      ],
    });
    const vrps = await read(text);
    expect(vrps.date).toBeNull();
    expect(rows(vrps)).toEqual([
      ['0.0.0.0/0', 32, 0],
      ['255.255.255.255/32', 32, 4294967295],
      ['0/0', 128, 0],
      ['ffff0000000000000000000000000001/128', 128, 4294967295],
    ]);
    expect(vrps.ipv4.start[1]).toBe(parseIPv4('255.255.255.255'));
  });

  it('reads the current rpki-client layout: talfiles as an array, nested ASPA providers, members it does not know', async () => {
    const text =
      '{\n\t"metadata": {\n\t\t"buildmachine": "b",\n\t\t"buildtime": "2025-09-17T12:10:08Z",\n\t\t"ccr_vrps_hash": "ab",\n\t\t"talfiles": [\n\t\t\t"/etc/rpki/apnic.tal"\n\t\t],\n\t\t"nested": {"a": [[1, {"b": null}], true, false]}\n\t},\n' +
      '\t"roas": [\n\t\t{ "asn": 13335, "prefix": "1.0.0.0/24", "maxLength": 24, "ta": "apnic", "expires": 1758111008, "source": [ { "type": "roa" } ] }\n\t],\n' +
      '\t"bgpsec_keys": [\n\n\t],\n\t"nonfunc_cas": [\n\n\t],\n\t"aspas": [\n\t\t{ "customer_asid": 15562, "expires": 1758111008, "providers": [ 2914, 8283 ] }\n\t]\n}\n';
    const vrps = await read(text, 7);
    expect(vrps.date).toBe('2025-09-17T12:10:08Z');
    expect(rows(vrps)).toEqual([['1.0.0.0/24', 24, 13335]]);
  });

  it('reads an empty list', async () => {
    const vrps = await read('{"metadata":{"buildtime":"2026-01-01T00:00:00Z"},"roas":[]}');
    expect(vrps.ipv4.count).toBe(0);
    expect(vrps.ipv6).toEqual([]);
  });
});

describe('readVrps bad-data corpus: each refused, naming the VRP', () => {
  const cases: [string, string, RegExp][] = [
    ['host bits set', '"asn":1,"prefix":"1.0.0.1/24","maxLength":24,"ta":"x"', /roas\[1\]: 1\.0\.0\.1\/24 has host bits set/],
    ['IPv6 host bits set', '"asn":1,"prefix":"2001:db8::1/64","maxLength":64,"ta":"x"', /roas\[1\]: 2001:db8::1\/64 has host bits set/],
    ['maxLength below the length', '"asn":1,"prefix":"1.0.0.0/24","maxLength":23,"ta":"x"', /roas\[1\]: maxLength 23 outside 24\.\.32/],
    ['maxLength above 32', '"asn":1,"prefix":"1.0.0.0/24","maxLength":33,"ta":"x"', /maxLength 33 outside 24\.\.32/],
    ['maxLength above 128', '"asn":1,"prefix":"2001:db8::/32","maxLength":129,"ta":"x"', /maxLength 129 outside 32\.\.128/],
    ['maxLength not an integer', '"asn":1,"prefix":"1.0.0.0/24","maxLength":24.0,"ta":"x"', /maxLength is not a prefix length: 24\.0/],
    ['maxLength as text', '"asn":1,"prefix":"1.0.0.0/24","maxLength":"24","ta":"x"', /maxLength is not a number/],
    ['prefix length above 32', '"asn":1,"prefix":"1.0.0.0/33","maxLength":33,"ta":"x"', /not an IPv4 prefix/],
    ['no prefix length', '"asn":1,"prefix":"1.0.0.0","maxLength":24,"ta":"x"', /not a prefix/],
    ['leading zero in the address', '"asn":1,"prefix":"01.0.0.0/8","maxLength":8,"ta":"x"', /not an IPv4 prefix/],
    ['leading zero in the length', '"asn":1,"prefix":"1.0.0.0/024","maxLength":24,"ta":"x"', /not a prefix/],
    ['ASN above 4294967295', '"asn":4294967296,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /roas\[1\]: AS number out of range/],
    ['"AS" ASN above 4294967295', '"asn":"AS4294967296","prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /AS number out of range/],
    ['negative ASN', '"asn":-1,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /AS number out of range/],
    ['fractional ASN', '"asn":1.5,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /AS number out of range/],
    ['ASN text without AS', '"asn":"13335","prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /AS number out of range or malformed: "13335"/],
    ['lower-case as', '"asn":"as13335","prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /malformed: "as13335"/],
    ['ASN a boolean', '"asn":true,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /asn is not a number or "AS…": trueValue/],
    ['no maxLength', '"asn":1,"prefix":"1.0.0.0/24","ta":"x"', /roas\[1\]: no maxLength/],
    ['no ta', '"asn":1,"prefix":"1.0.0.0/24","maxLength":24', /no ta/],
    ['a member twice', '"asn":1,"asn":2,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /"asn" twice/],
    ['ta too long', `"asn":1,"prefix":"1.0.0.0/24","maxLength":24,"ta":"${'x'.repeat(65)}"`, /ta is not a short printable name/],
    ['ta with a control character', '"asn":1,"prefix":"1.0.0.0/24","maxLength":24,"ta":"a\\nb"', /ta is not a short printable name/],
    ['expires negative', '"asn":1,"prefix":"1.0.0.0/24","maxLength":24,"ta":"x","expires":-5', /expires is not Unix seconds/],
    ['prefix a number', '"asn":1,"prefix":16777216,"maxLength":24,"ta":"x"', /prefix is not a string/],
    ['nested too deep', '"asn":1,"x":[[[[[[[1]]]]]]],"prefix":"1.0.0.0/24","maxLength":24,"ta":"x"', /roas\[1\]: nested deeper than 8/],
  ];
  for (const [what, members, message] of cases) {
    it(what, async () => {
      const error = await refusal(read(oneVrp(members)));
      expect(error.message).toMatch(message);
      expect(error.file).toBe('inline');
    });
  }

  it('truncated inside a VRP', async () => {
    const text = fs.readFileSync(RPKI_CLIENT, 'utf8');
    const error = await refusal(read(text.slice(0, text.indexOf('2001:200:1ba'))));
    expect(error.message).toMatch(/not JSON \(truncated\?\)/);
  });

  it('truncated after a whole VRP line', async () => {
    const text = fs.readFileSync(RPKI_CLIENT, 'utf8');
    const cut = text.indexOf('\n', text.indexOf('1.0.5.0/24')) + 1;
    expect(text.slice(cut - 3, cut)).toBe('},\n');
    await refusal(read(text.slice(0, cut)));
  });

  it('truncated after the last VRP, before the closing brace', async () => {
    const text = fs.readFileSync(RPKI_CLIENT, 'utf8');
    const error = await refusal(read(text.slice(0, text.lastIndexOf(']') + 1)));
    expect(error.message).toMatch(/truncated/);
  });

  it('a truncated gzip file', async () => {
    const whole = gzipSync(fs.readFileSync(CLOUDFLARE));
    const cut = path.join(dir, 'cut.json.gz');
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 200));
    expect((await refusal(readVrps(cut))).message).toMatch(/unreadable: unexpected end of file/);
  });

  it('a file over the byte bound', async () => {
    const error = await refusal(readVrps(CLOUDFLARE, 'rpki.json', { maxBytes: 1000 }));
    expect(error.message).toMatch(/rpki\.json: more than 1000 bytes of text/);
    // The bound counts inflated bytes: a small gzip file of a large text is refused too.
    const gz = path.join(dir, 'bomb.json.gz');
    fs.writeFileSync(gz, gzipSync(Buffer.from(`{"roas":[],"x":"${' '.repeat(5_000_000)}"}`)));
    expect(fs.statSync(gz).size).toBeLessThan(10_000);
    await refusal(readVrps(gz, 'bomb', { maxBytes: 1_000_000 }));
  });

  const documents: [string, string, RegExp][] = [
    ['not JSON at all', 'roas: []', /not JSON/],
    ['an array, not an object', '[{"asn":1}]', /the document is not an object/],
    ['no roas', '{"metadata":{}}', /no "roas" array/],
    ['roas twice', '{"roas":[],"roas":[]}', /"roas" twice/],
    ['roas an object', '{"roas":{}}', /"roas" is not an array/],
    ['a VRP that is not an object', '{"roas":[["1.0.0.0/24",24,1]]}', /roas\[0\]: not an object/],
    ['metadata not an object', '{"metadata":[],"roas":[]}', /"metadata" is not an object/],
    ['buildtime not a time', '{"metadata":{"buildtime":"2021-02-30T00:00:00Z"},"roas":[]}', /metadata\.buildtime is not a UTC time/],
    ['buildtime a number', '{"metadata":{"buildtime":1627411000},"roas":[]}', /metadata\.buildtime is not a UTC time/],
    ['generated negative', '{"metadata":{"generated":-1},"roas":[]}', /metadata\.generated is not Unix seconds/],
    ['text after the document', '{"roas":[]} {"roas":[]}', /not JSON|text after/],
    ['nested too deep in a skipped member', `{"roas":[],"aspas":${'['.repeat(20)}${']'.repeat(20)}}`, /nested deeper than 8/],
  ];
  for (const [what, text, message] of documents) {
    it(what, async () => {
      expect((await refusal(read(text))).message).toMatch(message);
    });
  }

  it('bytes that are not UTF-8', async () => {
    const bytes = Buffer.concat([Buffer.from('{"roas":[],"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const error = await refusal(readVrpsFrom(Readable.from([bytes]), 'binary'));
    expect(error.message).toMatch(/not UTF-8/);
  });
});

describe('readVrps against JSON.parse on a synthetic list', () => {
  /** Seeded xorshift32: the same list every run. */
  function random(seed: number): () => number {
    let x = seed;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }

  it('reads 20,000 VRPs of both families and spellings as JSON.parse sees them, in 4 KiB chunks', async () => {
    const next = random(20261001);
    const roas = [];
    for (let i = 0; i < 20_000; i++) {
      const asn = Math.floor(next() * 2 ** 32);
      const ta = ['apnic', 'ripe', 'arin', 'lacnic', 'afrinic'][i % 5];
      if (next() < 0.75) {
        const length = Math.floor(next() * 33);
        const start = length === 0 ? 0 : Math.floor(next() * 2 ** length) * 2 ** (32 - length);
        const prefix = `${start >>> 24}.${(start >>> 16) & 255}.${(start >>> 8) & 255}.${start & 255}/${length}`;
        roas.push({
          asn: next() < 0.5 ? asn : `AS${asn}`,
          prefix,
          maxLength: length + Math.floor(next() * (33 - length)),
          ta,
          expires: 1790835151 + i,
        });
      } else {
        const length = Math.floor(next() * 65);
        const high = length === 0 ? 0n : BigInt(Math.floor(next() * 2 ** Math.min(length, 48))) << BigInt(64 - Math.min(length, 48));
        const start = high << 64n;
        const hex = start.toString(16).padStart(32, '0');
        const prefix = `${hex.match(/.{4}/g)!.join(':')}/${length}`;
        roas.push({ asn, prefix, maxLength: length + Math.floor(next() * (129 - length)), ta });
      }
    }
    const text = JSON.stringify({ metadata: { buildtime: '2026-10-01T06:12:31Z' }, roas }, null, '\t');
    const vrps = await read(text, 4096);
    const words = new Uint32Array(4);
    const expected4: [number, number, number, number][] = [];
    const expected6: [bigint, number, number, number][] = [];
    for (const r of JSON.parse(text).roas as { asn: number | string; prefix: string; maxLength: number }[]) {
      const [address, length] = r.prefix.split('/');
      const asn = typeof r.asn === 'number' ? r.asn : Number(r.asn.slice(2));
      if (address.includes(':')) {
        parseIPv6(address, words);
        expected6.push([words.reduce((n, w) => (n << 32n) | BigInt(w), 0n), Number(length), r.maxLength, asn]);
      } else {
        expected4.push([parseIPv4(address), Number(length), r.maxLength, asn]);
      }
    }
    const got4 = Array.from({ length: vrps.ipv4.count }, (_, i) => [
      vrps.ipv4.start[i],
      vrps.ipv4.prefixLength[i],
      vrps.ipv4.maxLength[i],
      vrps.ipv4.asn[i],
    ]);
    expect(got4).toEqual(expected4);
    expect(vrps.ipv6.map((v) => [v.start, v.prefixLength, v.maxLength, v.asn])).toEqual(expected6);
    expect(expected4.length).toBeGreaterThan(14_000);
    expect(expected6.length).toBeGreaterThan(4_000);
  });
});
