/** `netlookup lookup AS15169`: the AS record of the full level with every prefix, offline; invalid_asn beside a bad input. */
import { describe, expect, it } from 'vitest';
import { runCli } from './cliProcess.js';

describe('netlookup lookup with AS numbers', () => {
  it('prints the AS record with all its prefixes, found false for an unknown AS and invalid_asn for AS0', async () => {
    const run = await runCli(['lookup', '--no-pretty', 'AS15169', 'as4294967295', 'AS0'], { ...process.env });
    const [google, unknown, invalid] = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // the installed ASN data names Google's organisation, not its registered AS name (GOOGLE): name stays null
    expect(google).toMatchObject({ success: true, asn: 15169, found: true, name: null, organization: 'Google LLC', country_code: 'US' });
    expect(google.prefixes.total).toBe(google.ipv4.prefixes + google.ipv6.prefixes);
    expect(google.prefixes.results).toHaveLength(google.prefixes.total);
    expect(unknown).toMatchObject({ success: true, asn: 4294967295, found: false });
    expect(invalid).toEqual({ success: false, error: { code: 'invalid_asn', message: expect.stringMatching(/AS15169/) } });
    expect(run.code).toBe(1);
  });
});
