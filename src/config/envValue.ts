/**
 * The strict reading of one environment variable, shared by every setting read at start
 * (config.ts, dnsSettings.ts), and its common form, a whole number in bounds: a refused value stops
 * the start with a message naming the variable.
 */

/** A configuration value refused at start; the message names the variable (and shows the value unless it is secret). */
class ConfigError extends Error {
  constructor(name: string, text: string, expected: string, secret = false) {
    super(`${name}=${secret ? `(${text.length} characters, not shown)` : JSON.stringify(text)} is refused: ${expected}`);
    this.name = 'ConfigError';
  }
}

/**
 * The shared strict reading of one variable: undefined when unset (or empty), else `parse`'s value;
 * `parse` returns undefined to refuse, and the start stops with a message naming the variable.
 * `secret`: the value (a token, a URL with a password) stays out of the message.
 */
export function envValue<T>(
  env: NodeJS.ProcessEnv,
  name: string,
  expected: string,
  parse: (text: string) => T | undefined,
  secret = false,
): T | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  let value: T | undefined;
  try {
    value = parse(text);
  } catch (error) {
    throw new ConfigError(name, text, secret ? expected : `${expected} (${(error as Error).message})`, secret);
  }
  if (value === undefined) throw new ConfigError(name, text, expected, secret);
  return value;
}

/** A whole number in [min, max], plain decimal digits ("0x10", "1e3", "+5", " 5" are refused). */
export function wholeNumber(min: number, max: number) {
  return (text: string) => {
    if (!/^(?:0|[1-9]\d{0,8})$/.test(text)) return undefined;
    const value = Number(text);
    return value >= min && value <= max ? value : undefined;
  };
}

/** A character below U+0020 or U+007F (DEL): no path, URL or token holds one. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
