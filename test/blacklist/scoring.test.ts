/**
 * The confidence formula (src/blacklist/scoring.ts) and its properties: bounded, monotone in
 * reporters and in recency, grows with reports, a single old report scores low; the anchored sums
 * the stores keep give the same result as the plain definition.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateReports, type ReportTimes } from '../../src/blacklist/aggregate.js';
import {
  confidenceOf,
  confidenceOfReports,
  DAY_MS,
  DEFAULT_EXPORT_MIN_CONFIDENCE,
  HALF_LIFE_MS,
  REPEAT_WEIGHT,
  SINGLE_REPORTER_CEILING,
} from '../../src/blacklist/scoring.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const WINDOW = 90 * DAY_MS;

const reportArb = fc.record({
  reporter: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
  age: fc.integer({ min: 0, max: WINDOW }),
});
const reportsArb = fc.array(reportArb, { minLength: 1, maxLength: 30 });

/** The plain definition: E = R + β·min(N − R, R) at `now`, from report ages. */
function score(reports: { reporter: string; age: number }[]): number {
  const times = reports.map((r) => NOW - r.age);
  const latest = new Map<string, number>();
  for (const r of reports) latest.set(r.reporter, Math.max(latest.get(r.reporter) ?? -Infinity, NOW - r.age));
  return confidenceOfReports(times, [...latest.values()], NOW);
}

function rows(reports: { reporter: string; age: number }[]): ReportTimes[] {
  return reports.map((r) => ({ reporter: r.reporter, threat_type: 'spam', created_at: NOW - r.age, last_at: NOW - r.age }));
}

describe('confidence', () => {
  it('documented figures: one fresh report 39, two reporters 63, five 92; one report 30 days old 11, 90 days old 1', () => {
    expect(score([{ reporter: 'a', age: 0 }])).toBe(39);
    expect(
      score([
        { reporter: 'a', age: 0 },
        { reporter: 'b', age: 0 },
      ]),
    ).toBe(63);
    expect(score(['a', 'b', 'c', 'd', 'e'].map((reporter) => ({ reporter, age: 0 })))).toBe(92);
    expect(score([{ reporter: 'a', age: 30 * DAY_MS }])).toBe(11);
    expect(score([{ reporter: 'a', age: 90 * DAY_MS }])).toBe(1);
    expect(
      score([
        { reporter: 'a', age: 0 },
        { reporter: 'a', age: 16 * 60_000 },
      ]),
    ).toBe(46);
  });

  it('is bounded: an integer from 0 to 100', () => {
    fc.assert(
      fc.property(reportsArb, (reports) => {
        const c = score(reports);
        return Number.isInteger(c) && c >= 0 && c <= 100;
      }),
    );
    expect(score(Array.from({ length: 500 }, (_, i) => ({ reporter: `r${i}`, age: 0 })))).toBe(100);
  });

  it('grows (never falls) with one more report, and more when it comes from a new reporter', () => {
    fc.assert(
      fc.property(reportsArb, fc.integer({ min: 0, max: WINDOW }), (reports, age) => {
        const base = score(reports);
        const repeat = score([...reports, { reporter: reports[0].reporter, age }]);
        const fresh = score([...reports, { reporter: 'new', age }]);
        return repeat >= base && fresh >= repeat;
      }),
    );
  });

  it('is monotone in distinct reporters: the same reports spread over more reporters score at least as high', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: WINDOW }), { minLength: 2, maxLength: 20 }), (ages) => {
        const one = score(ages.map((age) => ({ reporter: 'a', age })));
        const many = score(ages.map((age, i) => ({ reporter: `r${i}`, age })));
        return many >= one;
      }),
    );
  });

  it('is monotone in recency: a more recent report scores at least as high; time passing never raises it', () => {
    fc.assert(
      fc.property(reportsArb, fc.nat({ max: 30 }), fc.integer({ min: 1, max: 30 * DAY_MS }), (reports, index, shift) => {
        const i = index % reports.length;
        const newer = reports.map((r, j) => (j === i ? { ...r, age: Math.max(0, r.age - shift) } : r));
        const older = reports.map((r) => ({ ...r, age: r.age + shift }));
        return score(newer) >= score(reports) && score(older) <= score(reports);
      }),
    );
  });

  it('a single report scores low once old: under 15 after four weeks, never above 39', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: WINDOW }), (age) => score([{ reporter: 'a', age }]) <= 39));
    fc.assert(fc.property(fc.integer({ min: 28 * DAY_MS, max: WINDOW }), (age) => score([{ reporter: 'a', age }]) < 15));
  });

  it('the anchored sums of aggregateReports give the plain definition at any later instant', () => {
    fc.assert(
      fc.property(reportsArb, fc.integer({ min: 0, max: 60 * DAY_MS }), (reports, later) => {
        const a = aggregateReports(rows(reports))!;
        const viaSums = confidenceOf(a.reportsAtAnchor, a.reportersAtAnchor, a.lastAt, NOW + later);
        const plain = confidenceOfReports(
          rows(reports).map((r) => r.last_at),
          [...new Map(reports.map((r) => [r.reporter, 0])).keys()].map((who) =>
            Math.max(
              ...rows(reports)
                .filter((r) => r.reporter === who)
                .map((r) => r.last_at),
            ),
          ),
          NOW + later,
        );
        return viaSums === plain && a.reports === reports.length && a.reporters === new Set(reports.map((r) => r.reporter)).size;
      }),
    );
  });

  it('one reporter alone never passes the single-reporter ceiling, which stays under the default export threshold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: WINDOW }), { minLength: 1, maxLength: 200 }),
        (ages) => score(ages.map((age) => ({ reporter: 'a', age }))) <= SINGLE_REPORTER_CEILING,
      ),
    );
    // A report every 16 minutes for 90 days, all fresh: the most one reporter can send.
    expect(score(Array.from({ length: 8100 }, (_, i) => ({ reporter: 'a', age: i * 16 * 60_000 })))).toBe(SINGLE_REPORTER_CEILING);
    expect(score(Array.from({ length: 50 }, () => ({ reporter: 'a', age: 0 })))).toBe(SINGLE_REPORTER_CEILING);
    expect(SINGLE_REPORTER_CEILING).toBe(Math.round(100 * (1 - Math.exp(-(1 + REPEAT_WEIGHT) / 2))));
    expect(DEFAULT_EXPORT_MIN_CONFIDENCE).toBeGreaterThan(SINGLE_REPORTER_CEILING);
    // Two fresh reporters pass it: confirmation by a second account is what exports an address.
    expect(
      score([
        { reporter: 'a', age: 0 },
        { reporter: 'b', age: 0 },
      ]),
    ).toBeGreaterThanOrEqual(DEFAULT_EXPORT_MIN_CONFIDENCE);
  });

  it('grows with distinct reporters without bound below 100: k fresh reporters with many repeats each', () => {
    const scores = [1, 2, 3, 5, 8].map((k) =>
      score(Array.from({ length: 10 * k }, (_, i) => ({ reporter: `r${i % k}`, age: (i % 10) * DAY_MS }))),
    );
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeGreaterThan(scores[i - 1]);
  });

  it('uses the documented constants', () => {
    expect(HALF_LIFE_MS).toBe(14 * DAY_MS);
    expect(REPEAT_WEIGHT).toBe(0.25);
  });
});

describe('aggregates', () => {
  it('threat type: the most reported; a tie goes to the type reported last', () => {
    const at = (t: number) => ({ created_at: t, last_at: t });
    expect(
      aggregateReports([
        { reporter: 'a', threat_type: 'spam', ...at(1) },
        { reporter: 'b', threat_type: 'bot', ...at(2) },
        { reporter: 'c', threat_type: 'spam', ...at(3) },
      ])!.threatType,
    ).toBe('spam');
    expect(
      aggregateReports([
        { reporter: 'a', threat_type: 'spam', ...at(1) },
        { reporter: 'b', threat_type: 'bot', ...at(2) },
      ])!.threatType,
    ).toBe('bot');
    expect(aggregateReports([])).toBeNull();
  });
});
