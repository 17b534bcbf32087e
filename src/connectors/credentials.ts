/**
 * A connector's credentials, judged by its store kind's module (src/stores/<kind>/index.ts): the JSON Schema
 * (the REST API's and the CLI's input), the checks of the fields a host is built from, and the masked hint
 * shown instead of them once stored. Every endpoint override is a plain http(s) URL; the rest is the kind's.
 */
import type { FieldError } from '../errors/catalog.ts';
import { type StoreKind, storeModuleOf } from '../stores/catalog.ts';
import { endpointProblem } from '../stores/name-rules.ts';

/** The public part of the credentials, masked: the key id's first and last four characters. */
export function credentialHint(kind: StoreKind, credentials: Record<string, unknown>): string {
  return storeModuleOf(kind).hint(credentials);
}

/**
 * The credential fields a host is built from, checked to be what they name (the schema checked the types):
 * endpoints are plain http(s) URLs, and the kind's own (R2's account id a DNS label, Azure's account name an
 * account name and its connection string one strictly parsed). A first layer: every connection is still
 * judged by the address guard.
 */
export function credentialProblems(kind: StoreKind, credentials: Record<string, unknown>): FieldError[] {
  const module = storeModuleOf(kind);
  const errors: FieldError[] = [];
  for (const field of ['endpoint', 'apiEndpoint']) {
    const value = credentials[field];
    const problem = typeof value === 'string' ? endpointProblem(value) : undefined;
    if (problem !== undefined) errors.push({ field: `credentials.${field}`, message: problem });
  }
  for (const { field, message } of module.problems?.(credentials) ?? [])
    errors.push({ field: `credentials.${field}`, message });
  return errors;
}
