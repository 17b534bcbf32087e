/**
 * Writes src/generated/openapi.ts from the service's OpenAPI document (docs/openapi.json, itself generated
 * from the route schemas): one entry per operationId with its path, method, parameters, request body and
 * every response by status code. A small JSON Schema → TypeScript printer instead of a generator package:
 * the document uses a plain subset (objects, arrays, enums, unions), and the available generators need the
 * TypeScript 5 compiler API, which the project's TypeScript 7 does not have.
 * Run: node packages/client/scripts/generate-types.ts (the test in test/client/ checks it is current).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
  description?: string;
  $ref?: string;
  format?: string;
};

interface Operation {
  operationId: string;
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '  '.repeat(depth);

export function schemaToType(schema: Schema | boolean | undefined, depth = 0): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) return schema.$ref.split('/').pop()!;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf || schema.oneOf)
    return union((schema.anyOf ?? schema.oneOf)!.map((s) => schemaToType(s, depth)));
  if (schema.allOf) return schema.allOf.map((s) => schemaToType(s, depth)).join(' & ');
  if (Array.isArray(schema.type))
    return union(schema.type.map((type) => schemaToType({ ...schema, type }, depth)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${schemaToType(schema.items, depth)}>`;
    case 'object':
    case undefined:
      if (schema.type === undefined && !schema.properties) return 'unknown';
      return objectType(schema, depth);
    default:
      return 'unknown';
  }
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 1 ? unique[0]! : unique.map((t) => (t.includes('\n') ? `(${t})` : t)).join(' | ');
}

function objectType(schema: Schema, depth: number): string {
  const required = new Set(schema.required ?? []);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (property.description)
      lines.push(`${pad(depth + 1)}/** ${property.description.replaceAll('*/', '*\\/')} */`);
    const optional = required.has(name) ? '' : '?';
    lines.push(`${pad(depth + 1)}${key(name)}${optional}: ${schemaToType(property, depth + 1)};`);
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false)
    lines.push(`${pad(depth + 1)}[key: string]: ${schemaToType(extra, depth + 1)};`);
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

function parametersType(operation: Operation, where: string, depth: number): string {
  const parameters = (operation.parameters ?? []).filter((p) => p.in === where);
  if (parameters.length === 0) return 'Record<string, never>';
  return objectType(
    {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      required: parameters.filter((p) => p.required).map((p) => p.name),
    },
    depth,
  );
}

function bodyType(operation: Operation, depth: number): string {
  const content = operation.requestBody?.content;
  if (!content) return 'never';
  const [mediaType, { schema }] = Object.entries(content)[0]!;
  return `{\n${pad(depth + 1)}contentType: ${JSON.stringify(mediaType)};\n${pad(depth + 1)}schema: ${schemaToType(schema, depth + 1)};\n${pad(depth)}}`;
}

function responsesType(operation: Operation, depth: number): string {
  const lines = Object.entries(operation.responses).map(([status, response]) => {
    const json = response.content?.['application/json']?.schema;
    const other = response.content && !json ? 'Blob' : json ? schemaToType(json, depth + 1) : 'void';
    return `${pad(depth + 1)}${status}: ${other};`;
  });
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

export function generate(document: { paths: Record<string, Record<string, Operation>> }): string {
  const entries: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      entries.push(
        [
          `  ${operation.operationId}: {`,
          `    path: ${JSON.stringify(path)};`,
          `    method: ${JSON.stringify(method.toUpperCase())};`,
          `    pathParams: ${parametersType(operation, 'path', 2)};`,
          `    query: ${parametersType(operation, 'query', 2)};`,
          `    body: ${bodyType(operation, 2)};`,
          `    responses: ${responsesType(operation, 2)};`,
          '  };',
        ].join('\n'),
      );
    }
  }
  return [
    '// Generated from docs/openapi.json by packages/client/scripts/generate-types.ts. Do not edit.',
    '/** Every operation of the Presso API by operationId: path, method, parameters, body and responses by status. */',
    'export interface Operations {',
    entries.join('\n'),
    '}',
    '',
  ].join('\n');
}

const root = resolve(import.meta.dirname, '..', '..', '..');
export const generatedPath = resolve(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts');

export function generateFromDocs(): string {
  return generate(JSON.parse(readFileSync(resolve(root, 'docs', 'openapi.json'), 'utf8')));
}

if (import.meta.main) writeFileSync(generatedPath, generateFromDocs());
