/** The `bundle` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from 'typebox';
import type { ParamsSpec } from '../module.ts';

export const BUNDLE_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type BundleLevel = (typeof BUNDLE_LEVELS)[number];
export const BUNDLE_IMAGE_FORMATS = ['keep', 'webp', 'avif'] as const;
export type BundleImageFormat = (typeof BUNDLE_IMAGE_FORMATS)[number];

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
    images: Type.Optional(
      Type.Object(
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
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export interface BundleParams {
  compression: BundleLevel;
  imageFormat: BundleImageFormat;
  picture: boolean;
}

/** The schema with every top-level field that has a default required: what the processor receives. */
const resolvedBundleParamsSchema = Type.Object(
  {
    ...bundleParamsSchema.properties,
    ...Type.Required(Type.Pick(bundleParamsSchema, ['compression'])).properties,
  },
  { additionalProperties: false },
);

/**
 * The namespace as the module's typed entry applies it (module.ts `typedProcessor`). A field inside the
 * optional `images` object has its default only when the object is given, so it is read here.
 */
export const bundleParams: ParamsSpec<typeof resolvedBundleParamsSchema, BundleParams> = {
  schema: bundleParamsSchema,
  resolved: resolvedBundleParamsSchema,
  derive: ({ compression, images }) => ({
    compression,
    imageFormat: images?.format ?? 'keep',
    picture: images?.picture === true,
  }),
};
