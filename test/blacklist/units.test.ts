/**
 * The blacklist's pure parts: the in-memory threat index against a Map (inserts, updates,
 * deletions with backward shift, growth), the CIDR cover, category and jail mapping, the
 * fail2ban and CSV readers, report drafting.
 */
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Aggregate } from '../../src/blacklist/aggregate.js';
import { readBulkCsv } from '../../src/blacklist/bulkCsv.js';
import { CidrMerger } from '../../src/blacklist/cidr.js';
import { parseFail2banLine, threatTypeOfJail } from '../../src/blacklist/fail2banLog.js';
import { draftReport } from '../../src/blacklist/reportDraft.js';
import { threatTypeOf, threatTypeOfCategories } from '../../src/blacklist/threatTypes.js';
import { ThreatIndex } from '../../src/store/sqlite/threatIndex.js';

const aggregate = (n: number): Aggregate => ({
  lastAt: n * 1000,
  oldestAt: n * 1000,
  reports: n,
  reporters: 1,
  reportsAtAnchor: 1,
  reportersAtAnchor: 1,
  threatType: 'spam',
});

describe('ThreatIndex', () => {
  it('behaves as a Map of IPv4 and IPv6 keys through inserts, updates and deletions', () => {
    const op = fc.record({
      kind: fc.constantFrom('set', 'set', 'delete'),
      v6: fc.boolean(),
      // a small key space so that collisions, updates and deletions of present keys are common
      key: fc.integer({ min: 1, max: 3000 }),
      n: fc.integer({ min: 1, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 4000 }), (ops) => {
        const index = new ThreatIndex();
        const model = new Map<string, number>();
        const words = (k: number) => Uint32Array.of(0x2a010000, 0, k >>> 3, k * 2654435761);
        for (const { kind, v6, key, n } of ops) {
          const name = `${v6}:${key}`;
          if (kind === 'set') {
            if (v6) index.set(-1, words(key), aggregate(n));
            else index.set(key * 7919, [], aggregate(n));
            model.set(name, n);
          } else {
            expect(v6 ? index.delete(-1, words(key)) : index.delete(key * 7919, [])).toBe(model.delete(name));
          }
        }
        expect(index.size).toBe(model.size);
        for (let key = 1; key <= 3000; key++) {
          for (const v6 of [false, true]) {
            const id = v6 ? index.find6(words(key)) : index.find4(key * 7919);
            const expected = model.get(`${v6}:${key}`);
            if (expected === undefined) expect(id).toBe(-1);
            else expect(index.reports[id]).toBe(expected);
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it('keys4/keys6 list exactly the present keys', () => {
    const index = new ThreatIndex();
    for (let i = 1; i <= 5000; i++) index.set(i, [], aggregate(i));
    for (let i = 1; i <= 5000; i += 2) index.delete(i, []);
    expect([...index.keys4(() => true)].sort((a, b) => a - b)).toEqual(Array.from({ length: 2500 }, (_, i) => 2 * (i + 1)));
    expect([...index.keys4((id) => index.reports[id] > 4990)].sort((a, b) => a - b)).toEqual([4992, 4994, 4996, 4998, 5000]);
    index.set(-1, [1, 2, 3, 4], aggregate(1));
    expect([...index.keys6(() => true)]).toEqual([1, 2, 3, 4]);
  });
});

describe('CIDR cover', () => {
  const v4 = (n: bigint) => String(n);
  const expand = (blocks: string[]) =>
    blocks.flatMap((b) => {
      const [start, prefix] = b.split('/');
      return Array.from({ length: 2 ** (32 - Number(prefix)) }, (_, i) => Number(start) + i);
    });

  it('covers exactly the input with aligned blocks, none of which could merge with its neighbour', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 200 }), (values) => {
        const sorted = [...values].sort((a, b) => a - b);
        const merger = new CidrMerger(4, v4);
        const blocks = [...sorted.flatMap((v) => merger.add(BigInt(v))), ...merger.flush()];
        expect(expand(blocks)).toEqual(sorted);
        for (const b of blocks) {
          const [start, prefix] = b.split('/').map(Number);
          expect(start % 2 ** (32 - prefix)).toBe(0);
        }
        for (let i = 1; i < blocks.length; i++) {
          const [a, pa] = blocks[i - 1].split('/').map(Number);
          const [b, pb] = blocks[i].split('/').map(Number);
          const siblings = pa === pb && a + 2 ** (32 - pa) === b && a % 2 ** (33 - pa) === 0;
          expect(siblings).toBe(false);
        }
      }),
    );
  });

  it('merges IPv6 too and ignores duplicates', () => {
    const merger = new CidrMerger(6, (n) => n.toString(16));
    const out = [...merger.add(16n), ...merger.add(17n), ...merger.add(17n), ...merger.add(18n), ...merger.flush()];
    expect(out).toEqual(['10/127', '12/128']);
  });
});

describe('threat types', () => {
  it('names and categories', () => {
    expect(threatTypeOf('Brute Force')).toBe('brute-force');
    expect(threatTypeOf('bruteforce')).toBe('brute-force');
    expect(threatTypeOf('port_scan')).toBe('scanner');
    expect(threatTypeOf('evil')).toBeNull();
    expect(threatTypeOfCategories('18 22')).toBe('brute-force');
    expect(threatTypeOfCategories([15, 14])).toBe('scanner');
    expect(threatTypeOfCategories('15,9')).toBe('other');
    expect(threatTypeOfCategories('0')).toBeNull();
    expect(threatTypeOfCategories('24')).toBeNull();
    expect(threatTypeOfCategories('')).toBeNull();
  });

  it('jails', () => {
    expect(
      [
        'sshd',
        'sshd-ddos',
        'postfix',
        'postfix-sasl',
        'nginx-botsearch',
        'apache-auth',
        'nginx-http-auth',
        'php-url-fopen',
        'recidive',
        'dovecot',
        'portscan',
        'custom',
      ].map(threatTypeOfJail),
    ).toEqual([
      'brute-force',
      'ddos',
      'spam',
      'brute-force',
      'bot',
      'brute-force',
      'brute-force',
      'web-attack',
      'other',
      'brute-force',
      'scanner',
      'other',
    ]);
  });
});

describe('fail2ban lines', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('ban, restored ban, syslog form, local offset; other lines are no ban event', () => {
    expect(parseFail2banLine('2026-11-20 10:15:32,123 fail2ban.actions        [1234]: NOTICE  [sshd] Ban 203.0.113.5', 0, now)).toEqual({
      jail: 'sshd',
      ip: '203.0.113.5',
      at: new Date('2026-11-20T10:15:32Z'),
      restored: false,
    });
    expect(
      parseFail2banLine('2026-11-20 10:15:32,123 fail2ban.actions        [1234]: NOTICE  [sshd] Restore Ban 2001:db8::5', 60, now),
    ).toEqual({
      jail: 'sshd',
      ip: '2001:db8::5',
      at: new Date('2026-11-20T09:15:32Z'),
      restored: true,
    });
    expect(parseFail2banLine('Nov 20 10:15:32 web1 fail2ban.actions[812]: NOTICE [nginx-botsearch] Ban 45.1.2.3', 0, now)).toMatchObject({
      jail: 'nginx-botsearch',
      at: new Date('2026-11-20T10:15:32Z'),
    });
    expect(parseFail2banLine('Dec 30 10:15:32 web1 fail2ban.actions[812]: NOTICE [sshd] Ban 45.1.2.3', 0, now)!.at).toEqual(
      new Date('2025-12-30T10:15:32Z'),
    );
    for (const line of [
      '2026-11-20 10:15:30,001 fail2ban.filter         [1234]: INFO    [sshd] Found 203.0.113.5 - 2026-11-20 10:15:30',
      '2026-11-20 10:25:32,123 fail2ban.actions        [1234]: NOTICE  [sshd] Unban 203.0.113.5',
      '2026-11-20 10:25:32,123 fail2ban.actions        [1234]: WARNING [sshd] 203.0.113.5 already banned',
      'garbage',
    ]) {
      expect(parseFail2banLine(line, 0, now)).toBeNull();
    }
  });
});

describe('bulk CSV', () => {
  it('reads the layout with quoted category lists and reports lines', async () => {
    const text =
      'IP,Categories,ReportDate,Comment\n45.1.1.1,"18,22",2026-11-20T10:15:32Z,"ssh, many"\n\n45.1.1.2,14,2026-11-20T10:16:00Z\n';
    const rows = [];
    for await (const row of readBulkCsv(Readable.from([text]), 'csv')) rows.push(row);
    expect(rows).toEqual([
      { line: 2, fields: { ip: '45.1.1.1', categories: '18,22', timestamp: '2026-11-20T10:15:32Z', comment: 'ssh, many', source: 'csv' } },
      { line: 4, fields: { ip: '45.1.1.2', categories: '14', timestamp: '2026-11-20T10:16:00Z', comment: undefined, source: 'csv' } },
    ]);
  });

  it("refuses a file without the layout's header", async () => {
    const read = async () => {
      for await (const row of readBulkCsv(Readable.from(['ip,when\n1.2.3.4,now\n']), 'csv')) void row;
    };
    await expect(read()).rejects.toThrow(/IP, Categories and ReportDate/);
  });
});

describe('report drafts', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('times: ISO with or without zone (UTC), Unix seconds; a slightly fast clock is accepted as now', () => {
    const at = (timestamp: unknown) =>
      draftReport({ ip: '45.1.1.1', threat_type: 'spam', timestamp }, now, 90 * 86_400_000, 'manual', 'claimed').at.toISOString();
    expect(at('2026-11-23 10:00:00')).toBe('2026-11-23T10:00:00.000Z');
    expect(at('2026-11-23T10:00:00+02:00')).toBe('2026-11-23T08:00:00.000Z');
    expect(at(String(Date.parse('2026-11-23T11:00:00Z') / 1000))).toBe('2026-11-23T11:00:00.000Z');
    expect(at(Date.parse('2026-11-23T11:00:00Z') / 1000 + 0.5)).toBe('2026-11-23T11:00:00.500Z');
    expect(at('2026-11-23T12:00:30Z')).toBe(now.toISOString());
  });

  it('arrival time: a claimed timestamp is checked, and the report is dated now', () => {
    const at = (timestamp: unknown) =>
      draftReport({ ip: '45.1.1.1', threat_type: 'spam', timestamp }, now, 90 * 86_400_000, 'manual', 'arrival').at.toISOString();
    expect(at('2026-11-23 10:00:00')).toBe(now.toISOString());
    expect(at(String(Date.parse('2026-10-01T00:00:00Z') / 1000))).toBe(now.toISOString());
    expect(() => at('yesterday')).toThrow(/timestamp/);
    expect(() => at('2026-11-24T12:00:00Z')).toThrow(/future/);
  });

  it('IPv4-mapped IPv6 is reported as its IPv4; the message is trimmed and empty ones are null', () => {
    const d = draftReport({ ip: '::ffff:45.1.1.1', threat_type: 'spam', comment: '  ' }, now, 1e10, 'manual', 'arrival');
    expect([d.address.text, d.message, d.source]).toEqual(['45.1.1.1', null, 'manual']);
  });
});

describe('blacklist time', () => {
  it('equals the ISO text for any instant from 1970 to 9999', async () => {
    const { blacklistTime } = await import('../../src/blacklist/blacklistTime.js');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59Z') }),
        (ms) => blacklistTime(ms) === new Date(ms).toISOString().slice(0, 19).replace('T', ' '),
      ),
      { numRuns: 20_000 },
    );
    expect(blacklistTime(Date.parse('2024-02-29T23:59:59.999Z'))).toBe('2024-02-29 23:59:59');
  });
});
