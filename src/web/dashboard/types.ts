/**
 * The JSON the dashboard's endpoints answer (docs/dashboard.md), as the page reads it. Declared
 * here rather than imported from the service: src/web is bundled for the browser and imports
 * nothing from the service's layers.
 */

export interface Session {
  kind: 'account' | 'operator';
  account_id: string | null;
  key_id: string | null;
  expires_at: string;
}

interface Account {
  id: string;
  email: string | null;
  created_at: string;
  suspended: boolean;
}

/** An account in the operator's list: the store's record, plan and expiry included. */
export interface ListedAccount extends Account {
  plan: string;
  expires_at: string | null;
}

export interface Plan {
  code: string;
  name: string;
  expires_at: string | null;
  rate_limit_per_second: number;
  max_keys: number;
  batch_size: number;
}

interface Today {
  ip: number;
  blacklist: number;
  mac: number;
  rejected: number;
}

/** Exactly the GET /v1/usage record (SPEC 2.7): daily_quota on free, monthly_quota on paid plans. */
export interface Usage {
  plan: { code: string; name: string; expires_at: string | null };
  rate_limit_per_second: number;
  today: Today;
  daily_quota?: { ip: number; blacklist: number; mac: number };
  monthly_quota?: { limit: number; used: number; remaining: number };
}

export interface DailyUsage extends Today {
  /** YYYY-MM-DD, UTC */
  date: string;
}

export type Attribution = { required: false } | { required: true; text: string; html: string };

export interface Key {
  id: string;
  name: string;
  websites: string[];
  created_at: string;
  rolled_at: string | null;
  last_used_at: string | null;
}

/** A key in the answer that created or rolled it: its secret, shown once. */
export interface KeyWithSecret extends Key {
  secret: string;
}

export interface Report {
  id: string;
  ip: string;
  threat_type: string;
  message: string | null;
  source: string;
  reported_at: string;
  last_reported_at: string;
  count: number;
}

export interface AccountOverview {
  account: Account;
  plan: Plan;
  usage: Usage;
  attribution: Attribution;
}

export interface AccountDetail {
  account: Account;
  plan: Plan;
  keys: Key[];
  usage: Usage;
  days: DailyUsage[];
}
