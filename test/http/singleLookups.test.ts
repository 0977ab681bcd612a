/** Which paths the single lookups' hot path takes, and which it leaves to the router. */
import { describe, expect, it } from 'vitest';
import { singleLookupOf } from '../../src/http/singleLookups.js';

describe('singleLookupOf', () => {
  it('takes addresses and MACs in every accepted form, decoded as the router decodes them', () => {
    expect(singleLookupOf('/v1/ip/8.8.8.8')).toEqual({ route: '/v1/ip/:ip', param: '8.8.8.8' });
    expect(singleLookupOf('/v1/ip/2001:db8::1')).toEqual({ route: '/v1/ip/:ip', param: '2001:db8::1' });
    expect(singleLookupOf('/v1/ip/%3A%3A1')).toEqual({ route: '/v1/ip/:ip', param: '::1' });
    expect(singleLookupOf('/v1/ip/%E0.1')).toEqual({ route: '/v1/ip/:ip', param: '%E0.1' });
    expect(singleLookupOf('/v1/blacklist/1.2.3.4')).toEqual({ route: '/v1/blacklist/:ip', param: '1.2.3.4' });
    for (const mac of ['00:50:56:12:34:56', '00-50-56-12-34-56', '0050.5612.3456', '005056123456', '005056'])
      expect(singleLookupOf(`/v1/mac/${mac}`)).toEqual({ route: '/v1/mac/:mac', param: mac });
  });

  it('leaves the named routes beside them, trailing slashes and other input to the router', () => {
    for (const path of ['/v1/ip/batch', '/v1/blacklist/batch', '/v1/blacklist/report', '/v1/blacklist/export', '/v1/mac/search', '/v1/ip/', '/v1/ip', '/v1/ip/8.8.8.8/', '/v1/ip/not-an-ip', '/v1/mac/zz', '/v1/usage', '/v1/ip/8.8.8.8/x'])
      expect(singleLookupOf(path), path).toBeNull();
  });
});
