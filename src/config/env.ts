/**
 * Declarative environment variables. Each component declares its variables once, in a `section` of its own
 * `config.ts` (imgproxy's per-package `ConfigDesc` + `LoadConfigFromEnv` + `Validate`): the section gives the
 * typed value, its defaults and the description the README table and `presso config` print, from one source.
 * Every reader names the variable in its error, so a misconfiguration is found at start-up, not on the first
 * request that needs the value.
 */
import { ConfigError } from '../errors/catalog.ts';

export type Env = Record<string, string | undefined>;

/** One environment variable: how to read it, and what the documentation says of it. */
export interface Var<T> {
  readonly name: string;
  /** The default as documented (machine-dependent defaults say so rather than print this machine's value). */
  readonly shown: string;
  readonly doc: string;
  read(env: Env): T;
}

export interface VarDescription {
  name: string;
  default: string;
  description: string;
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function variable<T>(name: string, shown: unknown, doc: string, parse: (value: string) => T, def: T): Var<T> {
  const text = shown === undefined || shown === '' ? '(unset)' : String(shown);
  return {
    name,
    shown: text,
    doc,
    read: (env) => {
      const value = raw(env, name);
      return value === undefined ? def : parse(value);
    },
  };
}

export function str(name: string, o: { default: string; doc: string }): Var<string> {
  return variable(name, o.default, o.doc, (v) => v, o.default);
}

export function optionalStr(name: string, o: { doc: string }): Var<string | undefined> {
  return variable<string | undefined>(name, undefined, o.doc, (v) => v, undefined);
}

/** `shown`: for a default that depends on the machine (the CPU count), what the documentation prints instead. */
export function int(
  name: string,
  o: { default: number; doc: string; min?: number; max?: number; shown?: string },
): Var<number> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = o;
  return variable(
    name,
    o.shown ?? o.default,
    o.doc,
    (value) => {
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${name} must be an integer, got "${value}"`);
      const n = Number(value);
      if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    o.default,
  );
}

export function bool(name: string, o: { default: boolean; doc: string }): Var<boolean> {
  return variable(
    name,
    o.default,
    o.doc,
    (value) => {
      const v = value.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${name} must be true or false, got "${value}"`);
    },
    o.default,
  );
}

/** `const T`: inside a `section({...})` literal the values would otherwise widen to `string`. */
export function oneOf<const T extends string>(
  name: string,
  o: { values: readonly T[]; default: NoInfer<T>; doc: string },
): Var<T> {
  return variable(
    name,
    o.default,
    `${o.doc} (${o.values.join(', ')})`,
    (value) => {
      if (!(o.values as readonly string[]).includes(value)) {
        throw new ConfigError(`${name} must be one of ${o.values.join(', ')}, got "${value}"`);
      }
      return value as T;
    },
    o.default,
  );
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Sizes accept plain bytes or a unit: `32MiB`, `1GB`, `500kb`. */
export function bytes(name: string, o: { default: number; doc: string }): Var<number> {
  return variable(
    name,
    o.default,
    `${o.doc} (bytes; units such as MiB, GB accepted)`,
    (value) => {
      const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value);
      const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
      if (!match || unit === undefined)
        throw new ConfigError(`${name} must be a size such as 33554432 or 32MiB, got "${value}"`);
      return Math.round(Number(match[1]) * unit);
    },
    o.default,
  );
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(value.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()]!);
}

export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Durations in milliseconds; plain numbers are seconds. */
export function duration(name: string, o: { default: number; doc: string }): Var<number> {
  return variable(
    name,
    formatDuration(o.default),
    `${o.doc} (duration: 500ms, 60s, 15m, 2h, 7d)`,
    (value) => {
      const ms = parseDuration(value);
      if (ms === undefined)
        throw new ConfigError(`${name} must be a duration such as 60s or 2h, got "${value}"`);
      return ms;
    },
    o.default,
  );
}

export function durationList(name: string, o: { default: number[]; doc: string }): Var<number[]> {
  return variable(
    name,
    o.default.map(formatDuration).join(','),
    `${o.doc} (comma-separated durations)`,
    (value) =>
      value.split(',').map((part) => {
        const ms = parseDuration(part);
        if (ms === undefined)
          throw new ConfigError(`${name} must be a comma-separated list of durations, got "${value}"`);
        return ms;
      }),
    o.default,
  );
}

/** `check` refuses a bad item with the reason it returns. */
export function list(
  name: string,
  o: { default: string[]; doc: string; check?: (item: string) => string | undefined },
): Var<string[]> {
  return variable(
    name,
    o.default.join(','),
    `${o.doc} (comma-separated)`,
    (value) => {
      const items = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items) {
        const problem = o.check?.(item);
        if (problem) throw new ConfigError(`${name} ${problem}: "${item}"`);
      }
      return items;
    },
    o.default,
  );
}

type Values<V extends Record<string, Var<unknown>>> = {
  [K in keyof V]: V[K] extends Var<infer T> ? T : never;
};

/** One component's configuration: its variables, and the loader that reads and checks them together. */
export interface Section<T> {
  readonly vars: readonly Var<unknown>[];
  load(env: Env): T;
}

export type Loaded<S> = S extends Section<infer T> ? T : never;

/**
 * A section of variables. `finish` derives values from others and checks rules across variables; it throws
 * a ConfigError naming the variables involved.
 */
export function section<V extends Record<string, Var<unknown>>, T = Values<V>>(
  vars: V,
  finish?: (values: Values<V>) => T,
): Section<T> {
  return {
    vars: Object.values(vars),
    load(env) {
      const values = Object.fromEntries(
        Object.entries(vars).map(([key, v]) => [key, v.read(env)]),
      ) as Values<V>;
      return finish ? finish(values) : (values as unknown as T);
    },
  };
}

export function describeVars(sections: Iterable<Section<unknown>>): VarDescription[] {
  return [...sections].flatMap((s) =>
    s.vars.map((v) => ({ name: v.name, default: v.shown, description: v.doc })),
  );
}
