/** Query parameters as the endpoints read them: a repeated parameter counts by its first value. */
import type { Context } from 'koa';

export function firstQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[0] : value;
}
