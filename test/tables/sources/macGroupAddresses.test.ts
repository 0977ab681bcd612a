import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMacGroupAddresses, parseMacGroupAddresses, MAC_GROUP_COLUMNS } from '../../../src/tables/sources/macGroupAddresses.js';
import { SourceFormatError } from '../../../src/tables/sources/textLines.js';

const HEADER = MAC_GROUP_COLUMNS.join(',');
const IANA = 'https://www.iana.org/assignments/ethernet-numbers';
const CURATED = fileURLToPath(new URL('../../../data/curated/mac-group-addresses.csv', import.meta.url));

const file = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';

/** Rows of the real file's form: one range, then an outer range and one inside it. */
const GOOD = file(
  `01-00-0C-CC-CC-CD,01-00-0C-CC-CC-CD,Cisco Shared Spanning Tree Protocol address,PVST+,Cisco,Cisco PVST+,"Wireshark wka, https://github.com/wireshark/wireshark"`,
  `01-00-5E-00-00-00,01-00-5E-FF-FF-FF,IANA multicast address block,,IANA,RFC 7042,${IANA}`,
  `01-00-5E-00-00-00,01-00-5E-7F-FF-FF,IPv4 multicast,IPv4 (low 23 bits of the group address),IANA,RFC 1112,${IANA}`,
);

describe('mac-group-addresses.csv reader', () => {
  it('reads ranges as 48-bit numbers with their facts and lines, in file order', () => {
    const ranges = parseMacGroupAddresses(GOOD, 'good.csv');
    expect(ranges.map((r) => [r.first, r.last, r.line])).toEqual([
      [0x01000ccccccd, 0x01000ccccccd, 2],
      [0x01005e000000, 0x01005effffff, 3],
      [0x01005e000000, 0x01005e7fffff, 4],
    ]);
    expect(ranges[0]).toMatchObject({ name: 'Cisco Shared Spanning Tree Protocol address', protocol: 'PVST+', assigned_by: 'Cisco' });
    expect(ranges[1].protocol).toBeNull();
    expect(ranges[2]).toMatchObject({ reference: 'RFC 1112', source: IANA });
  });

  it('accepts a file without a final line break and with a BOM', () => {
    expect(parseMacGroupAddresses('\uFEFF' + GOOD.slice(0, -1), 'bom.csv')).toHaveLength(3);
  });

  describe('bad data: each malformed form refused with its line', () => {
    const good = `FF-FF-FF-FF-FF-FF,FF-FF-FF-FF-FF-FF,Broadcast,,IEEE,RFC 894,"RFC 894, https://www.rfc-editor.org/rfc/rfc894"`;
    const cases: [string, string, number, RegExp][] = [
      ['wrong header', 'first,last,name,source\n', 1, /the header is not/],
      ['lower-case hex', file(good.replace('FF-FF-FF-FF-FF-FF,Broad', 'ff-ff-ff-ff-ff-ff,Broad')), 2, /last "ff-ff-ff-ff-ff-ff" is not/],
      ['colons', file(good.replace(/^FF-FF-FF-FF-FF-FF/, 'FF:FF:FF:FF:FF:FF')), 2, /first "FF:FF:FF:FF:FF:FF" is not/],
      ['five bytes', file(good.replace(/^FF-FF-FF-FF-FF-FF/, 'FF-FF-FF-FF-FF')), 2, /first .* is not six hex byte pairs/],
      [
        'last before first',
        file(`01-80-C2-00-00-0F,01-80-C2-00-00-00,x,,IEEE,IEEE Std 802.1Q,${IANA}`),
        2,
        /last 01-80-C2-00-00-00 is before first/,
      ],
      ['no name', file(good.replace('Broadcast', '')), 2, /no name/],
      ['no assigned_by', file(good.replace('IEEE', '')), 2, /no assigned_by/],
      ['no reference', file(good.replace('RFC 894,"', ',"')), 2, /no reference/],
      ['no source', file(good.replace(/,"RFC 894.*"$/, ',')), 2, /no source/],
      ['source without a URL', file(good.replace(/"RFC 894.*"$/, 'RFC 894')), 2, /names no http\(s\) URL/],
      ['space around a value', file(good.replace('Broadcast', ' Broadcast')), 2, /name has spaces around it/],
      ['control character', file(good.replace('Broadcast', 'Broad\tcast')), 2, /name has a control character/],
      ['too few fields', file('FF-FF-FF-FF-FF-FF,FF-FF-FF-FF-FF-FF,Broadcast'), 2, /3 fields, the header has 7/],
      ['a quoted value over two lines', file(good.replace('"RFC 894,', '"RFC 894\n')), 2, /unterminated quoted field/],
      ['blank line', `${HEADER}\n\n${good}\n`, 2, /blank line/],
      ['CR line end', `${HEADER}\n${good}\r\n`, 2, /bare CR/],
      [
        'out of order',
        file(good, `01-80-C2-00-00-00,01-80-C2-00-00-00,Bridge Group Address,,IEEE,IEEE Std 802.1D,${IANA}`),
        3,
        /out of order/,
      ],
      [
        'an inner range before its outer one',
        file(
          `01-00-5E-00-00-00,01-00-5E-7F-FF-FF,IPv4 multicast,,IANA,RFC 1112,${IANA}`,
          `01-00-5E-00-00-00,01-00-5E-FF-FF-FF,IANA multicast address block,,IANA,RFC 7042,${IANA}`,
        ),
        3,
        /out of order/,
      ],
      ['the same range twice', file(good, good), 3, /the range of line 2 again/],
      [
        'overlapping ranges',
        file(
          `01-00-5E-00-00-00,01-00-5E-7F-FF-FF,IPv4 multicast,,IANA,RFC 1112,${IANA}`,
          `01-00-5E-70-00-00,01-00-5E-8F-FF-FF,made up,,IANA,RFC 5332,${IANA}`,
        ),
        3,
        /overlaps the range of line 2 without being inside it/,
      ],
      [
        'overlapping an outer range after a nested one',
        file(
          `01-00-5E-00-00-00,01-00-5E-7F-FF-FF,IPv4 multicast,,IANA,RFC 1112,${IANA}`,
          `01-00-5E-00-00-00,01-00-5E-00-00-FF,inner,,IANA,RFC 1112,${IANA}`,
          `01-00-5E-7F-00-00,01-00-5E-80-00-00,made up,,IANA,RFC 5332,${IANA}`,
        ),
        4,
        /overlaps the range of line 2/,
      ],
      ['a line past the bound', file(good.replace('Broadcast', 'B'.repeat(5000))), 2, /line longer than 4096 characters/],
    ];
    for (const [name, text, line, message] of cases) {
      it(name, () => {
        let error: unknown;
        try {
          parseMacGroupAddresses(text, 'bad.csv');
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(SourceFormatError);
        expect((error as SourceFormatError).line).toBe(line);
        expect((error as Error).message).toMatch(new RegExp(`^bad\\.csv:${line}: `));
        expect((error as Error).message).toMatch(message);
      });
    }

    it('a file past the size bound, before it is read', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mac-groups-'));
      try {
        const big = path.join(dir, 'big.csv');
        fs.writeFileSync(big, Buffer.alloc((1 << 20) + 1, 0x41));
        expect(() => loadMacGroupAddresses(big)).toThrow(/big\.csv: more than 1048576 bytes/);
        const latin1 = path.join(dir, 'latin1.csv');
        fs.writeFileSync(latin1, Buffer.from([...Buffer.from(`${HEADER}\n`), 0xe9]));
        expect(() => loadMacGroupAddresses(latin1)).toThrow(/latin1\.csv: not UTF-8 text/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('data/curated/mac-group-addresses.csv', () => {
  const ranges = loadMacGroupAddresses(CURATED);

  it('reads (every row sourced, ranges valid, apart or nested) and holds the addresses of the report', () => {
    expect(ranges.length).toBeGreaterThan(40);
    const mostSpecific = (mac: number) => ranges.filter((r) => r.first <= mac && mac <= r.last).at(-1)?.name;
    expect(mostSpecific(0x01005e0000fb)).toBe('IPv4 multicast');
    expect(mostSpecific(0x333300000001)).toBe('IPv6 multicast');
    expect(mostSpecific(0x0180c2000000)).toBe('Bridge Group Address');
    expect(mostSpecific(0x01000ccccccc)).toBe('Cisco Discovery Protocol multicast address');
    expect(mostSpecific(0xffffffffffff)).toBe('Broadcast');
    expect(mostSpecific(0x00000c123456)).toBeUndefined();
  });

  it('names who assigns each range from a short list, and sources every row by URL', () => {
    expect(new Set(ranges.map((r) => r.assigned_by))).toEqual(new Set(['IANA', 'IEEE', 'IETF', 'Cisco', 'Microsoft']));
    for (const r of ranges) expect(r.source, `line ${r.line}`).toMatch(/https?:\/\/\S+/);
    // IANA's rows are inside its two blocks (00-00-5E unicast, 01-00-5E multicast)
    for (const r of ranges.filter((r) => r.assigned_by === 'IANA')) {
      expect([0x00005e, 0x01005e], `line ${r.line}`).toContain(Math.floor(r.first / 2 ** 24));
      expect(Math.floor(r.last / 2 ** 24), `line ${r.line}`).toBe(Math.floor(r.first / 2 ** 24));
    }
  });
});
