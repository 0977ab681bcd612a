/** OpenAPI schemas and paths of the admin router: accounts, keys, and deletion of an address's blacklist reports. */
import type { ErrorCode } from '../../errors.js';
import { SECRET_PREFIX } from '../../store/apiKeySecret.js';
import type { Account, ApiKey, KeyWithSecret } from '../../store/store.js';
import { planCodes } from '../../plans/plans.js';
import {
  DATE_TIME,
  arrayOf,
  bool,
  constant,
  record,
  ref,
  shape,
  str,
  strOrNull,
  stringEnum,
  type JsonSchema,
  type Properties,
} from '../../records/jsonSchema.js';
import {
  common,
  errorResponses,
  json,
  operation,
  param,
  type OperationInput,
  type SecurityRequirement,
} from '../openapi/openApiComponents.js';

const adminSecurity: SecurityRequirement[] = [{ AdminToken: [] }];
const adminErrors: ErrorCode[] = [
  'admin_unauthorized',
  'admin_throttled',
  'invalid_body',
  'body_too_large',
  'unsupported_media_type',
  'unavailable',
  'internal_error',
];

export function adminSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const accountId = str('account id', { pattern: '^acc_[0-9a-f]+$' });
  const keyId = str('key id', { pattern: '^key_[0-9a-f]+$' });
  schemas.Account = record<Account>('An account.', {
    id: accountId,
    plan: stringEnum(planCodes),
    expires_at: strOrNull('expiry of a paid plan; null: none', DATE_TIME),
    suspended: bool(),
    email: strOrNull(),
    created_at: str(undefined, DATE_TIME),
  });
  const keyProperties: Properties<ApiKey> = {
    id: keyId,
    account_id: accountId,
    name: str(undefined, { minLength: 1, maxLength: 100 }),
    websites: arrayOf(str(), 'allowed hosts (example.com, *.example.com); empty: any origin'),
    created_at: str(undefined, DATE_TIME),
    rolled_at: strOrNull(undefined, DATE_TIME),
    last_used_at: strOrNull(
      'when a request last authenticated with the key, to the minute (written in bulk: may lag by seconds); null: never',
      DATE_TIME,
    ),
  };
  schemas.ApiKey = record<ApiKey>('A key as the store shows it: never its secret.', keyProperties);
  schemas.KeyWithSecret = record<KeyWithSecret>('A key with its secret, shown only when the secret is created.', {
    ...keyProperties,
    secret: str('the API key', { pattern: `^${SECRET_PREFIX}[0-9a-f]{40}$` }),
  });
  schemas.AccountCreated = shape('A new account and its first key.', { account: ref('Account'), key: ref('KeyWithSecret') });
  schemas.AccountWithKeys = shape('An account and its keys.', { account: ref('Account'), keys: arrayOf(ref('ApiKey')) });
  schemas.AccountResponse = shape('An account.', { account: ref('Account') });
  schemas.KeyResponse = shape('A key (without secret).', { key: ref('ApiKey') });
  schemas.KeySecretResponse = shape('A key with its new secret.', { key: ref('KeyWithSecret') });
  schemas.KeyDeleted = shape('A deleted key.', { success: constant(true), deleted: keyId });
  return schemas;
}

export function adminRequestSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const plan = stringEnum(planCodes);
  const expiry = strOrNull('ISO 8601 date; null: no expiry', DATE_TIME);
  schemas.NewAccount = { type: 'object', properties: { plan: { ...plan, default: 'free' }, expires_at: expiry, email: strOrNull() } };
  schemas.AccountPatch = { type: 'object', properties: { plan, expires_at: expiry, suspended: bool(), email: strOrNull() } };
  schemas.NewKey = {
    type: 'object',
    properties: { name: str('default: key', { minLength: 1, maxLength: 100 }), websites: arrayOf(str()) },
  };
  schemas.KeyPatch = { type: 'object', properties: { name: str(undefined, { minLength: 1, maxLength: 100 }), websites: arrayOf(str()) } };
  return schemas;
}

function adminOperation(
  method: string,
  path: string,
  input: Omit<OperationInput, 'security' | 'tags'> & { extraErrors: ErrorCode[] },
): JsonSchema {
  const { extraErrors, responses, ...rest } = input;
  return operation(method, path, {
    ...rest,
    tags: ['admin'],
    security: adminSecurity,
    parameters: [...(rest.parameters ?? []), ...common],
    responses: { ...responses, ...errorResponses([...adminErrors, ...extraErrors]) },
  });
}

const adminBody = (schemaName: string): JsonSchema => ({ required: false, content: { 'application/json': { schema: ref(schemaName) } } });

export function adminPaths(): Record<string, Record<string, JsonSchema>> {
  return {
    '/admin/accounts': {
      post: adminOperation('post', '/admin/accounts', {
        operationId: 'adminCreateAccount',
        summary: 'Create an account and its first key',
        requestBody: adminBody('NewAccount'),
        responses: { '201': json('the account and its first key (the secret is shown only here)', ref('AccountCreated')) },
        extraErrors: ['invalid_input'],
      }),
    },
    '/admin/accounts/{id}': {
      get: adminOperation('get', '/admin/accounts/{id}', {
        operationId: 'adminGetAccount',
        summary: 'An account and its keys',
        parameters: [param('accountId')],
        responses: { '200': json('the account and its keys', ref('AccountWithKeys')) },
        extraErrors: ['not_found'],
      }),
      patch: adminOperation('patch', '/admin/accounts/{id}', {
        operationId: 'adminUpdateAccount',
        summary: 'Change plan, expiry, suspension or email',
        parameters: [param('accountId')],
        requestBody: adminBody('AccountPatch'),
        responses: { '200': json('the changed account', ref('AccountResponse')) },
        extraErrors: ['invalid_input', 'not_found'],
      }),
    },
    '/admin/accounts/{id}/keys': {
      post: adminOperation('post', '/admin/accounts/{id}/keys', {
        operationId: 'adminCreateKey',
        summary: "Create a key (up to the plan's number of keys)",
        parameters: [param('accountId')],
        requestBody: adminBody('NewKey'),
        responses: { '201': json('the new key with its secret', ref('KeySecretResponse')) },
        extraErrors: ['invalid_input', 'not_found', 'key_limit'],
      }),
    },
    '/admin/keys/{id}': {
      patch: adminOperation('patch', '/admin/keys/{id}', {
        operationId: 'adminUpdateKey',
        summary: 'Rename a key or change its website list',
        parameters: [param('keyId')],
        requestBody: adminBody('KeyPatch'),
        responses: { '200': json('the changed key', ref('KeyResponse')) },
        extraErrors: ['invalid_input', 'not_found'],
      }),
      delete: adminOperation('delete', '/admin/keys/{id}', {
        operationId: 'adminDeleteKey',
        summary: 'Delete (revoke) a key',
        parameters: [param('keyId')],
        responses: { '200': json('the deleted key id', ref('KeyDeleted')) },
        extraErrors: ['not_found'],
      }),
    },
    '/admin/keys/{id}/roll': {
      post: adminOperation('post', '/admin/keys/{id}/roll', {
        operationId: 'adminRollKey',
        summary: 'Replace the secret of a key (name and websites stay; the old secret stops working at once)',
        parameters: [param('keyId')],
        responses: { '200': json('the key with its new secret', ref('KeySecretResponse')) },
        extraErrors: ['not_found'],
      }),
    },

    '/admin/blacklist/{ip}': {
      delete: adminOperation('delete', '/admin/blacklist/{ip}', {
        operationId: 'adminDeleteBlacklistAddress',
        summary: 'Delete every report of an address (false-positive review; logged)',
        parameters: [param('ip')],
        responses: { '200': json('the reports were deleted', ref('BlacklistAddressDeleted')) },
        extraErrors: ['invalid_ip', 'not_found'],
      }),
    },
  };
}
