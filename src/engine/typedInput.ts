/**
 * The answer for a typed input: an IP address is looked up as an IP, anything else as a MAC
 * address or prefix; refusals become an error object beside the input. One place for the web
 * build and the demo page, so that they answer alike.
 */
import { ApiError } from '../errors.js';
import { parseIPv4, parseIPv6 } from '../address/ipAddress.js';

export interface InputLookups<I, M> {
  lookupIp(text: string): I;
  lookupMac(text: string): M;
}

interface InputError {
  input: string;
  error: { code: string; message: string };
}

export type InputAnswer<I, M> =
  ({ input: string; kind: 'ip' } & I) | ({ input: string; kind: 'mac' } & M) | ({ kind: 'invalid' } & InputError);

const words = new Uint32Array(4);

export function isIpInput(text: string): boolean {
  return parseIPv4(text) >= 0 || parseIPv6(text, words);
}

export function answerInput<I extends object, M extends object>(engine: InputLookups<I, M>, input: string): InputAnswer<I, M> {
  try {
    if (isIpInput(input)) return { input, kind: 'ip', ...engine.lookupIp(input) };
    return { input, kind: 'mac', ...engine.lookupMac(input) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const code = error.code === 'invalid_mac' ? 'invalid_input' : error.code;
    const message = error.code === 'invalid_mac' ? 'Neither an IP address nor a MAC address or prefix.' : error.message;
    return { input, kind: 'invalid', error: { code, message } };
  }
}

/** Many inputs pasted at once: separated by white space, commas or semicolons. */
export function splitInputs(text: string): string[] {
  return text.split(/[\s,;]+/).filter((part) => part.length > 0);
}
