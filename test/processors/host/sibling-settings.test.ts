/**
 * Settings a kind reads besides its own section reach it from the operator's variables, not from the sibling's
 * defaults (review 2, 3.2): a website bundle is unpacked under `PRESSO_ARCHIVE_MAX_RATIO` and
 * `PRESSO_ARCHIVE_TOOL_MEMORY`, and a document's pictures are decoded under `PRESSO_IMAGE_MAX_PIXELS`. The
 * processors are built the way `presso serve` builds them: the catalog, the loaded configuration, the host.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createProcessors } from '../../../src/processors/host.ts';
import type { Processor } from '../../../src/processors/processor.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { hostSettings } from '../../../src/runtime/services.ts';
import { runProcessor } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-sibling-settings-');

function processorsFrom(env: Record<string, string>) {
  const config = loadConfig({ PRESSO_DATA_DIR: scratch(), ...env });
  return createProcessors({ sections: config, settings: hostSettings(config), warn: () => {} });
}

function bundleOf(processors: ReturnType<typeof processorsFrom>): Processor {
  const bundles = processors.forKind('bundle');
  assert.ok(bundles !== undefined);
  return bundles;
}

/**
 * A site that unpacks to 70 MiB at about 65 times its size: 1 MiB of noise stored, 69 MiB of zeros deflated.
 * Over the 64 MiB floor of the ratio check, and under the default ratio of 200.
 */
function ratioSite(): string {
  const folder = join(scratch(), 'site');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'index.html'), '<!DOCTYPE html><html><body><p>hello</p></body></html>\n');
  writeFileSync(join(folder, 'noise.bin'), randomBytes(1024 ** 2));
  writeFileSync(join(folder, 'zeros.bin'), Buffer.alloc(69 * 1024 ** 2));
  const zip = join(scratch(), 'ratio-site.zip');
  execFileSync('zip', ['-q', '-0', zip, 'index.html', 'noise.bin'], { cwd: folder });
  execFileSync('zip', ['-q', '-9', zip, 'zeros.bin'], { cwd: folder });
  return zip;
}

function smallSite(): string {
  const folder = join(scratch(), 'small-site');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'index.html'),
    '<!DOCTYPE html><html><body>  <p>  hello  </p>  </body></html>\n',
  );
  const zip = join(scratch(), 'small-site.zip');
  execFileSync('zip', ['-q', '-9', zip, 'index.html'], { cwd: folder });
  return zip;
}

test('PRESSO_ARCHIVE_MAX_RATIO reaches a website bundle', async () => {
  const zip = ratioSite();
  await assert.rejects(
    runProcessor(bundleOf(processorsFrom({ PRESSO_ARCHIVE_MAX_RATIO: '10' })), zip),
    (error: Error) => {
      assert.match(error.message, /times its size \(limit 10\)/);
      return true;
    },
  );
});

test('PRESSO_ARCHIVE_TOOL_MEMORY reaches a website bundle', async () => {
  const zip = smallSite();
  // At the default the site goes through; with 1 MiB no archiving tool can even start.
  const result = await runProcessor(bundleOf(processorsFrom({})), zip);
  assert.equal(result.format, 'bundle');
  await assert.rejects(runProcessor(bundleOf(processorsFrom({ PRESSO_ARCHIVE_TOOL_MEMORY: '1MiB' })), zip));
});

test('the loaded image pixel cap is the one handed to documents', () => {
  const config = loadConfig({ PRESSO_DATA_DIR: scratch(), PRESSO_IMAGE_MAX_PIXELS: '12345' });
  assert.equal(hostSettings(config).images.maxPixels, 12_345);
  assert.equal(hostSettings(config).archive, config.archive);
});
