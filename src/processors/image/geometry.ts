/**
 * Geometry in the order the API defines: orientation → crop → rotate → flip/flop → resize. sharp runs
 * its operations in a fixed order of its own (rotate and mirrors before the pre-resize extract, and
 * with a 90°/270° rotation the mirrors before the rotation), so the crop rectangle is mapped into the
 * rotated/mirrored frame and the mirrors are swapped for quarter turns. The result equals the staged
 * operations pixel for pixel (tested) while decoding once.
 */
import sharp, { type Sharp } from 'sharp';
import { ValidationError } from '../../errors/catalog.ts';
import type { CropRequest, GeometryRequest, ResizeRequest } from './params.ts';
import type { ImageSource } from './source.ts';

export interface Size {
  width: number;
  height: number;
}

/** Size of one frame after the EXIF orientation. */
export function orientedSize(source: ImageSource): Size {
  const { meta } = source;
  if (source.applyOrientation && meta.autoOrient !== undefined) return meta.autoOrient;
  return { width: meta.width, height: meta.pageHeight ?? meta.height };
}

/** Rejects a crop outside the image. */
export function checkGeometry(source: ImageSource, geometry: GeometryRequest): void {
  const { width, height } = orientedSize(source);
  const crop = geometry.crop;
  if (crop !== undefined && (crop.x + crop.width > width || crop.y + crop.height > height)) {
    throw ValidationError.field(
      'image.crop',
      `crop x=${crop.x} y=${crop.y} width=${crop.width} height=${crop.height} lies outside the image, ` +
        `which is ${width}×${height} pixels after orientation`,
    );
  }
}

/** The crop rectangle in the frame of the image after rotating and mirroring it. */
export function mapCrop(size: Size, crop: CropRequest, g: GeometryRequest): CropRequest {
  const { width: W, height: H } = size;
  const { x, y, width: w, height: h } = crop;
  let r: CropRequest;
  let turned = { width: W, height: H };
  if (g.rotate === 90) {
    r = { x: H - y - h, y: x, width: h, height: w };
    turned = { width: H, height: W };
  } else if (g.rotate === 180) {
    r = { x: W - x - w, y: H - y - h, width: w, height: h };
  } else if (g.rotate === 270) {
    r = { x: y, y: W - x - w, width: h, height: w };
    turned = { width: H, height: W };
  } else {
    r = { ...crop };
  }
  if (g.flip) r.y = turned.height - r.y - r.height;
  if (g.flop) r.x = turned.width - r.x - r.width;
  return r;
}

export interface GeometryContext {
  /** The pipeline decodes every frame. */
  animated: boolean;
  /** The output format keeps alpha (default `pad` fill is transparent then, else white). */
  alphaOutput: boolean;
}

export function applyGeometry(
  pipeline: Sharp,
  source: ImageSource,
  g: GeometryRequest,
  context: GeometryContext,
): Sharp {
  if (source.applyOrientation && (source.meta.orientation ?? 1) > 1) pipeline = pipeline.autoOrient();
  if (g.rotate !== 0) pipeline = pipeline.rotate(g.rotate);
  const quarter = g.rotate === 90 || g.rotate === 270;
  if (quarter ? g.flop : g.flip) pipeline = pipeline.flip();
  if (quarter ? g.flip : g.flop) pipeline = pipeline.flop();
  if (g.crop !== undefined) {
    const r = mapCrop(orientedSize(source), g.crop, g);
    pipeline = pipeline.extract({ left: r.x, top: r.y, width: r.width, height: r.height });
  }
  if (g.resize !== undefined) pipeline = applyResize(pipeline, g.resize, context);
  return pipeline;
}

function applyResize(pipeline: Sharp, resize: ResizeRequest, context: GeometryContext): Sharp {
  const withoutEnlargement = !resize.upscale;
  switch (resize.mode) {
    case 'auto':
      return pipeline.resize({
        width: resize.width,
        height: resize.height,
        fit: 'inside',
        withoutEnlargement,
      });
    case 'exact':
      return pipeline.resize({ width: resize.width, height: resize.height, fit: 'fill', withoutEnlargement });
    case 'pad': {
      const background = resize.background ?? (context.alphaOutput ? '#00000000' : '#ffffff');
      return pipeline.resize({
        width: resize.width,
        height: resize.height,
        fit: 'contain',
        background,
        withoutEnlargement,
      });
    }
    case 'fit': {
      // Content-aware crops (attention, entropy) analyse one image; on a frame strip they would pick a
      // region across frames, so animations are cropped around the centre.
      let position: string | number = resize.gravity;
      if (resize.gravity === 'attention' || resize.gravity === 'entropy') {
        position = context.animated ? 'centre' : sharp.strategy[resize.gravity];
      }
      return pipeline.resize({
        width: resize.width,
        height: resize.height,
        fit: 'cover',
        position,
        withoutEnlargement,
      });
    }
  }
}
