/**
 * Completes each documented route's error responses from what the request pipeline can really answer,
 * so the OpenAPI document lists them (and generated clients type them) without every route repeating
 * them: every route passes the HTTPS and rate-limit gate (access-control.ts: 403 HTTPS_REQUIRED, 429,
 * counted per key or per client address even where no key is needed) and can fail inside (500); a
 * route with a body, query or path schema answers 422 with `errors[]` when the request does not match
 * it (error-handler.ts). A route's own declaration of a code wins.
 */
import type { RouteOptions } from 'fastify';
import { ErrorSchema } from './schemas.ts';

const PIPELINE_ERRORS = [403, 429, 500] as const;

interface RouteSchema {
  hide?: boolean;
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
  response?: Record<string, unknown>;
}

export function completeErrorResponses(route: RouteOptions): void {
  const schema = route.schema as RouteSchema | undefined;
  if (!schema || schema.hide === true) return;
  const response = { ...schema.response };
  const codes = [...PIPELINE_ERRORS, ...(schema.body || schema.querystring || schema.params ? [422] : [])];
  for (const code of codes) response[code] ??= ErrorSchema;
  schema.response = response;
}
