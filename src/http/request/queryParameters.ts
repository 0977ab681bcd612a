/** Query parameters as the endpoints read them: a repeated parameter counts by its first value. */
import type { Context } from 'koa';

/** A parameter's first value as a whole number; `absent` when not given, null when not a whole number. */
export function wholeNumber(value: string | string[] | undefined, absent: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return absent;
  return /^\d{1,10}$/.test(text) ? Number(text) : null;
}

export function firstQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[0] : value;
}
