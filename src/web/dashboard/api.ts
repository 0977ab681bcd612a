/**
 * The client of /dashboard/api: one function per endpoint of docs/dashboard.md. The session is the
 * HttpOnly cookie the browser sends by itself (same origin); the page never sees or keeps a secret
 * except a new key's, which it shows once. Every request that changes something is JSON, as the
 * server requires of them (a cross-site form cannot send that).
 */
import type { AccountDetail, AccountOverview, DailyUsage, Key, KeyWithSecret, ListedAccount, Report, Session } from './types.js';

const BASE = '/dashboard/api';

/** A refusal in the error envelope, or a failure to reach the service at all (status 0). */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** seconds, from Retry-After */
    readonly retryAfter: number | null,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(BASE + path, {
      method,
      credentials: 'same-origin',
      headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new RequestError(0, 'network', 'The service could not be reached; check the connection and try again.', null);
  }
  const answer = (await response.json().catch(() => null)) as { success?: boolean; error?: { code: string; message: string } } | null;
  if (!response.ok || answer?.success !== true) {
    const retry = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
    throw new RequestError(
      response.status,
      answer?.error?.code ?? 'unavailable',
      answer?.error?.message ?? `The service answered ${response.status} ${response.statusText}.`,
      Number.isFinite(retry) ? retry : null,
    );
  }
  return answer as T;
}

const id = (value: string) => encodeURIComponent(value);

export const getSession = () => request<{ session: Session }>('GET', '/session').then((a) => a.session);
export const signIn = (credentials: { key: string } | { admin_token: string }) =>
  request<{ session: Session }>('POST', '/session', credentials).then((a) => a.session);
export const signOut = () => request<unknown>('DELETE', '/session');

export const getAccount = () => request<AccountOverview>('GET', '/account');
export const getHistory = (days = 90) => request<{ days: DailyUsage[] }>('GET', `/usage/history?days=${days}`).then((a) => a.days);
export const getKeys = () => request<{ keys: Key[]; max_keys: number }>('GET', '/keys');
export const createKey = (input: { name: string; websites: string[] }) =>
  request<{ key: KeyWithSecret }>('POST', '/keys', input).then((a) => a.key);
export const updateKey = (keyId: string, patch: { name?: string; websites?: string[] }) =>
  request<{ key: Key }>('PATCH', `/keys/${id(keyId)}`, patch).then((a) => a.key);
export const rollKey = (keyId: string) => request<{ key: KeyWithSecret }>('POST', `/keys/${id(keyId)}/roll`).then((a) => a.key);
export const deleteKey = (keyId: string) => request<unknown>('DELETE', `/keys/${id(keyId)}`);
export const getReports = (offset: number, limit: number) =>
  request<{ total: number; reports: Report[] }>('GET', `/reports?offset=${offset}&limit=${limit}`);
export const withdrawReport = (reportId: string) => request<unknown>('DELETE', `/reports/${id(reportId)}`);

export const listAccounts = (search: string, offset: number, limit: number) =>
  request<{ total: number; accounts: ListedAccount[] }>(
    'GET',
    `/admin/accounts?${new URLSearchParams({ search, offset: String(offset), limit: String(limit) })}`,
  );
export const getAccountDetail = (accountId: string) => request<AccountDetail>('GET', `/admin/accounts/${id(accountId)}`);
export const updateAccount = (accountId: string, patch: { plan?: string; expires_at?: string | null; suspended?: boolean }) =>
  request<{ account: ListedAccount }>('PATCH', `/admin/accounts/${id(accountId)}`, patch).then((a) => a.account);
export const adminRollKey = (keyId: string) => request<{ key: KeyWithSecret }>('POST', `/admin/keys/${id(keyId)}/roll`).then((a) => a.key);
export const adminDeleteKey = (keyId: string) => request<unknown>('DELETE', `/admin/keys/${id(keyId)}`);
export const removeFromBlacklist = (ip: string) => request<{ ip: string; deleted_reports: number }>('DELETE', `/admin/blacklist/${id(ip)}`);
