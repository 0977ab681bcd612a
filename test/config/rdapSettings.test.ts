/** The RDAP settings from the environment (src/config/rdapSettings.ts): defaults, values read, values refused naming the variable. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rdapSettingsFromEnv } from '../../src/config/rdapSettings.js';

describe('rdapSettingsFromEnv', () => {
  it('is on with a 300 ms deadline, 60 queries a minute and a cache in the data directory by default', () => {
    const expected = { enabled: true, deadlineMs: 300, perMinute: 60, cacheFile: path.resolve('/srv/netlookup/rdap-cache.sqlite') };
    expect(rdapSettingsFromEnv({}, '/srv/netlookup')).toEqual(expected);
    expect(rdapSettingsFromEnv({ NETLOOKUP_RDAP: '', NETLOOKUP_RDAP_RATE: '' }, '/srv/netlookup')).toEqual(expected);
  });

  it('reads what is set, at its bounds', () => {
    const env = {
      NETLOOKUP_RDAP: 'off',
      NETLOOKUP_RDAP_DEADLINE_MS: '5000',
      NETLOOKUP_RDAP_RATE: '600',
      NETLOOKUP_RDAP_CACHE: '/var/cache/rdap.db',
    };
    expect(rdapSettingsFromEnv(env, '/srv')).toEqual({ enabled: false, deadlineMs: 5000, perMinute: 600, cacheFile: '/var/cache/rdap.db' });
    expect(rdapSettingsFromEnv({ NETLOOKUP_RDAP: 'on', NETLOOKUP_RDAP_DEADLINE_MS: '10', NETLOOKUP_RDAP_RATE: '1' }, '/srv')).toMatchObject(
      {
        enabled: true,
        deadlineMs: 10,
        perMinute: 1,
      },
    );
  });

  it.each([
    ['NETLOOKUP_RDAP', 'yes'],
    ['NETLOOKUP_RDAP_DEADLINE_MS', '9'],
    ['NETLOOKUP_RDAP_DEADLINE_MS', '5001'],
    ['NETLOOKUP_RDAP_DEADLINE_MS', '1e3'],
    ['NETLOOKUP_RDAP_RATE', '0'],
    ['NETLOOKUP_RDAP_RATE', '601'],
    ['NETLOOKUP_RDAP_CACHE', 'cache\n.sqlite'],
  ])('refuses %s=%j, naming it', (name, value) => {
    expect(() => rdapSettingsFromEnv({ [name]: value }, '/srv')).toThrow(name);
  });
});
