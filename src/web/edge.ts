/**
 * An edge function: answers country and AS of the caller's address from the compact IP set, in
 * the shape edge runtimes run (`export default { fetch(request, env) }`, Web APIs only).
 *
 * The assets (netlookup.wasm and tables/ip4c.nlt.gz, tables/ip6c.nlt.gz, as the demo serves them) are
 * fetched once per isolate from `env.NETLOOKUP_ASSETS`, default: beside this module. The caller's
 * address is the runtime's: CF-Connecting-IP, else X-Real-IP, else the first X-Forwarded-For entry
 * (set by the platform's proxy, not by the client, on the runtimes this is meant for).
 */
import type { CompactEngine } from '../engine/compactEngine.js';
import { ApiError, errorTable, type ErrorCode } from '../errors.js';
import { loadCompactEngine } from './index.js';

export interface EdgeEnv {
  /** base URL of netlookup.wasm and tables/ (ending in a slash) */
  NETLOOKUP_ASSETS?: string;
}

export function callerAddress(request: Request): string | null {
  const h = request.headers;
  const address = h.get('cf-connecting-ip') ?? h.get('x-real-ip') ?? h.get('x-forwarded-for')?.split(',')[0];
  return address?.trim() || null;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function refusal(code: ErrorCode, message: string = errorTable[code].message): Response {
  return json(errorTable[code].status, { success: false, error: { code, message } });
}

/** The fetch handler over an engine (loaded on first use, kept while it serves). */
export function edgeHandler(engine: () => Promise<CompactEngine>): { fetch(request: Request): Promise<Response> } {
  return {
    async fetch(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return refusal('method_not_allowed');
      const address = callerAddress(request);
      if (!address) return refusal('invalid_ip', 'The runtime gave no caller address.');
      let answer;
      try {
        answer = (await engine()).lookupIp(address);
      } catch (error) {
        if (error instanceof ApiError) return refusal(error.code, error.message);
        throw error;
      }
      return json(200, {
        success: true,
        ip: answer.ip,
        version: answer.version,
        status: answer.status,
        country_code: answer.country_code,
        country: answer.country?.name ?? null,
        asn: answer.network?.asn ?? null,
        organization: answer.network?.organization ?? null,
      });
    },
  };
}

const engines = new Map<string, Promise<CompactEngine>>();

/** One engine per asset base; a failed load is forgotten, so that the next request retries. */
function engineAt(base: string): Promise<CompactEngine> {
  let loading = engines.get(base);
  if (!loading) {
    loading = loadCompactEngine({
      wasm: new URL('netlookup.wasm', base),
      ip4: new URL('tables/ip4c.nlt.gz', base),
      ip6: new URL('tables/ip6c.nlt.gz', base),
    });
    loading.catch(() => engines.delete(base));
    engines.set(base, loading);
  }
  return loading;
}

export default {
  fetch(request: Request, env: EdgeEnv = {}): Promise<Response> {
    const base = env.NETLOOKUP_ASSETS ?? new URL('./', import.meta.url).href;
    return edgeHandler(() => engineAt(base)).fetch(request);
  },
};
