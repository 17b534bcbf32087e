import { join } from 'node:path';
import { createVideoProcessor } from '/work/wt/heavy-tests/src/processors/video/video-processor.ts';
import { makeClip, runProcessor } from '/work/wt/heavy-tests/test/support/media.ts';

const processor = createVideoProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
const clip = makeClip(join('/tmp', `heavy-one.mp4`), { seconds: 1, width: 96, height: 64 });
await runProcessor(processor, clip, JSON.parse(process.env.PARAMS ?? '{}'));
