/** The `bundle` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from '#typebox';
import type { ParamsSpec } from '../module.ts';

export const BUNDLE_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type BundleLevel = (typeof BUNDLE_LEVELS)[number];
export const BUNDLE_IMAGE_FORMATS = ['keep', 'webp', 'avif'] as const;
export type BundleImageFormat = (typeof BUNDLE_IMAGE_FORMATS)[number];

const imagesSchema = Type.Object(
  {
    format: Type.Optional(
      Type.Enum(BUNDLE_IMAGE_FORMATS, {
        default: 'keep',
        description:
          'Convert PNG and JPEG images to WebP or AVIF and rewrite every reference to them (HTML src, ' +
          'srcset, href, poster, style and CSS url()); `keep` optimises each image in its own format.',
      }),
    ),
    picture: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'With `format`: keep the original images and wrap each <img> in a <picture> whose <source> is the ' +
          'converted one, so browsers without WebP or AVIF still load the original.',
      }),
    ),
  },
  // Its default lets the defaults inside it apply when a request leaves it out.
  { additionalProperties: false, default: {} },
);

export const bundleParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(BUNDLE_LEVELS, {
        default: 'high',
        description:
          'Level the images are optimised at by the image processor; HTML, CSS, JavaScript, SVG and JSON are ' +
          'minified at every level (`lossless` keeps every image pixel).',
      }),
    ),
    images: Type.Optional(imagesSchema),
  },
  { additionalProperties: false },
);

export interface BundleParams {
  compression: BundleLevel;
  imageFormat: BundleImageFormat;
  picture: boolean;
}

/** `images` once its defaults are applied. */
const resolvedImagesSchema = Type.Object(
  { ...imagesSchema.properties, ...Type.Required(Type.Pick(imagesSchema, ['format', 'picture'])).properties },
  { additionalProperties: false },
);

/** The schema with every field that has a default required, in `images` too: what the processor receives. */
const resolvedBundleParamsSchema = Type.Object(
  {
    ...bundleParamsSchema.properties,
    ...Type.Required(Type.Pick(bundleParamsSchema, ['compression'])).properties,
    images: resolvedImagesSchema,
  },
  { additionalProperties: false },
);

/** The namespace as the module's typed entry applies it (module.ts `typedProcessor`), `images` defaulted too. */
export const bundleParams: ParamsSpec<typeof resolvedBundleParamsSchema, BundleParams> = {
  schema: bundleParamsSchema,
  resolved: resolvedBundleParamsSchema,
  derive: ({ compression, images }) => ({
    compression,
    imageFormat: images.format,
    picture: images.picture,
  }),
};
