/**
 * The probe kept between the video processor's `refineInput` and its `process` (ProbeMemo): handed out once
 * for the same unchanged file, probed again otherwise. A run whose signal is already aborted stands for "no
 * ffprobe may start": the tool runner refuses it, so an answer under that signal came from the memo.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { MediaRun } from '../../../src/processors/ffmpeg/decode-bounds.ts';
import { ProbeMemo } from '../../../src/processors/ffmpeg/probe-memo.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { makeClip } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-probe-memo-');

function runIn(dir: string, inputs: string[], signal: AbortSignal): MediaRun {
  return {
    deadline: new Deadline(10 * 60_000),
    signal,
    workDir: dir,
    inputs,
    bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
  };
}

describe('ProbeMemo', () => {
  let dir: string;
  let clip: string;
  const live = new AbortController().signal;
  const noTool = AbortSignal.abort(new Error('no tool may start'));
  before(() => {
    dir = scratch();
    clip = makeClip(join(dir, 'clip.mp4'), { width: 64, height: 48, seconds: 1 });
  });

  it('hands the probe of refineInput to process once, without a second ffprobe', async () => {
    const memo = new ProbeMemo();
    const probed = await memo.probe(clip, 'mp4', runIn(dir, [clip], live));
    assert.equal(probed.streams.find((s) => s.type === 'video')?.width, 64);
    assert.deepEqual(await memo.take(clip, 'mp4', runIn(dir, [clip], noTool)), probed);
    await assert.rejects(memo.take(clip, 'mp4', runIn(dir, [clip], noTool)), /no tool may start/);
    const again = await memo.take(clip, 'mp4', runIn(dir, [clip], live));
    assert.deepEqual(again, probed);
  });

  it('probes again a file changed since, or another file at another path', async () => {
    const memo = new ProbeMemo();
    const changed = join(dir, 'changed.mp4');
    copyFileSync(clip, changed);
    await memo.probe(changed, 'mp4', runIn(dir, [changed], live));
    appendFileSync(changed, Buffer.alloc(16));
    await assert.rejects(memo.take(changed, 'mp4', runIn(dir, [changed], noTool)), /no tool may start/);
    const other = join(dir, 'other.mp4');
    copyFileSync(clip, other);
    await memo.probe(clip, 'mp4', runIn(dir, [clip], live));
    await assert.rejects(memo.take(other, 'mp4', runIn(dir, [other], noTool)), /no tool may start/);
  });

  it('keeps a bounded number: the oldest probe goes first', async () => {
    const memo = new ProbeMemo(2);
    await memo.probe(clip, 'mp4', runIn(dir, [clip], live));
    const copies = Array.from({ length: 2 }, (_, i) => {
      const copy = join(dir, `copy-${i}.mp4`);
      copyFileSync(clip, copy);
      return copy;
    });
    for (const copy of copies) await memo.probe(copy, 'mp4', runIn(dir, [copy], live));
    await assert.rejects(memo.take(clip, 'mp4', runIn(dir, [clip], noTool)), /no tool may start/);
    const newest = copies.at(-1)!;
    await memo.take(newest, 'mp4', runIn(dir, [newest], noTool));
  });
});
