import { describe, expect, it } from 'vitest';
import { coverage, ruleAgreement } from './asnCoverage.js';

const share = (part: bigint, ...all: bigint[]) => Number((part * 1_000_000n) / all.reduce((a, b) => a + b)) / 1_000_000;

describe('connection type coverage of the installed ASN data', () => {
  it('leaves at most 15% of the IPv4 addresses with an AS untyped', () => {
    const c = coverage(4);
    expect(share(c.none, c.curated, c.rule, c.none)).toBeLessThanOrEqual(0.15);
    // the curated rows carry most of it; rules only fill the long tail
    expect(share(c.curated, c.curated, c.rule, c.none)).toBeGreaterThan(0.75);
  });

  it('leaves at most 30% of the IPv6 addresses with an AS untyped, counted in addresses and in /48s', () => {
    const c = coverage(6);
    expect(share(c.none, c.curated, c.rule, c.none)).toBeLessThanOrEqual(0.3);
    expect(share(c.none48, c.curated48, c.rule48, c.none48)).toBeLessThanOrEqual(0.3);
  });

  it('gives by name rule the type a curated row gives, for most curated ASNs the rules also match', () => {
    // the curated rows were classified by hand, one by one: an independent check of the rules' precision
    const { matched, agreeing } = ruleAgreement();
    expect(matched).toBeGreaterThan(150);
    expect(agreeing / matched).toBeGreaterThanOrEqual(0.85);
  });
});
