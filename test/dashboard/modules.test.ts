/**
 * The dashboard's modules that hold logic and no DOM, run under Node: the ZIP writer (checked by Info-ZIP's
 * unzip), the Try-it forms read from the real OpenAPI document, and the usage series of the charts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { type Field, type Group, kindForms, parseInput, setAt } from '../../dashboard/src/schema-fields.ts';
import { dayLabels, seriesByKind, seriesByMetric, totals } from '../../dashboard/src/usage.ts';
import { crc32, uniqueNames, zipStore } from '../../dashboard/src/zip.ts';
import { generateOpenApi } from '../../src/cli/serve-command.ts';
import { loadConfig } from '../../src/runtime/config.ts';

const run = promisify(execFile);

test('crc32 is the ZIP checksum', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array()), 0);
});

test('the store-only ZIP unpacks with unzip to the same bytes, UTF-8 names and duplicates kept apart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dash-zip-'));
  try {
    const binary = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
    const zip = zipStore([
      { name: 'photo.webp', bytes: binary },
      { name: 'photo.webp', bytes: new TextEncoder().encode('second') },
      { name: 'résumé.pdf', bytes: new TextEncoder().encode('%PDF-1.7') },
      { name: 'empty.txt', bytes: new Uint8Array() },
    ]);
    await writeFile(join(dir, 'all.zip'), zip);
    const { stdout } = await run('unzip', ['-t', join(dir, 'all.zip')]);
    assert.match(stdout, /No errors detected/);
    // Info-ZIP's unzip writes UTF-8 names as such only under a UTF-8 locale.
    await run('unzip', ['-q', join(dir, 'all.zip'), '-d', join(dir, 'out')], {
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
    });
    assert.deepEqual(new Uint8Array(await readFile(join(dir, 'out', 'photo.webp'))), binary);
    assert.equal(await readFile(join(dir, 'out', 'photo (2).webp'), 'utf8'), 'second');
    assert.equal(await readFile(join(dir, 'out', 'résumé.pdf'), 'utf8'), '%PDF-1.7');
    assert.equal((await readFile(join(dir, 'out', 'empty.txt'))).length, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('unique names number the repeats before the extension', () => {
  assert.deepEqual(uniqueNames(['a.png', 'a.png', 'a.png', 'b', 'b']), [
    'a.png',
    'a (2).png',
    'a (3).png',
    'b',
    'b (2)',
  ]);
});

const flatten = (group: Group): Field[] =>
  group.children.flatMap((child) => (child.type === 'group' ? flatten(child) : [child]));

test("Try-it has one form per kind of the service's OpenAPI document, with each parameter as a control", async () => {
  const doc = await generateOpenApi(loadConfig({}));
  const forms = kindForms(doc);
  assert.deepEqual(
    forms.map((f) => f.kind),
    ['image', 'video', 'audio', 'pdf', 'document', 'archive', 'bundle'],
  );
  const image = flatten(forms.find((f) => f.kind === 'image')!.form);
  const byPath = new Map(image.map((f) => [f.path.join('.'), f]));
  assert.equal(byPath.get('image.compression')?.kind, 'enum');
  assert.ok(byPath.get('image.compression')?.options?.includes('lossless'));
  assert.equal(byPath.get('image.resize.width')?.kind, 'integer');
  assert.equal(byPath.get('image.resize.width')?.maximum, 16384);
  assert.equal(byPath.get('image.resize.upscale')?.kind, 'boolean');
  assert.equal(byPath.get('image.resize.background')?.kind, 'string');
  // video.audio is "keep", "remove" or a bitrate: a text field with the choices offered.
  const audio = flatten(forms.find((f) => f.kind === 'video')!.form).find(
    (f) => f.path.join('.') === 'video.audio',
  );
  assert.equal(audio?.kind, 'choice-or-number');
  assert.deepEqual(audio?.options, ['keep', 'remove']);
  assert.equal(parseInput(audio!, 'remove'), 'remove');
  assert.equal(parseInput(audio!, '96'), 96);
});

test('form values nest by path, and clearing a field removes it and the objects left empty', () => {
  let values = setAt({}, ['image', 'resize', 'width'], 800);
  values = setAt(values, ['image', 'compression'], 'ultra');
  assert.deepEqual(values, { image: { resize: { width: 800 }, compression: 'ultra' } });
  values = setAt(values, ['image', 'resize', 'width'], undefined);
  assert.deepEqual(values, { image: { compression: 'ultra' } });
  values = setAt(values, ['image', 'compression'], undefined);
  assert.deepEqual(values, {});
});

test('usage rows become one series per kind over every day of the period, zeros included', () => {
  const labels = dayLabels(new Date('2026-11-26T12:00:00Z'), 3);
  assert.deepEqual(labels, ['2026-11-24', '2026-11-25', '2026-11-26']);
  const rows = [
    { date: '2026-11-24', kind: 'image', requests: 5, jobs: 4, failures: 1, bytesIn: 1000, bytesOut: 400 },
    { date: '2026-11-26', kind: 'image', requests: 2, jobs: 2, failures: 0, bytesIn: 500, bytesOut: 100 },
    { date: '2026-11-26', kind: 'audio', requests: 1, jobs: 1, failures: 0, bytesIn: 300, bytesOut: 350 },
    { date: '2026-10-01', kind: 'pdf', requests: 9, jobs: 9, failures: 9, bytesIn: 9, bytesOut: 9 },
  ];
  assert.deepEqual(seriesByKind(rows, labels, 'jobs'), [
    { name: 'audio', values: [0, 0, 1] },
    { name: 'image', values: [4, 0, 2] },
  ]);
  // Saved bytes never go negative: a larger output saved nothing.
  assert.deepEqual(seriesByMetric(rows, labels, [['bytesSaved', 'saved']]), [
    { name: 'saved', values: [600, 0, 400] },
  ]);
  assert.equal(totals(rows).bytesSaved, 600 + 400 + 0);
});
