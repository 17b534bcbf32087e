/**
 * The dependency rules docs/architecture.md states, checked on the source: no import cycles, every import runs
 * down the floors (none up, none sideways between folders of one floor), the inner layers (processors, file
 * stores, media detection) import nothing of HTTP, accounts, jobs or the runtime, no processor kind imports
 * another kind's folder, and the catalog is the one file outside a kind's folder that imports it
 * (docs/extending.md).
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

/** The folders of src/, bottom floor first: a folder imports only folders of lower floors. */
const FLOORS: readonly (readonly string[])[] = [
  ['errors', 'media', 'crypto'],
  ['config', 'validation'],
  ['outbound', 'files', 'processors', 'ratelimit'],
  ['jobs', 'stores'],
  ['webhooks', 'connectors'],
  ['accounts'],
  ['users'],
  ['persistence', 'http'],
  ['runtime'],
  ['cli'],
];

test('every import runs down a floor: none up, none across one floor', () => {
  const floorOf = new Map(FLOORS.flatMap((folders, floor) => folders.map((f) => [f, floor] as const)));
  const folder = (file: string) => file.split('/')[0]!;
  const unplaced = [...new Set([...graph.keys()].map(folder))].filter((f) => f.includes('.') === false);
  assert.deepEqual(
    unplaced.filter((f) => !floorOf.has(f)),
    [],
    'a new folder of src/ takes its floor here',
  );
  const violations = [...graph].flatMap(([file, targets]) =>
    targets
      .filter((t) => folder(t) !== folder(file) && floorOf.get(folder(t))! >= floorOf.get(folder(file))!)
      .map((t) => `${file} imports ${t}`),
  );
  assert.deepEqual(violations, []);
});

/** The processor kinds: the folders of src/processors/ that hold a module (index.ts). */
const KINDS = readdirSync(join(src, 'processors'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && graph.has(`processors/${e.name}/index.ts`))
  .map((e) => e.name);

test("no processor kind imports another kind's folder; they share through shared/ and the tool kits", () => {
  assert.deepEqual([...KINDS].sort(), ['archive', 'audio', 'bundle', 'document', 'image', 'pdf', 'video']);
  const kindOf = (file: string) => KINDS.find((kind) => file.startsWith(`processors/${kind}/`));
  const violations = [...graph].flatMap(([file, targets]) => {
    const own = kindOf(file);
    return own === undefined
      ? []
      : targets
          .filter((t) => kindOf(t) !== undefined && kindOf(t) !== own)
          .map((t) => `${file} imports ${t}`);
  });
  assert.deepEqual(violations, []);
});

test("the catalog is the only file outside a kind's folder that imports it, and it lists every kind", () => {
  const kindOf = (file: string) => KINDS.find((kind) => file.startsWith(`processors/${kind}/`));
  const importers = [...graph].flatMap(([file, targets]) =>
    kindOf(file) === undefined && targets.some((t) => kindOf(t) !== undefined) ? [file] : [],
  );
  assert.deepEqual(importers, ['processors/catalog.ts']);
  const listed = (graph.get('processors/catalog.ts') ?? []).filter((t) => t.endsWith('/index.ts'));
  assert.deepEqual(listed.map((t) => kindOf(t)).sort(), [...KINDS].sort());
});

test("a store kind is reached through the store catalog only (GCS's HMAC keys go through the S3 preset)", () => {
  const kinds = readdirSync(join(src, 'stores'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && graph.has(`stores/${e.name}/index.ts`))
    .map((e) => e.name);
  assert.deepEqual([...kinds].sort(), ['azure', 'gcs', 's3']);
  const kindOf = (file: string) => kinds.find((kind) => file.startsWith(`stores/${kind}/`));
  const importers = [...graph].flatMap(([file, targets]) =>
    targets
      .filter((t) => kindOf(t) !== undefined && kindOf(t) !== kindOf(file))
      .map((t) => `${file} imports ${t}`),
  );
  assert.deepEqual(
    importers.filter((line) => !line.startsWith('stores/catalog.ts ')),
    ['stores/gcs/index.ts imports stores/s3/index.ts'],
  );
});
