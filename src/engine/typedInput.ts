/**
 * The answer for a typed input: an IP address is looked up as an IP, a MAC address or prefix as
 * a MAC (inputKindOf tells which); anything else and refusals become an error object beside the input. One place for the web
 * build and the demo page, so that they answer alike.
 */
import { ApiError } from '../errors.js';
import { inputKindOf } from '../address/inputKind.js';

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

export function isIpInput(text: string): boolean {
  return inputKindOf(text) === 'ip';
}

const NO_KIND: InputError['error'] = { code: 'invalid_input', message: 'Neither an IP address nor a MAC address or prefix.' };

export function answerInput<I extends object, M extends object>(engine: InputLookups<I, M>, input: string): InputAnswer<I, M> {
  const kind = inputKindOf(input);
  // an AS number is no kind here: these engines answer IP addresses and MAC blocks only
  if (kind !== 'ip' && kind !== 'mac') return { input, kind: 'invalid', error: { ...NO_KIND } };
  try {
    if (kind === 'ip') return { input, kind, ...engine.lookupIp(input) };
    return { input, kind, ...engine.lookupMac(input) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { input, kind: 'invalid', error: { code: error.code, message: error.message } };
  }
}

/** Many inputs pasted at once: separated by white space, commas or semicolons. */
export function splitInputs(text: string): string[] {
  return text.split(/[\s,;]+/).filter((part) => part.length > 0);
}
