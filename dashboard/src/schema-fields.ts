/**
 * The Try-it option forms, read from the OpenAPI document: the `/1.0/fetch` request body's per-kind objects
 * (`image`, `video`, `pdf`, …) become one form each, so a parameter added to a processor's schema shows up
 * without a dashboard change. Only a JSON Schema subset is used (what the route schemas contain): objects,
 * enums, booleans, integers, numbers, strings, and an enum-or-number union. No DOM: tested under Node.
 */

export type Primitive = string | number | boolean;

export interface JsonSchema {
  type?: string;
  enum?: Primitive[];
  const?: Primitive;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export type FieldKind = 'enum' | 'boolean' | 'integer' | 'number' | 'string' | 'choice-or-number';

export interface Field {
  type: 'field';
  path: string[];
  label: string;
  kind: FieldKind;
  description?: string;
  options?: Primitive[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface Group {
  type: 'group';
  path: string[];
  label: string;
  description?: string;
  children: (Field | Group)[];
}

/** Top-level request properties that are not a kind's options (the form handles them apart or not at all). */
const NOT_KINDS = new Set(['url', 'headers', 'webhook', 'store', 'metadata', 'async']);

/** `sampleRate` -> `Sample rate`. */
export function labelOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The choices of an enum written as `enum` or as an `anyOf` of single values (TypeBox unions). */
function choices(schema: JsonSchema): Primitive[] | undefined {
  if (schema.enum) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  if (!schema.anyOf) return undefined;
  const all: Primitive[] = [];
  for (const option of schema.anyOf) {
    const values = choices(option);
    if (!values) return undefined;
    all.push(...values);
  }
  return all;
}

function fieldOf(name: string, schema: JsonSchema, path: string[]): Field | Group | undefined {
  const base = { path, label: labelOf(name), description: schema.description };
  if (schema.type === 'object' || schema.properties) {
    // Free-form maps (custom metadata) have no fixed fields to show.
    if (!schema.properties) return undefined;
    return { type: 'group', ...base, children: childrenOf(schema, path) };
  }
  const options = choices(schema);
  const common = { type: 'field' as const, ...base, default: schema.default };
  if (options) return { ...common, kind: 'enum', options };
  if (schema.anyOf) {
    const enumPart = schema.anyOf.flatMap((s) => choices(s) ?? []);
    const numeric = schema.anyOf.find((s) => s.type === 'integer' || s.type === 'number');
    if (!numeric) return undefined;
    return {
      ...common,
      kind: 'choice-or-number',
      options: enumPart,
      minimum: numeric.minimum,
      maximum: numeric.maximum,
      description: [schema.description, numeric.description].filter(Boolean).join(' ') || undefined,
    };
  }
  switch (schema.type) {
    case 'boolean':
      return { ...common, kind: 'boolean' };
    case 'integer':
    case 'number':
      return { ...common, kind: schema.type, minimum: schema.minimum, maximum: schema.maximum };
    case 'string':
      return { ...common, kind: 'string', maxLength: schema.maxLength };
    default:
      return undefined;
  }
}

function childrenOf(schema: JsonSchema, path: string[]): (Field | Group)[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
    const field = fieldOf(name, property, [...path, name]);
    return field ? [field] : [];
  });
}

export interface KindForm {
  kind: string;
  description?: string;
  form: Group;
}

/** The JSON request body schema of `/1.0/fetch` in an OpenAPI document. */
function fetchBodySchema(doc: unknown): JsonSchema | undefined {
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> }).paths;
  const post = paths?.['/1.0/fetch']?.post as
    | { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }
    | undefined;
  return post?.requestBody?.content?.['application/json']?.schema;
}

/** One form per kind the service takes, in the document's order. */
export function kindForms(doc: unknown): KindForm[] {
  const body = fetchBodySchema(doc);
  return Object.entries(body?.properties ?? {})
    .filter(([name, schema]) => !NOT_KINDS.has(name) && schema.properties !== undefined)
    .map(([kind, schema]) => ({
      kind,
      description: schema.description,
      form: { type: 'group', path: [kind], label: labelOf(kind), children: childrenOf(schema, [kind]) },
    }));
}

export type Values = Record<string, unknown>;

/** `values` with the value at `path` replaced (undefined removes it, and then any object left empty). */
export function setAt(values: Values, path: string[], value: unknown): Values {
  const [head, ...rest] = path;
  if (head === undefined) return values;
  const copy: Values = { ...values };
  const next = rest.length === 0 ? value : setAt((values[head] as Values | undefined) ?? {}, rest, value);
  const empty =
    next === undefined || (typeof next === 'object' && next !== null && Object.keys(next).length === 0);
  if (empty) delete copy[head];
  else copy[head] = next;
  return copy;
}

export function getAt(values: Values, path: string[]): unknown {
  let current: unknown = values;
  for (const key of path) current = (current as Values | undefined)?.[key];
  return current;
}

/** The request value of what was typed in a field; undefined for an empty input (the server's default). */
export function parseInput(field: Field, raw: string): unknown {
  const text = raw.trim();
  if (text === '') return undefined;
  switch (field.kind) {
    case 'integer':
    case 'number':
      return Number(text);
    case 'enum':
      return field.options?.find((option) => String(option) === text);
    case 'choice-or-number':
      return field.options?.find((option) => String(option) === text) ?? Number(text);
    default:
      return raw;
  }
}
