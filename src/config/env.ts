/**
 * Typed readers for environment variables. Each reader names the variable in its error so a
 * misconfiguration is found at start-up, not on the first request that needs the value.
 */
import { ConfigError } from '../errors/catalog.ts';

export type Env = Record<string, string | undefined>;

export interface VarDescription {
  name: string;
  default: string;
  description: string;
}

/** Every variable read through these helpers is recorded here, so the README table can be generated and checked. */
export const described: VarDescription[] = [];

function describe(name: string, def: unknown, description: string): void {
  if (!described.some((d) => d.name === name)) {
    described.push({ name, default: def === undefined || def === '' ? '(unset)' : String(def), description });
  }
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function str(env: Env, name: string, def: string, description: string): string {
  describe(name, def, description);
  return raw(env, name) ?? def;
}

export function optionalStr(env: Env, name: string, description: string): string | undefined {
  describe(name, undefined, description);
  return raw(env, name);
}

/**
 * A default that depends on the machine (such as the CPU count): `value` is used, `shown` is what the
 * README and `presso config` print, so the documentation is the same on every machine.
 */
export interface MachineDefault {
  value: number;
  shown: string;
}

export function int(
  env: Env,
  name: string,
  def: number | MachineDefault,
  description: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const fallback = typeof def === 'number' ? def : def.value;
  describe(name, typeof def === 'number' ? def : def.shown, description);
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(`${name} must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function bool(env: Env, name: string, def: boolean, description: string): boolean {
  describe(name, def, description);
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return def;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

export function oneOf<T extends string>(
  env: Env,
  name: string,
  def: T,
  values: readonly T[],
  description: string,
): T {
  describe(name, def, `${description} (${values.join(', ')})`);
  const value = raw(env, name);
  if (value === undefined) return def;
  if (!(values as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`);
  }
  return value as T;
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
export function bytes(env: Env, name: string, def: number, description: string): number {
  describe(name, def, `${description} (bytes; units such as MiB, GB accepted)`);
  const value = raw(env, name);
  if (value === undefined) return def;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value);
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined)
    throw new ConfigError(`${name} must be a size such as 33554432 or 32MiB, got "${value}"`);
  return Math.round(Number(match[1]) * unit);
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
export function duration(env: Env, name: string, defMs: number, description: string): number {
  describe(name, formatDuration(defMs), `${description} (duration: 500ms, 60s, 15m, 2h, 7d)`);
  const value = raw(env, name);
  if (value === undefined) return defMs;
  const ms = parseDuration(value);
  if (ms === undefined) throw new ConfigError(`${name} must be a duration such as 60s or 2h, got "${value}"`);
  return ms;
}

export function durationList(env: Env, name: string, defMs: number[], description: string): number[] {
  describe(name, defMs.map(formatDuration).join(','), `${description} (comma-separated durations)`);
  const value = raw(env, name);
  if (value === undefined) return defMs;
  return value.split(',').map((part) => {
    const ms = parseDuration(part);
    if (ms === undefined)
      throw new ConfigError(`${name} must be a comma-separated list of durations, got "${value}"`);
    return ms;
  });
}

export function list(env: Env, name: string, def: string[], description: string): string[] {
  describe(name, def.join(','), `${description} (comma-separated)`);
  const value = raw(env, name);
  if (value === undefined) return def;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
