/**
 * Lossless PNG optimisation with oxipng (through @napi-rs/image, an N-API build: no binary download, no
 * child process). It tries filter strategies, bit-depth, colour-type and palette reductions and recompresses
 * with libdeflate; it returns the input unchanged when it cannot make it smaller. Metadata chunks are kept
 * (`strip` off): what to keep was decided before encoding.
 */
import { losslessCompressPng } from '@napi-rs/image';

export async function optimisePng(png: Buffer, signal?: AbortSignal): Promise<Buffer> {
  try {
    const optimised = await losslessCompressPng(png, { strip: false }, signal);
    return optimised.length < png.length ? optimised : png;
  } catch (error) {
    if (signal?.aborted) throw error;
    // oxipng refuses some valid files (unusual chunk layouts): the input is still a correct PNG.
    return png;
  }
}
