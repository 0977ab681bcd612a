/** OpenAPI schemas of the error envelope (SPEC 2.9, 7): every code of errorTable with its status. */
import { errorTable, type ErrorCode } from './errors.js';
import { constant, ref, shape, str, stringEnum, type JsonSchema } from './records/jsonSchema.js';

export const errorCodes = Object.keys(errorTable) as ErrorCode[];

export function errorSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.ErrorCode = stringEnum(errorCodes, errorCodes.map((c) => `${c} (${errorTable[c].status})`).join(', '));
  schemas.ErrorEnvelope = shape('SPEC 2.9 error envelope.', {
    success: constant(false),
    error: shape('', { code: ref('ErrorCode'), message: str('for people; may change') }),
  });
  return schemas;
}
