/**
 * The bundle processor on a small real site: detected as a bundle, every file kept under its name (or its
 * converted name), pages, style sheets, scripts and JSON minified, images smaller in their format or as
 * WebP with every reference rewritten, or wrapped in <picture> with the original as fallback; and the site
 * loads in headless Chromium before and after with no failed request, every image decoded and its scripts run.
 * The image processor is the real one; a request the file already made of it (the same image bytes, format
 * and params: `picture` recompresses the originals as `keep` does and converts them as `webp` does) is
 * answered with that run's output, copied, so each picture is encoded once per file (once-each.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { detectFile } from '../../../src/media/detect.ts';
import { createBundleProcessor } from '../../../src/processors/bundle/bundle-processor.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { runProcessor } from '../../support/media.ts';
import { onceEach } from '../../support/once-each.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { closeBrowser, loadPages } from './browser.ts';
import { writeSite } from './site.ts';

const scratch = useScratch('presso-bundle-');
after(closeBrowser);
// No time pressure: on a loaded machine the image search of the 451×300 photo once ran past its budget and
// the picture came back unchanged ("img/photo-large.png smaller" failed at 95c8acb, load 13).
const bundles = createBundleProcessor(
  onceEach(createImageProcessor(NO_TIME_PRESSURE), scratch),
  NO_TIME_PRESSURE,
  DEFAULT_SETTINGS,
);
let site: { folder: string; zip: string } | undefined;
const sample = async () => {
  site ??= await writeSite(scratch());
  return site;
};
let unpacks = 0;
function unpack(zip: string): string {
  const into = join(scratch(), `out-${unpacks++}`);
  mkdirSync(into);
  execFileSync('unzip', ['-q', zip, '-d', into]);
  return join(into, 'site');
}
const read = (folder: string, path: string) => readFileSync(join(folder, path), 'utf8');
const size = (folder: string, path: string) => statSync(join(folder, path)).size;

test('a ZIP with index.html in its single top folder is a bundle', async () => {
  const { zip } = await sample();
  assert.deepEqual(await detectFile(zip), { kind: 'bundle', format: 'bundle', mime: 'application/zip' });
});

test('keep: text minified, images smaller in their own format, every name kept', async () => {
  const { zip, folder: before } = await sample();
  const result = await runProcessor(bundles, zip, { compression: 'high' }, { wantMetadata: true });
  execFileSync('unzip', ['-tq', result.path]);
  assert.ok(result.outputSize < result.inputSize * 0.7, `${result.outputSize} of ${result.inputSize}`);
  const after = unpack(result.path);
  for (const path of [
    'index.html',
    'docs/page.html',
    'css/site.css',
    'js/app.js',
    'data/info.json',
    'img/logo.svg',
  ]) {
    assert.ok(size(after, path) < size(before, path), `${path} minified`);
  }
  for (const path of ['img/photo.png', 'img/photo-large.png', 'img/background.jpg']) {
    assert.ok(size(after, path) < size(before, path), `${path} smaller`);
  }
  assert.deepEqual(JSON.parse(read(after, 'data/info.json')), JSON.parse(read(before, 'data/info.json')));
  assert.doesNotMatch(read(after, 'index.html'), /the site's only style sheet/);
  assert.doesNotMatch(read(after, 'css/site.css'), /Site styles/);
  execFileSync('node', ['--check', join(after, 'js/app.js')]);
});

test('webp: PNG and JPEG become WebP and every reference follows; the site loads with nothing missing', async () => {
  const { zip, folder: before } = await sample();
  const result = await runProcessor(bundles, zip, { images: { format: 'webp' } });
  const after = unpack(result.path);
  for (const path of ['img/photo', 'img/photo-large', 'img/background', 'img/debian']) {
    assert.ok(existsSync(join(after, `${path}.webp`)), `${path}.webp`);
    assert.equal(
      existsSync(join(after, `${path}.png`)) || existsSync(join(after, `${path}.jpg`)),
      false,
      `${path} original gone`,
    );
  }
  const html = read(after, 'index.html') + read(after, 'docs/page.html') + read(after, 'css/site.css');
  assert.doesNotMatch(html, /\.(png|jpg)\b/);
  assert.match(read(after, 'index.html'), /srcset="img\/photo\.webp( 1x)?, ?img\/photo-large\.webp 2x"/);
  const pages = ['index.html', 'docs/page.html'];
  const globals = ['presso_inline_ran', 'presso_site_name'];
  const [original, optimised] = [
    await loadPages(before, pages, globals),
    await loadPages(after, pages, globals),
  ];
  for (const [label, loads] of [
    ['before', original],
    ['after', optimised],
  ] as const) {
    for (const load of loads) {
      assert.deepEqual(load.failed, [], `${label}: failed requests`);
      assert.deepEqual(load.brokenImages, [], `${label}: images not decoded`);
    }
    assert.deepEqual(
      loads[0]!.globals,
      { presso_inline_ran: true, presso_site_name: 'Presso test site' },
      `${label}: scripts ran`,
    );
  }
  // The CSS backgrounds were requested as WebP: the rewritten url() values load.
  assert.ok(optimised[0]!.requested.includes('/img/background.webp'));
  assert.ok(optimised[0]!.requested.includes('/img/debian.webp'));
  assert.ok(original[0]!.requested.includes('/img/background.jpg'));
});

test('picture: the originals stay as the fallback and each converted <img> gets a WebP <source>', async () => {
  const { zip, folder: before } = await sample();
  const result = await runProcessor(bundles, zip, { images: { format: 'webp', picture: true } });
  const after = unpack(result.path);
  assert.ok(existsSync(join(after, 'img/photo.png')) && existsSync(join(after, 'img/photo.webp')));
  const index = read(after, 'index.html');
  assert.match(index, /<picture><source type="?image\/webp"? srcset="?img\/photo\.webp"?><img id="?photo"?/);
  const [load] = await loadPages(after, ['index.html'], []);
  assert.deepEqual(load!.failed, []);
  assert.deepEqual(load!.brokenImages, []);
  assert.ok(load!.requested.includes('/img/photo.webp'), 'Chromium picks the WebP source');
  assert.ok(statSync(join(before, 'img/photo.png')).size > 0);
});
