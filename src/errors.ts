/**
 * The error table of SPEC section 7: one code, one HTTP status, one default message.
 * Everything that refuses a request throws ApiError; the HTTP layer renders it in one place.
 */
export const errorTable = {
  invalid_ip: { status: 400, message: 'Not a valid IPv4 or IPv6 address.' },
  invalid_mac: { status: 400, message: 'A MAC address or prefix needs 6 to 12 hex digits.' },
  invalid_asn: { status: 400, message: 'An AS number is AS followed by a number from 1 to 4294967295 (AS15169), or the number alone.' },
  invalid_query: { status: 400, message: 'The search query needs at least 2 characters.' },
  empty_batch: { status: 400, message: 'The batch contains no addresses.' },
  batch_too_large: { status: 400, message: 'The batch has more addresses than the plan allows.' },
  unavailable: { status: 400, message: 'The database is temporarily unavailable; retry later.' },
  missing_key: { status: 401, message: 'No API key in the request.' },
  invalid_key: { status: 401, message: 'The API key is malformed, unknown or revoked.' },
  plan_required: { status: 402, message: 'This endpoint needs a paid plan.' },
  origin_not_allowed: { status: 403, message: 'This key is restricted to other websites.' },
  account_suspended: { status: 403, message: 'The account is suspended.' },
  not_found: { status: 404, message: 'Unknown endpoint.' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this endpoint.' },
  rate_limited: { status: 429, message: 'Per-second rate limit exceeded.' },
  quota_exceeded: { status: 429, message: 'Quota used up until the next reset.' },
  // Not in SPEC 7, which has no row for malformed request bodies; ours, in the same envelope.
  invalid_body: { status: 400, message: 'The request body is not valid JSON or form data.' },
  body_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Send the body as application/json or application/x-www-form-urlencoded.' },
  invalid_input: { status: 400, message: 'The request is not valid.' },
  reserved_ip: { status: 400, message: 'Private, loopback, documentation and other reserved addresses cannot be reported.' },
  invalid_report: { status: 400, message: 'The report is not valid.' },
  invalid_request: { status: 400, message: 'The request is not valid HTTP.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  expectation_failed: { status: 417, message: 'The only expectation this server meets is Expect: 100-continue.' },
  too_many_connections: { status: 503, message: 'The server has too many open connections; retry later.' },
  key_limit: { status: 409, message: "The plan's number of keys is reached." },
  admin_unauthorized: { status: 401, message: 'The admin token is missing or wrong.' },
  admin_throttled: { status: 429, message: 'Too many failed admin authentications from this address; retry later.' },
  session_required: { status: 401, message: 'Sign in to the dashboard first; the session has ended or never began.' },
  session_forbidden: { status: 403, message: 'This dashboard session cannot do that.' },
  sign_in_throttled: { status: 429, message: 'Too many failed dashboard sign-ins from this address; retry later.' },
  internal_error: { status: 500, message: 'Internal error.' },
} as const;

export type ErrorCode = keyof typeof errorTable;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** response headers that belong to this refusal (Retry-After, X-Quota-Reset, Allow) */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? errorTable[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorTable[code].status;
    this.headers = headers;
  }
}
