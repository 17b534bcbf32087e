/**
 * A website bundle through POST /1.0/upload with the real processors (app.inject): detected as a bundle,
 * answered as a smaller ZIP whose pages reference the converted images; a bad `bundle` parameter is 422.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createBundleProcessor } from '../../src/processors/bundle/bundle-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { writeSite } from '../processors/bundle/site.ts';
import { DEFAULT_SETTINGS } from '../support/host-settings.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: a website bundle', () => {
  let presso: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'presso-bundle-upload-'));
  before(async () => {
    const images = createImageProcessor();
    presso = await buildTestApp({
      processors: [images, createBundleProcessor(images, {}, DEFAULT_SETTINGS)],
    });
  });
  after(async () => {
    await presso?.close();
    execFileSync('rm', ['-rf', dir]);
  });

  test('comes back as a smaller ZIP with WebP images and rewritten pages', async () => {
    const { zip } = await writeSite(dir);
    const response = await presso.upload(zip, { bundle: { images: { format: 'webp' } }, metadata: true });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult & { metadata?: { converted: number } };
    assert.equal(result.input.type, 'bundle');
    assert.equal(result.output.format, 'bundle');
    assert.equal(result.output.mime, 'application/zip');
    assert.match(result.output.name, /\.zip$/);
    assert.equal(result.metadata?.converted, 4);
    assert.ok(result.output.size < result.input.size * 0.7);
    const path = join(dir, 'out.zip');
    writeFileSync(path, await download(presso, result));
    const index = execFileSync('unzip', ['-p', path, 'site/index.html']).toString();
    assert.match(index, /src="img\/photo\.webp"/);
  });

  test('bad bundle parameters are 422 on their fields', async () => {
    const { zip } = await writeSite(mkdtempSync(join(dir, 'again-')));
    const body = await assertErrorBody(
      await presso.upload(zip, { bundle: { images: { format: 'jxl' } } }),
      422,
    );
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['bundle.images.format'],
    );
  });
});
