/**
 * One Ajv instance for every JSON Schema in the API, configured to report every failing parameter at
 * once, and a translation of Ajv's errors into the `{field, message}` entries of a 422 body.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '../errors/catalog.ts';

export const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });

export function compile(schema: object): ValidateFunction {
  return ajv.compile(schema);
}

function toField(instancePath: string, root: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length === 0) return root;
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function join(field: string, key: string, root: string): string {
  return field === root ? key : `${field}.${key}`;
}

/**
 * Several Ajv errors may describe one parameter (a union of literals fails every branch); they
 * collapse into one entry per field so the client sees one clear message for each mistake.
 */
export function toFieldErrors(errors: ErrorObject[] | null | undefined, root = 'body'): FieldError[] {
  const byField = new Map<string, { allowed: unknown[]; messages: string[] }>();
  const add = (field: string, message?: string, allowed?: unknown) => {
    const entry = byField.get(field) ?? { allowed: [], messages: [] };
    if (allowed !== undefined) entry.allowed.push(...(Array.isArray(allowed) ? allowed : [allowed]));
    if (message !== undefined) entry.messages.push(message);
    byField.set(field, entry);
  };
  for (const error of errors ?? []) {
    const field = toField(error.instancePath, root);
    const p = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'additionalProperties':
        add(join(field, String(p.additionalProperty), root), 'is not a known parameter');
        break;
      case 'required':
        add(join(field, String(p.missingProperty), root), 'is required');
        break;
      case 'const':
        add(field, undefined, p.allowedValue);
        break;
      case 'enum':
        add(field, undefined, p.allowedValues);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'if':
        add(field);
        break;
      case 'type':
        add(
          field,
          `must be ${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type).replace(',', ' or ')}`,
        );
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        add(field, `must be ${String(p.comparison)} ${String(p.limit)}`);
        break;
      default:
        add(field, error.message ?? 'is invalid');
    }
  }
  const result: FieldError[] = [];
  for (const [field, { allowed, messages }] of byField) {
    const typeMessage = messages.find((m) => m.startsWith('must be a'));
    if (allowed.length > 0 && (messages.length === 0 || typeMessage)) {
      result.push({
        field,
        message: `must be one of: ${[...new Set(allowed)].map((v) => JSON.stringify(v)).join(', ')}`,
      });
    } else {
      result.push({ field, message: messages[0] ?? 'is invalid' });
    }
  }
  return result;
}
