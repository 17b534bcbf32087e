/**
 * The check for MP4 samples kept in another file (src/processors/ffmpeg/mp4-data-refs.ts): what it
 * refuses, what it lets through, and its bounds on a hostile box structure. The API-level refusals are in
 * test/security/hostile-media.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { externalSampleReference } from '../../../src/processors/ffmpeg/mp4-data-refs.ts';
import { externalSamples, urlReference } from '../../support/hostile-media.ts';
import { makeClip } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-mp4-drefs-');

describe('MP4 data references', () => {
  let clip: string;
  let dir: string;
  before(() => {
    dir = scratch();
    clip = makeClip(join(dir, 'clip.mp4'), { width: 64, height: 48, seconds: 1 });
  });

  it('lets a self-contained file through, index first or last', async () => {
    const faststart = makeClip(join(dir, 'faststart.mp4'), {
      seconds: 1,
      encode: ['-c:v', 'libx264', '-movflags', '+faststart'],
    });
    for (const file of [clip, faststart]) assert.equal(await externalSampleReference(file), undefined, file);
  });

  it('names the location of samples in another file, compressed header or not', async () => {
    for (const compressed of [false, true]) {
      const file = externalSamples(
        clip,
        join(dir, `url-${compressed}.mp4`),
        urlReference('other.mp4'),
        compressed,
      );
      assert.equal(
        await externalSampleReference(file),
        "its samples are in another file, named by a data reference ('url': other.mp4)",
      );
    }
  });

  it('takes an entry without the flag but without a location as this file, as ffmpeg does', async () => {
    const file = externalSamples(clip, join(dir, 'empty-url.mp4'), urlReference(''));
    assert.equal(await externalSampleReference(file), undefined);
  });

  it('stops at a bound on a hostile structure: boxes before the header, nested compressed headers', async () => {
    const free = Buffer.alloc(8);
    free.writeUInt32BE(8);
    free.write('free', 4, 'latin1');
    const padded = join(dir, 'padded.mp4');
    writeFileSync(padded, Buffer.concat([Buffer.alloc(8 * 5000, free), readFileSync(clip)]));
    assert.match(String(await externalSampleReference(padded)), /more than 4096 boxes/);

    const once = externalSamples(clip, join(dir, 'once.mp4'), urlReference('other.mp4'), true);
    // Compressing again a header that holds a compressed one: ffmpeg would inflate both.
    const twice = externalSamples(once, join(dir, 'twice.mp4'), urlReference('other.mp4'), true);
    assert.equal(await externalSampleReference(twice), 'its compressed movie header holds another');
  });
});
