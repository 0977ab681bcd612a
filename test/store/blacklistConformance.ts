/**
 * The conformance suite of every BlacklistStore (src/store/blacklistStore.ts): only the
 * interface and injected clocks. Every Store implementation runs it; each test uses its own
 * addresses and reporters, so the tests share one opened store (with a 90-day retention).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { DAY_MS, DEFAULT_EXPORT_MIN_CONFIDENCE, MERGE_WINDOW_MS, SINGLE_REPORTER_CEILING } from '../../src/blacklist/scoring.js';
import type { ThreatType } from '../../src/blacklist/threatTypes.js';
import type { ExportFilter, ExportRow, ReportInput } from '../../src/blacklist/listing.js';
import type { Store } from '../../src/store/store.js';

const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const MIN = 60_000;
const everything: ExportFilter = { min_confidence: 0, version: null, max_age_ms: null };

let counter = 0;
/** A fresh public address per call (198.51.100.0/24 is documentation: use 45.x instead). */
function freshV4(): string {
  counter++;
  return `45.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
}
function freshV6(): string {
  counter++;
  return `2a01:4f8::${counter.toString(16)}`;
}

const addr = (text: string) => parseBlacklistAddress(text)!;
const iso = (ms: number) => new Date(ms).toISOString();
/** A reporter no other test uses. */
const freshReporter = () => `acc_rep${++counter}`;

export function blacklistConformance(name: string, open: () => Promise<Store>, cleanup?: () => Promise<void>): void {
  describe(`Blacklist store conformance: ${name}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await open();
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    const report = (ip: string, reporter: string, at: number, over: Partial<ReportInput> = {}) =>
      store.blacklist.report(
        {
          ip,
          reporter,
          threat_type: 'brute-force',
          message: null,
          source: 'fail2ban',
          at: new Date(at),
          country_code: 'DE',
          isp: 'Example GmbH',
          ...over,
        },
        new Date(Math.max(at, over.at?.getTime() ?? 0)),
      );
    const facts = async (ip: string, now: number) => store.blacklist.threatFacts(addr(ip), new Date(now));
    const listing = (ip: string, now: number, limit = 20) => store.blacklist.listing(addr(ip), new Date(now), limit);
    async function exported(filter: ExportFilter, now: number): Promise<ExportRow[]> {
      const rows: ExportRow[] = [];
      for await (const chunk of store.blacklist.exportRows(filter, new Date(now))) rows.push(...chunk);
      return rows;
    }

    it('an address without reports is not listed', async () => {
      const ip = freshV4();
      expect(await facts(ip, T0)).toMatchObject({
        is_threat: false,
        threat_type: null,
        threat_confidence: 0,
        threat_reports: 0,
        threat_last_seen: null,
      });
      expect(await listing(ip, T0)).toBeNull();
    });

    it('a report lists the address with its facts; the listing shows them', async () => {
      const ip = freshV4();
      const outcome = await report(ip, 'acc_a', T0, { message: 'sshd: 6 failures' });
      expect(outcome.merged).toBe(false);
      expect(outcome.facts).toEqual({
        is_threat: true,
        threat_type: 'brute-force',
        threat_confidence: 39,
        threat_reports: 1,
        threat_last_seen: '2026-05-01 12:00:00',
      });
      expect(await facts(ip, T0)).toEqual(outcome.facts);
      expect(await listing(ip, T0)).toEqual({
        ip,
        threat_type: 'brute-force',
        confidence: 39,
        first_seen: T0,
        last_seen: T0,
        total_reports: 1,
        distinct_reporters: 1,
        source: 'fail2ban',
        country_code: 'DE',
        isp: 'Example GmbH',
        reports: [{ threat_type: 'brute-force', message: 'sshd: 6 failures', source: 'fail2ban', created_at: T0 }],
      });
    });

    it('IPv6 addresses are listed by their canonical text', async () => {
      const ip = freshV6();
      await report(ip, 'acc_a', T0);
      expect((await facts(ip, T0)).is_threat).toBe(true);
      expect((await listing(ip, T0))!.ip).toBe(ip);
    });

    it("one reporter's repeats within 15 minutes merge; later ones count again", async () => {
      const ip = freshV4();
      await report(ip, 'acc_a', T0);
      expect((await report(ip, 'acc_a', T0 + 14 * MIN)).merged).toBe(true);
      expect((await report(ip, 'acc_a', T0 - 10 * MIN)).merged).toBe(true);
      const later = await report(ip, 'acc_a', T0 + MERGE_WINDOW_MS + MIN);
      expect(later.merged).toBe(false);
      expect(later.facts.threat_reports).toBe(2);
      const l = (await listing(ip, T0 + 20 * MIN))!;
      expect(l.total_reports).toBe(2);
      expect(l.distinct_reporters).toBe(1);
      expect(l.first_seen).toBe(T0 - 10 * MIN);
      expect(l.last_seen).toBe(T0 + 16 * MIN);
    });

    it('one reporter alone stays at the single-reporter ceiling, under the default export threshold; a second reporter passes it', async () => {
      const ip = freshV4();
      let highest = 0;
      // A report every 16 minutes for two days, each as its own arrival: 180 separate reports.
      for (let i = 0; i < 180; i++) highest = Math.max(highest, (await report(ip, 'acc_lone', T0 + i * 16 * MIN)).facts.threat_confidence);
      const end = T0 + 179 * 16 * MIN;
      expect(highest).toBe(SINGLE_REPORTER_CEILING);
      expect((await facts(ip, end)).threat_confidence).toBe(SINGLE_REPORTER_CEILING);
      const byDefault: ExportFilter = { ...everything, min_confidence: DEFAULT_EXPORT_MIN_CONFIDENCE };
      expect((await exported(byDefault, end)).map((r) => r.ip)).not.toContain(ip);
      expect((await exported(everything, end)).find((r) => r.ip === ip)).toMatchObject({
        confidence: SINGLE_REPORTER_CEILING,
        total_reports: 180,
      });
      await report(ip, 'acc_second', end);
      expect((await exported(byDefault, end)).find((r) => r.ip === ip)?.confidence).toBeGreaterThanOrEqual(DEFAULT_EXPORT_MIN_CONFIDENCE);
    });

    it('another reporter within 15 minutes is another report', async () => {
      const ip = freshV4();
      await report(ip, 'acc_a', T0);
      expect((await report(ip, 'acc_b', T0 + MIN)).merged).toBe(false);
      const l = (await listing(ip, T0 + MIN))!;
      expect([l.total_reports, l.distinct_reporters]).toEqual([2, 2]);
    });

    it('threat_type is the most reported type; source is the single source or multiple', async () => {
      const ip = freshV4();
      await report(ip, 'r1', T0, { threat_type: 'spam', source: 'postfix' });
      await report(ip, 'r2', T0 + MIN, { threat_type: 'scanner', source: 'psad' });
      await report(ip, 'r3', T0 + 2 * MIN, { threat_type: 'spam', source: 'postfix' });
      const l = (await listing(ip, T0 + 2 * MIN))!;
      expect(l.threat_type).toBe('spam');
      expect(l.source).toBe('multiple');
      expect((await facts(ip, T0 + 2 * MIN)).threat_type).toBe('spam');
    });

    it('country and provider are the ones captured at the first report', async () => {
      const ip = freshV4();
      await report(ip, 'r1', T0, { country_code: 'FR', isp: 'First' });
      await report(ip, 'r2', T0 + MIN, { country_code: 'US', isp: 'Second' });
      expect(await listing(ip, T0 + MIN)).toMatchObject({ country_code: 'FR', isp: 'First' });
    });

    it('the listing keeps the most recent reports, newest first, up to the limit', async () => {
      const ip = freshV4();
      for (let i = 0; i < 25; i++) await report(ip, `r${i}`, T0 + i * MIN, { message: `m${i}` });
      const l = (await listing(ip, T0 + 30 * MIN))!;
      expect(l.total_reports).toBe(25);
      expect(l.reports).toHaveLength(20);
      expect(l.reports[0].message).toBe('m24');
      expect(l.reports[19].message).toBe('m5');
      expect((await listing(ip, T0 + 30 * MIN, 3))!.reports.map((r) => r.message)).toEqual(['m24', 'm23', 'm22']);
    });

    it('confidence decays with age; reports leave the listing after the retention window', async () => {
      const ip = freshV4();
      await report(ip, 'r1', T0);
      const fresh = (await facts(ip, T0)).threat_confidence;
      const month = (await facts(ip, T0 + 30 * DAY_MS)).threat_confidence;
      expect(month).toBeLessThan(fresh);
      expect((await facts(ip, T0 + 89 * DAY_MS)).is_threat).toBe(true);
      expect(await facts(ip, T0 + 91 * DAY_MS)).toMatchObject({ is_threat: false, threat_reports: 0 });
      expect(await listing(ip, T0 + 91 * DAY_MS)).toBeNull();
    });

    it('an expired report stops counting while a newer one keeps the address listed', async () => {
      const ip = freshV4();
      await report(ip, 'r1', T0);
      await report(ip, 'r2', T0 + 60 * DAY_MS);
      expect((await facts(ip, T0 + 60 * DAY_MS)).threat_reports).toBe(2);
      const after = await facts(ip, T0 + 95 * DAY_MS);
      expect(after).toMatchObject({ is_threat: true, threat_reports: 1 });
      expect((await listing(ip, T0 + 95 * DAY_MS))!.total_reports).toBe(1);
    });

    it('deleting an address removes every report', async () => {
      const ip = freshV4();
      await report(ip, 'r1', T0);
      await report(ip, 'r2', T0);
      expect(await store.blacklist.deleteAddress(addr(ip), new Date(T0))).toBe(2);
      expect((await facts(ip, T0)).is_threat).toBe(false);
      expect(await listing(ip, T0)).toBeNull();
      expect(await store.blacklist.deleteAddress(addr(ip), new Date(T0))).toBe(0);
    });

    it('the version grows with every change', async () => {
      const before = await store.blacklist.version();
      await report(freshV4(), 'r1', T0 + 5 * MIN);
      const after = await store.blacklist.version();
      expect(after.seq).toBeGreaterThan(before.seq);
      expect(after.changed_at).toBe(T0 + 5 * MIN);
    });

    it('exports rows in address order, IPv4 first, filtered by confidence, version and age', async () => {
      const base = T0 + 200 * DAY_MS;
      const a = freshV4();
      const b = freshV4();
      const c = freshV6();
      await report(b, 'r1', base);
      await report(a, 'r1', base - 10 * DAY_MS);
      await report(c, 'r1', base);
      for (const r of ['r2', 'r3', 'r4']) await report(b, r, base);
      const rows = (await exported(everything, base)).filter((r) => [a, b, c].includes(r.ip));
      expect(rows.map((r) => r.ip)).toEqual([a, b, c]);
      expect(rows[1]).toMatchObject({ version: 4, threat_type: 'brute-force', total_reports: 4, first_seen: base, last_seen: base });
      const all = await exported(everything, base);
      const order = all.map((r) =>
        r.version === 4
          ? r.ip
              .split('.')
              .map((p) => p.padStart(3, '0'))
              .join('.')
          : `~${r.ip}`,
      );
      expect(order.filter((_, i) => all[i].version === 4)).toEqual([...order.filter((_, i) => all[i].version === 4)].sort());
      expect(all.findIndex((r) => r.version === 6)).toBeGreaterThan(all.findLastIndex((r) => r.version === 4));
      const strong = await exported({ ...everything, min_confidence: 80 }, base);
      expect(strong.map((r) => r.ip)).toContain(b);
      expect(strong.map((r) => r.ip)).not.toContain(a);
      expect(strong.every((r) => r.confidence >= 80)).toBe(true);
      expect((await exported({ ...everything, version: 6 }, base)).every((r) => r.version === 6)).toBe(true);
      expect((await exported({ ...everything, version: 4 }, base)).every((r) => r.version === 4)).toBe(true);
      const recent = await exported({ ...everything, max_age_ms: DAY_MS }, base);
      expect(recent.map((r) => r.ip)).toContain(b);
      expect(recent.map((r) => r.ip)).not.toContain(a);
    });

    it('many reports at once: none lost, none counted twice', async () => {
      const ip = freshV4();
      const at = T0 + 300 * DAY_MS;
      const reporters = Array.from({ length: 50 }, (_, i) => `conc${i}`);
      // Each reporter sends twice at once: the second merges.
      await Promise.all(reporters.flatMap((r) => [report(ip, r, at), report(ip, r, at + 1000)]));
      const l = (await listing(ip, at + 1000))!;
      expect(l.total_reports).toBe(50);
      expect(l.distinct_reporters).toBe(50);
    });

    it('reportMany saves in order and merges within the batch', async () => {
      const ip = freshV4();
      const input = (reporter: string, at: number, type: ThreatType = 'scanner'): ReportInput => ({
        ip,
        reporter,
        threat_type: type,
        message: null,
        source: 'import',
        at: new Date(at),
        country_code: null,
        isp: null,
      });
      const outcomes = await store.blacklist.reportMany(
        [input('x', T0), input('x', T0 + MIN), input('y', T0 + 2 * MIN)],
        new Date(T0 + 2 * MIN),
      );
      expect(outcomes.map((o) => o.merged)).toEqual([false, true, false]);
      expect(outcomes[2].facts.threat_reports).toBe(2);
    });

    it('purgeExpired deletes reports older than the window and nothing newer', async () => {
      const old = freshV4();
      const young = freshV4();
      const at = T0 + 400 * DAY_MS;
      await report(old, 'p', at);
      await report(young, 'p', at + 50 * DAY_MS);
      expect(await store.blacklist.purgeExpired(new Date(at + 100 * DAY_MS))).toBeGreaterThanOrEqual(1);
      expect(await listing(old, at)).toBeNull();
      expect((await listing(young, at + 100 * DAY_MS))!.total_reports).toBe(1);
    });

    describe("a reporter's own reports", () => {
      const T1 = T0 + 500 * DAY_MS;
      const reportsBy = (reporter: string, now: number, offset = 0, limit = 100) =>
        store.blacklist.reportsBy(reporter, { offset, limit }, new Date(now));
      const withdraw = (reporter: string, id: string, now: number) => store.blacklist.withdrawReport(reporter, id, new Date(now));

      it('lists only its own reports inside the retention window, newest last report first, merged repeats counted', async () => {
        const me = freshReporter();
        const other = freshReporter();
        const [a, b, c, old] = [freshV4(), freshV6(), freshV4(), freshV4()];
        await report(old, me, T1 - 95 * DAY_MS);
        await report(a, me, T1, { threat_type: 'spam', message: 'first', source: 'postfix' });
        await report(a, me, T1 + 10 * MIN, { message: 'second' });
        await report(a, other, T1 + 11 * MIN);
        await report(b, me, T1 + 5 * MIN, { threat_type: 'scanner' });
        await store.blacklist.reportMany(
          [c, c].map((ip, i) => ({
            ip,
            reporter: me,
            threat_type: 'web-attack' as const,
            message: null,
            source: 'import',
            at: new Date(T1 + (1 + i) * MIN),
            country_code: null,
            isp: null,
          })),
          new Date(T1 + 2 * MIN),
        );
        const page = await reportsBy(me, T1 + 20 * MIN);
        expect(page.total).toBe(3);
        expect(page.reports.map(({ id: _id, ...r }) => r)).toEqual([
          {
            ip: a,
            threat_type: 'spam',
            message: 'first',
            source: 'postfix',
            reported_at: iso(T1),
            last_reported_at: iso(T1 + 10 * MIN),
            count: 2,
          },
          {
            ip: b,
            threat_type: 'scanner',
            message: null,
            source: 'fail2ban',
            reported_at: iso(T1 + 5 * MIN),
            last_reported_at: iso(T1 + 5 * MIN),
            count: 1,
          },
          {
            ip: c,
            threat_type: 'web-attack',
            message: null,
            source: 'import',
            reported_at: iso(T1 + MIN),
            last_reported_at: iso(T1 + 2 * MIN),
            count: 2,
          },
        ]);
        expect(new Set(page.reports.map((r) => r.id)).size).toBe(3);
        expect(page.reports.every((r) => typeof r.id === 'string' && r.id.length > 0)).toBe(true);
        expect((await reportsBy(other, T1 + 20 * MIN)).reports.map((r) => r.ip)).toEqual([a]);
        expect(await reportsBy(freshReporter(), T1)).toEqual({ total: 0, reports: [] });
        // A later repeat moves its report first; reports leave the list with the retention window.
        await report(c, me, T1 + 15 * MIN);
        expect((await reportsBy(me, T1 + 20 * MIN)).reports.map((r) => [r.ip, r.count])).toEqual([
          [c, 3],
          [a, 2],
          [b, 1],
        ]);
        expect((await reportsBy(me, T1 + 90 * DAY_MS + 7 * MIN)).reports.map((r) => r.ip)).toEqual([c, a]);
        expect(await reportsBy(me, T1 + 91 * DAY_MS)).toEqual({ total: 0, reports: [] });
      });

      it('pages by offset and limit, each report once, with the total of every page', async () => {
        const me = freshReporter();
        const ips = Array.from({ length: 7 }, () => freshV4());
        for (const [i, ip] of ips.entries()) await report(ip, me, T1 + i * MIN);
        const newestFirst = [...ips].reverse();
        const pages = [];
        for (let offset = 0; offset < 9; offset += 3) pages.push(await reportsBy(me, T1 + 10 * MIN, offset, 3));
        expect(pages.map((p) => p.total)).toEqual([7, 7, 7]);
        expect(pages.map((p) => p.reports.map((r) => r.ip))).toEqual([
          newestFirst.slice(0, 3),
          newestFirst.slice(3, 6),
          newestFirst.slice(6),
        ]);
        expect(await reportsBy(me, T1 + 10 * MIN, 7, 3)).toEqual({ total: 7, reports: [] });
        for (const page of [
          { offset: -1, limit: 10 },
          { offset: 0, limit: 0 },
          { offset: 0, limit: 101 },
          { offset: 1.5, limit: 10 },
          { offset: 0, limit: Number.NaN },
        ]) {
          await expect(store.blacklist.reportsBy(me, page, new Date(T1)), JSON.stringify(page)).rejects.toBeInstanceOf(RangeError);
        }
      });

      it("a deleted address takes its reports out of every reporter's list and total", async () => {
        const me = freshReporter();
        const [gone, kept] = [freshV4(), freshV4()];
        await report(gone, me, T1);
        await report(gone, me, T1 + 20 * MIN);
        await report(kept, me, T1 + 30 * MIN);
        expect((await reportsBy(me, T1 + 40 * MIN)).total).toBe(3);
        expect(await store.blacklist.deleteAddress(addr(gone), new Date(T1 + 40 * MIN))).toBe(2);
        // a page that does not reach the deleted reports: the total still leaves them out
        expect(await reportsBy(me, T1 + 40 * MIN, 0, 1)).toMatchObject({ total: 1, reports: [{ ip: kept }] });
        expect(await reportsBy(me, T1 + 40 * MIN)).toMatchObject({ total: 1, reports: [{ ip: kept }] });
      });

      it('withdrawing a report takes it out of the listing, the facts, the export and the list at once, and changes the version', async () => {
        const me = freshReporter();
        const other = freshReporter();
        const ip = freshV4();
        const now = T1 + 30 * MIN;
        await report(ip, me, T1, { threat_type: 'spam' });
        await report(ip, me, T1 + 5 * MIN, { threat_type: 'spam' });
        await report(ip, other, T1 + 10 * MIN, { threat_type: 'scanner' });
        await report(ip, me, T1 + 20 * MIN, { threat_type: 'spam' });
        expect((await listing(ip, now))!).toMatchObject({ total_reports: 3, distinct_reporters: 2, threat_type: 'spam' });
        const merged = (await reportsBy(me, now)).reports.find((r) => r.count === 2)!;
        const before = await store.blacklist.version();
        expect(await withdraw(me, merged.id, now)).toBe(true);
        const after = await store.blacklist.version();
        expect(after.seq).toBeGreaterThan(before.seq);
        expect(after.changed_at).toBe(now);
        expect(await listing(ip, now)).toMatchObject({ total_reports: 2, distinct_reporters: 2, first_seen: T1 + 10 * MIN });
        expect(await facts(ip, now)).toMatchObject({ is_threat: true, threat_reports: 2 });
        expect((await exported(everything, now)).find((r) => r.ip === ip)).toMatchObject({ total_reports: 2, first_seen: T1 + 10 * MIN });
        const left = await reportsBy(me, now);
        expect(left.total).toBe(1);
        expect(left.reports.map((r) => r.last_reported_at)).toEqual([iso(T1 + 20 * MIN)]);
        // gone: a second withdrawal finds nothing and changes nothing
        expect(await withdraw(me, merged.id, now)).toBe(false);
        expect(await store.blacklist.version()).toEqual(after);
      });

      it("only the reporter's own report inside the window can be withdrawn", async () => {
        const me = freshReporter();
        const other = freshReporter();
        const ip = freshV6();
        await report(ip, other, T1);
        const [theirs] = (await reportsBy(other, T1)).reports;
        const before = await store.blacklist.version();
        expect(await withdraw(me, theirs.id, T1)).toBe(false);
        expect(await store.blacklist.version()).toEqual(before);
        expect((await facts(ip, T1)).threat_reports).toBe(1);
        expect((await reportsBy(other, T1)).total).toBe(1);
        // Out of the retention window, a report is gone for its reporter too.
        expect(await withdraw(other, theirs.id, T1 + 91 * DAY_MS)).toBe(false);
        expect(await withdraw(other, theirs.id, T1)).toBe(true);
      });

      it('withdrawing the last report of an address unlists it', async () => {
        const me = freshReporter();
        const [ip, ip6] = [freshV4(), freshV6()];
        await report(ip, me, T1);
        await report(ip6, me, T1 + MIN);
        for (const r of (await reportsBy(me, T1 + MIN)).reports) expect(await withdraw(me, r.id, T1 + 2 * MIN)).toBe(true);
        for (const address of [ip, ip6]) {
          expect(await facts(address, T1 + 2 * MIN)).toMatchObject({ is_threat: false, threat_reports: 0 });
          expect(await listing(address, T1 + 2 * MIN)).toBeNull();
        }
        const rows = await exported(everything, T1 + 2 * MIN);
        expect(rows.map((r) => r.ip)).not.toContain(ip);
        expect(rows.map((r) => r.ip)).not.toContain(ip6);
        expect(await reportsBy(me, T1 + 2 * MIN)).toEqual({ total: 0, reports: [] });
        // listed again by a new report, as any address
        expect((await report(ip, me, T1 + 3 * MIN, { country_code: 'NL', isp: 'Again' })).facts.threat_reports).toBe(1);
        expect(await listing(ip, T1 + 3 * MIN)).toMatchObject({ total_reports: 1, country_code: 'NL', isp: 'Again' });
      });

      it('an unknown or malformed id withdraws nothing', async () => {
        const me = freshReporter();
        const ip = freshV4();
        await report(ip, me, T1);
        const [mine] = (await reportsBy(me, T1)).reports;
        const before = await store.blacklist.version();
        for (const id of [
          '',
          '0',
          '-1',
          '1.0',
          ' 1',
          'abc',
          `${mine.id}x`,
          `x${mine.id}`,
          `${mine.id}#1`,
          `${ip}#`,
          '9'.repeat(30),
          '#1',
        ]) {
          expect(await withdraw(me, id, T1), JSON.stringify(id)).toBe(false);
        }
        expect(await store.blacklist.version()).toEqual(before);
        expect((await reportsBy(me, T1)).total).toBe(1);
        expect((await facts(ip, T1)).threat_reports).toBe(1);
      });
    });

    it('admitReport keeps a sliding window per reporter', async () => {
      const now = T0;
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await store.blacklist.admitReport('rate-a', 3, 60_000, new Date(now + i)));
      expect(results).toEqual([true, true, true, false]);
      expect(await store.blacklist.admitReport('rate-b', 3, 60_000, new Date(now))).toBe(true);
      expect(await store.blacklist.admitReport('rate-a', 3, 60_000, new Date(now + 60_001))).toBe(true);
    });

    it('countDaily counts per bucket, client and UTC day up to the limit', async () => {
      const day = new Date('2026-05-01T23:59:00.000Z');
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(await store.blacklist.countDaily('mac', '203.0.113.9', 2, day));
      expect(seen.map((s) => [s.allowed, s.used])).toEqual([
        [true, 1],
        [true, 2],
        [false, 2],
      ]);
      expect(seen[0].resets_at.toISOString()).toBe('2026-05-02T00:00:00.000Z');
      expect((await store.blacklist.countDaily('check', '203.0.113.9', 2, day)).allowed).toBe(true);
      expect((await store.blacklist.countDaily('mac', '203.0.113.10', 2, day)).allowed).toBe(true);
      expect((await store.blacklist.countDaily('mac', '203.0.113.9', 2, new Date('2026-05-02T00:00:00.000Z'))).used).toBe(1);
    });

    it("uncountDaily gives back one count of the same day, never below zero and never another day's", async () => {
      const day = new Date('2026-06-01T12:00:00.000Z');
      const next = new Date('2026-06-02T00:00:01.000Z');
      await store.blacklist.countDaily('give-back', '203.0.113.20', 2, day);
      await store.blacklist.countDaily('give-back', '203.0.113.20', 2, day);
      expect((await store.blacklist.countDaily('give-back', '203.0.113.20', 2, day)).allowed).toBe(false);
      await store.blacklist.uncountDaily('give-back', '203.0.113.20', day);
      expect((await store.blacklist.countDaily('give-back', '203.0.113.20', 2, day)).used).toBe(2);
      await store.blacklist.uncountDaily('give-back', '203.0.113.21', day);
      expect((await store.blacklist.countDaily('give-back', '203.0.113.21', 2, day)).used).toBe(1);
      await store.blacklist.uncountDaily('give-back', '203.0.113.20', next);
      expect((await store.blacklist.countDaily('give-back', '203.0.113.20', 2, next)).used).toBe(1);
      expect((await store.blacklist.countDaily('give-back', '203.0.113.20', 2, day)).allowed).toBe(false);
    });
  });
}
