import { describe, expect, it } from 'vitest';
import { inputKindOf } from '../../src/address/inputKind.js';
import { answerInput, isIpInput } from '../../src/engine/typedInput.js';
import { ApiError } from '../../src/errors.js';

describe('inputKindOf', () => {
  it('takes the first kind whose parser takes the text: IP, then MAC, then an AS number', () => {
    const cases: [string, ReturnType<typeof inputKindOf>][] = [
      ['8.8.8.8', 'ip'],
      ['2001:db8::1', 'ip'],
      ['::ffff:1.2.3.4', 'ip'],
      ['00:00:0c:12:34:56', 'mac'],
      ['00-00-0C', 'mac'],
      ['0000.0c12.3456', 'mac'],
      // six bare digits are a MAC prefix, not an AS number
      ['123456', 'mac'],
      ['AS15169', 'asn'],
      ['as0', 'asn'],
      ['15169', null],
      ['AS', null],
      ['1.2.3', null],
      ['192.0.2.0/24', null],
      ['', null],
      ['example.com', null],
    ];
    for (const [text, kind] of cases) expect(inputKindOf(text), text).toBe(kind);
  });
});

describe('answerInput', () => {
  const engine = {
    lookupIp: (text: string) => ({ looked: `ip ${text}` }),
    lookupMac: (text: string) => {
      if (text.startsWith('ff')) throw new ApiError('unavailable', 'The MAC table is not loaded.');
      return { looked: `mac ${text}` };
    },
  };

  it('answers an IP and a MAC by their lookups, and anything else, an AS number too, as no kind', () => {
    expect(answerInput(engine, '8.8.8.8')).toEqual({ input: '8.8.8.8', kind: 'ip', looked: 'ip 8.8.8.8' });
    expect(answerInput(engine, '00:00:0c')).toEqual({ input: '00:00:0c', kind: 'mac', looked: 'mac 00:00:0c' });
    const neither = { code: 'invalid_input', message: 'Neither an IP address nor a MAC address or prefix.' };
    expect(answerInput(engine, 'AS15169')).toEqual({ input: 'AS15169', kind: 'invalid', error: neither });
    expect(answerInput(engine, 'nonsense')).toEqual({ input: 'nonsense', kind: 'invalid', error: neither });
    expect(answerInput(engine, 'ff:ff:ff')).toEqual({
      input: 'ff:ff:ff',
      kind: 'invalid',
      error: { code: 'unavailable', message: 'The MAC table is not loaded.' },
    });
    expect([isIpInput('2001:db8::1'), isIpInput('00:00:0c')]).toEqual([true, false]);
  });
});
