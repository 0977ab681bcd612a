/**
 * The RPSL dump reader: the three RIRs' real-format fixtures read whole (banners, continuations, the
 * `+` form, end-of-line comments, Latin-1, a file of every class), the keep filter, and a bad-data
 * corpus refused with file and line (bounds on lines, objects, attributes and bytes, a cut or
 * damaged gzip, lines that are not RPSL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanRpslValue, readRpslDump, rpslObjectsOf, type RpslDumpOptions, type RpslObject } from '../../../src/feeds/sources/rpslDump.js';
import { linesOfFile, SourceFormatError } from '../../../src/tables/sources/textLines.js';

const ROOT = path.join(import.meta.dirname, '..', '..', 'fixtures', 'publishers');
const RIPE = path.join(ROOT, 'ftp.ripe.net', 'ripe', 'dbase', 'split');
const APNIC = path.join(ROOT, 'ftp.apnic.net', 'apnic', 'whois');
const AFRINIC = path.join(ROOT, 'ftp.afrinic.net', 'dbase', 'afrinic.db.gz');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rpsl-dump-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let written = 0;
/** A dump file of this text (latin1 bytes when asked), gzip unless told otherwise. */
function dumpFile(text: string | Buffer, gzip = true): string {
  const file = path.join(scratch, `dump-${written++}${gzip ? '.gz' : ''}`);
  const bytes = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  fs.writeFileSync(file, gzip ? gzipSync(bytes) : bytes);
  return file;
}

async function all(file: string, options?: RpslDumpOptions): Promise<RpslObject[]> {
  const objects: RpslObject[] = [];
  for await (const object of readRpslDump(file, options)) objects.push(object);
  return objects;
}
const valueOf = (object: RpslObject, name: string) => object.attributes.find(([n]) => n === name)?.[1];

describe('RIPE NCC split files', () => {
  it('read whole: the banner skipped, every object with its line, the dummified remarks kept', async () => {
    const counts = { objects: 0, kept: 0 };
    const objects = await all(path.join(RIPE, 'ripe.db.inetnum.gz'), { encoding: 'latin1', counts });
    expect(objects).toHaveLength(17);
    expect(counts).toEqual({ objects: 17, kept: 17 });
    expect(objects.every((o) => o.class === 'inetnum')).toBe(true);
    const [ncc] = objects;
    expect(ncc.line).toBe(8); // six lines of banner, the exporter's empty line, then the object
    expect(ncc.attributes.slice(0, 4)).toEqual([
      ['inetnum', '193.0.0.0 - 193.0.7.255'],
      ['netname', 'RIPE-NCC'],
      ['descr', 'RIPE Network Coordination Centre'],
      ['org', 'ORG-RIEN1-RIPE'],
    ]);
    expect(ncc.attributes.filter(([n]) => n === 'admin-c')).toEqual([['admin-c', 'DUMY-RIPE']]);
    expect(ncc.attributes.at(-1)).toEqual(['remarks', '****************************']);
    expect(ncc.attributes).toHaveLength(21);
  });

  it('joins continuation lines, the indented and the + form, with line breaks', async () => {
    const objects = await all(path.join(RIPE, 'ripe.db.inetnum.gz'), { encoding: 'latin1' });
    const amazon = objects.find((o) => valueOf(o, 'netname') === 'AMAZON-EU-AWS')!;
    const remarks = valueOf(amazon, 'remarks')!.split('\n');
    expect(remarks).toHaveLength(16);
    expect(remarks.slice(0, 2)).toEqual(['The activity you have detected originates from a', 'dynamic hosting environment.']);
    expect(remarks.at(-1)).toBe('point in time.');
    const plus = objects.find((o) => valueOf(o, 'netname') === 'CONSTRUCTED-ASSIGNMENT-2')!;
    expect(valueOf(plus, 'descr')).toBe('first line\n\nthird line after an empty one');
    expect(cleanRpslValue(valueOf(plus, 'descr')!)).toBe('first line third line after an empty one');
  });

  it('reads Latin-1 as Latin-1, and refuses it as UTF-8 at its line', async () => {
    const objects = await all(path.join(RIPE, 'ripe.db.inetnum.gz'), { encoding: 'latin1' });
    expect(
      valueOf(
        objects.find((o) => valueOf(o, 'netname') === 'CONSTRUCTED-OWN-CONTACT')!,
        'descr',
      ),
    ).toBe('Société Exemple');
    await expect(all(path.join(RIPE, 'ripe.db.inetnum.gz'))).rejects.toThrow(/ripe\.db\.inetnum\.gz:\d+: not UTF-8 text/);
  });

  it('keeps end-of-line comments in the value; cleanRpslValue takes them out', async () => {
    const objects = await all(path.join(RIPE, 'ripe.db.inetnum.gz'), { encoding: 'latin1' });
    const abuseC = valueOf(
      objects.find((o) => valueOf(o, 'netname') === 'CONSTRUCTED-OWN-CONTACT')!,
      'abuse-c',
    )!;
    expect(abuseC).toBe('EXA2-RIPE # the NOC answers abuse reports');
    expect(cleanRpslValue(abuseC)).toBe('EXA2-RIPE');
    expect(cleanRpslValue('# Filtered')).toBe('');
    expect(cleanRpslValue('  a\n b  # c\n+d ')).toBe('a b +d');
  });

  it('reads a name of 16 characters with no space before its value', async () => {
    const [, google] = await all(path.join(RIPE, 'ripe.db.inet6num.gz'));
    expect(valueOf(google, 'assignment-size')).toBe('48');
  });

  it('keeps only the classes and attributes asked for, counting every object read', async () => {
    const counts = { objects: 0, kept: 0 };
    const objects = await all(path.join(RIPE, 'ripe.db.role.gz'), { keep: { role: ['nic-hdl', 'abuse-mailbox'] }, counts });
    expect(counts).toEqual({ objects: 13, kept: 13 });
    expect(objects[0]).toEqual({
      class: 'role',
      attributes: [
        ['role', 'Placeholder Role Object'],
        ['nic-hdl', 'ROLE-RIPE'],
      ],
      line: 8,
    });
    expect(objects[1].attributes).toEqual([
      ['role', 'RIPE NCC Operations'],
      ['abuse-mailbox', 'abuse@ripe.net'],
      ['nic-hdl', 'OPS4-RIPE'],
    ]);
    const none = { objects: 0, kept: 0 };
    expect(await all(path.join(RIPE, 'ripe.db.role.gz'), { keep: { inetnum: 'all' }, counts: none })).toEqual([]);
    expect(none).toEqual({ objects: 13, kept: 0 });
  });

  it('reads the same objects from linesOf lines', async () => {
    const file = path.join(RIPE, 'ripe.db.inet6num.gz');
    const viaLines: RpslObject[] = [];
    for await (const object of rpslObjectsOf(linesOfFile(file), file)) viaLines.push(object);
    expect(viaLines).toEqual(await all(file));
  });
});

describe('APNIC and AFRINIC', () => {
  it('skip APNIC’s dated copyright banner and keep its masked values as written', async () => {
    const irts = await all(path.join(APNIC, 'apnic.db.irt.gz'), { classes: ['irt'] });
    expect(irts.map((o) => o.attributes[0][1])).toEqual(['irt-CERT-NURUL', 'IRT-APNICRANDNET-AU', 'IRT-CHINANET-CN', 'IRT-EXAMPLE-AP']);
    expect(irts[0].line).toBe(19);
    expect(valueOf(irts[0], 'abuse-mailbox')).toBe('********');
    expect(valueOf(irts[1], 'auth')).toBe('# Filtered');
  });

  it('read AFRINIC’s file of every class, its runs of empty lines and 14-column values', async () => {
    const objects = await all(AFRINIC);
    expect(objects.map((o) => o.class)).toEqual([
      'as-block',
      'inetnum',
      'inetnum',
      'inetnum',
      'role',
      'role',
      'inetnum',
      'person',
      'route',
      'inetnum',
      'inetnum',
      'inetnum',
      'role',
      'role',
      'organisation',
      'irt',
      'inet6num',
    ]);
    expect(valueOf(objects[0], 'remarks')!.split('\n')).toHaveLength(7);
    expect(objects[2].attributes[3]).toEqual(['country', 'EU # Country is really world wide']);
    await expect(all(AFRINIC, { classes: ['inetnum', 'inet6num'] })).rejects.toThrow(
      /afrinic\.db\.gz:8: a as-block object in a file of inetnum, inet6num objects/,
    );
  });
});

describe('lines', () => {
  it('accepts CRLF, a last object without an empty line, upper-case names, comments inside an object', async () => {
    const file = dumpFile(
      '% banner\r\nInetnum: 192.0.2.0 - 192.0.2.255\r\n% a tag line\r\nNET-name:x\r\n \t \r\n\r\n\r\n   \r\nrole: R\nnic-hdl: R1-TEST',
    );
    const objects = await all(file);
    expect(objects).toEqual([
      {
        class: 'inetnum',
        attributes: [
          ['inetnum', '192.0.2.0 - 192.0.2.255'],
          ['net-name', 'x\n'],
        ],
        line: 2,
      },
      {
        class: 'role',
        attributes: [
          ['role', 'R'],
          ['nic-hdl', 'R1-TEST'],
        ],
        line: 9,
      },
    ]);
  });

  it('reads a plain (not gzip) file too', async () => {
    expect(await all(dumpFile('a: 1\nb: 2\n', false))).toEqual([
      {
        class: 'a',
        attributes: [
          ['a', '1'],
          ['b', '2'],
        ],
        line: 1,
      },
    ]);
  });

  it('refuses lines that are not RPSL, with file and line', async () => {
    const refused = async (text: string, message: RegExp) => {
      const file = dumpFile(text);
      const error = await all(file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SourceFormatError);
      expect(String(error)).toMatch(message);
      expect((error as SourceFormatError).file).toBe(file);
    };
    await refused('a: 1\n\n  continued\n', /:3: a continuation line outside an object/);
    await refused('+\n', /:1: a continuation line outside an object/);
    await refused('a: 1\nno colon here\n', /:2: not an attribute line/);
    await refused('a: 1\n-b: 2\n', /:2: not an attribute line/);
    await refused('a: 1\nb c: 2\n', /:2: not an attribute line/);
    await refused(':x\n', /:1: not an attribute line/);
    await refused(`${'n'.repeat(65)}: 1\n`, /:1: not an attribute line/);
  });
});

describe('bounds', () => {
  it('refuse a line over the bound, wherever it ends', async () => {
    const long = `descr: ${'x'.repeat(100)}`;
    await expect(all(dumpFile(`a: 1\n${long}\n`), { maxLineLength: 50 })).rejects.toThrow(/:2: line longer than 50 characters/);
    await expect(all(dumpFile(`a: 1\n${long}`), { maxLineLength: 50 })).rejects.toThrow(/:2: line longer than 50 characters/);
    await expect(all(dumpFile(`a: 1\n${'x'.repeat(3 << 20)}`), { maxLineLength: 1 << 20 })).rejects.toThrow(/:2: line longer than 1048576/);
    expect(await all(dumpFile(`a: 1\n${long}\n`), { maxLineLength: 107 })).toHaveLength(1);
  });

  it('refuse an object over the bound, at the object’s first line, kept or not', async () => {
    const object = `inetnum: 192.0.2.0 - 192.0.2.255\n${'remarks: 0123456789\n'.repeat(10)}`;
    const file = dumpFile(`a: 1\n\n${object}`);
    expect(object.length).toBe(233);
    expect(await all(file, { maxObjectLength: 233 })).toHaveLength(2);
    await expect(all(file, { maxObjectLength: 232 })).rejects.toThrow(/:3: an object longer than 232 characters/);
    await expect(all(file, { maxObjectLength: 232, keep: { a: 'all' } })).rejects.toThrow(/:3: an object longer than 232/);
    const continued = dumpFile(`remarks: 1\n${'  0123456789\n'.repeat(10)}`);
    await expect(all(continued, { maxObjectLength: 100 })).rejects.toThrow(/:1: an object longer than 100/);
  });

  it('refuse an object of too many attributes', async () => {
    const file = dumpFile(`inetnum: x\n${'remarks: r\n'.repeat(9)}`);
    expect(await all(file, { maxAttributes: 10 })).toHaveLength(1);
    await expect(all(file, { maxAttributes: 9 })).rejects.toThrow(/:1: an object of more than 9 attributes/);
  });

  it('refuse a file that inflates past the bound', async () => {
    const file = dumpFile('a: 1\n'.repeat(1000));
    await expect(all(file, { maxBytes: 4000 })).rejects.toThrow(/more than 4000 bytes of text/);
  });

  it('refuse a cut or damaged gzip stream, never returning a short file as whole', async () => {
    const whole = fs.readFileSync(path.join(RIPE, 'ripe.db.inetnum.gz'));
    const cut = dumpFile(whole.subarray(0, whole.length - 20), false);
    const error = await all(cut, { encoding: 'latin1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceFormatError);
    expect(String(error)).toMatch(/the gzip stream is cut or damaged/);
    const damaged = Buffer.from(whole);
    damaged[200] ^= 0xff;
    damaged[201] ^= 0xff;
    await expect(all(dumpFile(damaged, false), { encoding: 'latin1' })).rejects.toThrow(SourceFormatError);
  });
});
