/**
 * The dependency rules docs/architecture.md states, checked on the source: no import cycles, and the inner
 * layers (processors, file stores, media detection) import nothing of HTTP, accounts, jobs or the runtime.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const src = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative imports of each file (type-only ones too: a type cycle still ties the modules together). */
const graph = new Map<string, string[]>(
  sources(src).map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) =>
      relative(src, resolve(dirname(file), m[1]!)),
    );
    return [relative(src, file), targets];
  }),
);

test('the source has no import cycles', () => {
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'visiting');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('processors, file stores and media detection know nothing of HTTP, accounts, jobs or the runtime', () => {
  const inner = /^(processors|files|media)\//;
  const outer = /^(http|accounts|jobs|runtime|cli|ratelimit|webhooks|persistence)\//;
  const violations = [...graph].flatMap(([file, targets]) =>
    inner.test(file) ? targets.filter((t) => outer.test(t)).map((t) => `${file} imports ${t}`) : [],
  );
  assert.deepEqual(violations, []);
});
