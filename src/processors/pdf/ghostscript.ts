/**
 * Ghostscript `pdfwrite` settings and command line. Every run is `-dSAFER` (no file access beyond the
 * files named here, no device or shell escapes), with the job's directory as cwd and the output named
 * inside it; the tool runner adds the memory limit, the deadline and the process-group kill.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PdfToolRun, pdfTool } from '../shared/pdf-tools.ts';

/** One rung of the lossy ladder: images above `dpi` are downsampled, then JPEG-encoded at `qFactor`. */
export interface ImageSettings {
  /** Target resolution of colour and grey images, in pixels per inch of the page. */
  dpi: number;
  /** Distiller JPEG QFactor: 0.15 ≈ quality 95, 0.4 ≈ 85, 0.76 ≈ 75 (Adobe's "medium"), 1.3 ≈ 50. */
  qFactor: number;
}

export interface GhostscriptOptions {
  /** `lossless`: no downsampling, new images Flate-encoded, JPEGs passed through as they are. */
  images: ImageSettings | 'lossless';
  grayscale: boolean;
  pdfa: boolean;
}

/**
 * From the most to the least aggressive; a level starts at its own rung (`LADDER_START`) and moves
 * gentler while the rendered pages miss its target.
 */
export const LADDER: readonly ImageSettings[] = [
  { dpi: 96, qFactor: 0.9 },
  { dpi: 120, qFactor: 0.76 },
  { dpi: 150, qFactor: 0.5 },
  { dpi: 150, qFactor: 0.3 },
  { dpi: 200, qFactor: 0.2 },
  { dpi: 300, qFactor: 0.1 },
];

/** Downsample only images at least this much above the target resolution (Distiller's threshold). */
const DOWNSAMPLE_THRESHOLD = 1.2;

/** Ghostscript's sRGB profile, the output intent of PDF/A files. */
const SRGB_PROFILES = [
  '/usr/share/ghostscript/10.00.0/iccprofiles/default_rgb.icc',
  '/usr/share/color/icc/ghostscript/default_rgb.icc',
];

export async function ghostscript(
  input: string,
  output: string,
  options: GhostscriptOptions,
  run: PdfToolRun,
): Promise<void> {
  const settings = options.images;
  const image = (kind: 'Color' | 'Gray') =>
    settings === 'lossless'
      ? [
          `-dDownsample${kind}Images=false`,
          `-dAutoFilter${kind}Images=false`,
          `-d${kind}ImageFilter=/FlateEncode`,
        ]
      : [
          `-dDownsample${kind}Images=true`,
          `-d${kind}ImageResolution=${settings.dpi}`,
          `-d${kind}ImageDownsampleThreshold=${DOWNSAMPLE_THRESHOLD}`,
          `-d${kind}ImageDownsampleType=/Bicubic`,
          `-dAutoFilter${kind}Images=false`,
          `-d${kind}ImageFilter=/DCTEncode`,
        ];
  const qFactor = settings === 'lossless' ? 0.15 : settings.qFactor;
  const jpeg = `<< /QFactor ${qFactor} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`;
  const args = [
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-dQUIET',
    '-dNOINTERPOLATE',
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.7',
    // Fonts: keep only the glyphs used, compressed; an image drawn twice is stored once.
    '-dSubsetFonts=true',
    '-dCompressFonts=true',
    '-dDetectDuplicateImages=true',
    '-dCompressPages=true',
    ...image('Color'),
    ...image('Gray'),
    // Bilevel images (scans of text) keep their lossless CCITT/JBIG2-class encoding.
    '-dDownsampleMonoImages=false',
    ...(options.grayscale ? ['-sColorConversionStrategy=Gray', '-dProcessColorModel=/DeviceGray'] : []),
  ];
  const programs: string[] = [];
  if (options.pdfa) {
    const profile = SRGB_PROFILES.find((path) => existsSync(path));
    if (profile === undefined) throw new Error('no sRGB ICC profile found for PDF/A output');
    const definition = join(run.workDir, 'pdfa-def.ps');
    await writeFile(definition, pdfaDefinition(profile));
    args.push(
      '-dPDFA=2',
      '-dPDFACompatibilityPolicy=1',
      '-dEmbedAllFonts=true',
      `--permit-file-read=${profile}`,
      ...(options.grayscale ? [] : ['-sColorConversionStrategy=RGB', '-dProcessColorModel=/DeviceRGB']),
    );
    programs.push(definition);
  }
  await pdfTool(
    'gs',
    [
      ...args,
      `-sOutputFile=${output}`,
      '-c',
      `<< /ColorImageDict ${jpeg} /GrayImageDict ${jpeg} >> setdistillerparams`,
      '-f',
      ...programs,
      input,
    ],
    run,
  );
}

/** The PDF/A-2b output intent: the sRGB profile embedded as an ICC stream (Ghostscript's pdfmark form). */
function pdfaDefinition(profile: string): string {
  const literal = profile.replace(/[\\()]/g, (c) => `\\${c}`);
  return [
    '%!',
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    `[{icc_PDFA} (${literal}) (r) file /PUT pdfmark`,
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA}',
    '  /OutputConditionIdentifier (sRGB) /Info (sRGB IEC61966-2.1) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    '',
  ].join('\n');
}
