/**
 * A kind's defaults come from its schema, applied once by the typed entry (module.ts `typedProcessor`): `process`
 * receives every defaulted field set, inside optional objects too (`resize.mode`, `trim.start`, `images.format`),
 * and a namespace whose resolved schema leaves a defaulted field optional is refused when its processor is made,
 * so no `derive` has a reason to write a default again (issue 24: 27 `??` defaults in the parameter code).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type TSchema, Type } from '#typebox';
import { archiveParams } from '../../../src/processors/archive/params.ts';
import { audioParams } from '../../../src/processors/audio/params.ts';
import { bundleParams } from '../../../src/processors/bundle/params.ts';
import { documentParams } from '../../../src/processors/document/params.ts';
import { imageParams } from '../../../src/processors/image/params.ts';
import { defaultsLeftOptional, type ParamsSpec, typedProcessor } from '../../../src/processors/module.ts';
import { pdfParams } from '../../../src/processors/pdf/params.ts';
import { videoParams } from '../../../src/processors/video/params-check.ts';

const SPECS = {
  image: imageParams,
  video: videoParams,
  audio: audioParams,
  pdf: pdfParams,
  document: documentParams,
  archive: archiveParams,
  bundle: bundleParams,
} as const;

/** What the kind's `process` receives for `params` sent by a caller. */
async function received<R extends TSchema, P>(
  kind: keyof typeof SPECS,
  spec: ParamsSpec<R, P>,
  params: Record<string, unknown>,
): Promise<P> {
  let seen: P | undefined;
  const processor = typedProcessor(spec, {
    name: `${kind} (test)`,
    kind,
    inputFormats: [],
    outputFormats: [],
    process: async (request) => {
      seen = request.params;
      throw new Error('received');
    },
  });
  const input = { path: '/nonexistent', name: 'input', kind, format: 'none', mime: 'none', size: 0 };
  const request = { input, params, workDir: '/nonexistent', signal: new AbortController().signal };
  await assert.rejects(processor.process({ ...request, wantMetadata: false }), /received/);
  assert.ok(seen !== undefined);
  return seen;
}

describe('typed parameters: defaults applied once, from the schema', () => {
  it('every kind requires in its resolved schema each field its schema defaults, nested ones too', () => {
    for (const [kind, spec] of Object.entries(SPECS)) {
      assert.deepEqual(defaultsLeftOptional(spec.schema, spec.resolved, kind), [], kind);
    }
  });

  it('finds a nested default left optional, and the typed entry refuses such a namespace', () => {
    const inner = Type.Object({ mode: Type.Optional(Type.Enum(['a', 'b'], { default: 'a' })) });
    const schema = Type.Object({ resize: Type.Optional(inner) });
    assert.deepEqual(defaultsLeftOptional(schema, schema, 'x'), ['x.resize.mode']);
    const spec = { schema, resolved: schema, derive: (p: unknown) => p };
    assert.throws(
      () =>
        typedProcessor(spec, {
          name: 'x',
          kind: 'image',
          inputFormats: [],
          outputFormats: [],
          process: async () => {
            throw new Error('never called');
          },
        }),
      /image\.resize\.mode/,
    );
  });

  it('image: the defaults at the top and inside resize reach process', async () => {
    const params = await received('image', imageParams, { resize: { width: 10, mode: 'fit', height: 5 } });
    assert.deepEqual(
      { ...params },
      {
        compression: 'high',
        format: undefined,
        resize: { mode: 'fit', width: 10, height: 5, gravity: 'center', upscale: true },
        crop: undefined,
        rotate: 0,
        flip: false,
        flop: false,
        metadata: 'strip',
        page: undefined,
      },
    );
  });

  it('video and audio: trim.start, resize.mode and resize.upscale reach process', async () => {
    const video = await received('video', videoParams, { trim: { duration: 2 }, resize: { width: 64 } });
    assert.deepEqual(video.trim, { start: 0, duration: 2 });
    assert.deepEqual(video.resize, { width: 64, mode: 'auto', upscale: true });
    assert.equal(video.audio, 'keep');
    assert.equal(video.compression, 'high');
    assert.equal(video.rotate, 0);
    const audio = await received('audio', audioParams, { trim: {} });
    assert.deepEqual(audio.trim, { start: 0 });
    assert.equal(audio.metadata, 'keep');
  });

  it('document and bundle: the images defaults apply when the object is left out', async () => {
    assert.equal((await received('document', documentParams, {})).imageFormat, 'keep');
    assert.deepEqual(await received('bundle', bundleParams, { compression: 'ultra' }), {
      compression: 'ultra',
      imageFormat: 'keep',
      picture: false,
    });
  });
});
