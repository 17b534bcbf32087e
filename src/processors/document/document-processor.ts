/**
 * The document processor: office files (DOCX, XLSX, PPTX, ODT, ODS, ODP; RTF, DOC, XLS, PPT). ZIP-based documents are
 * unpacked (zip.ts, with part and size limits), their pictures recompressed by the image processor
 * (media.ts; converted and renamed with `images.format`, part-references.ts), their thumbnails dropped
 * below `lossless` (thumbnails.ts) and the container re-packed with deflate level 9; LibreOffice then
 * re-opens the result and it is kept only with the input's page count. `document.format` converts with
 * LibreOffice headless. LibreOffice opens only copies without links out of the document (libreoffice.ts);
 * a re-packed document keeps the user's own links, which the server never follows.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolMissingError, ValidationError } from '../../errors/catalog.ts';
import type { HostSettings } from '../module.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { pdfInfo } from '../shared/pdf-tools.ts';
import { toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { DEFAULT_DOCUMENT_LIMITS, DOCUMENT_TIME_EARNED, type DocumentLimits } from './config.ts';
import { convert, convertAll, type OfficeRun } from './libreoffice.ts';
import { recompressMedia } from './media.ts';
import { type DocumentOutputFormat, type DocumentParams, documentParams } from './params.ts';
import { isSigned, packageKind, updateReferences } from './part-references.ts';
import { dropThumbnails } from './thumbnails.ts';
import { readZip, writeZip } from './zip.ts';

const ZIP_FORMATS = new Set(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp']);
/** DOC, XLS, PPT and RTF are not ZIP containers: they are converted, or returned as they are. */
const INPUT_FORMATS = ['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'doc', 'xls', 'ppt'] as const;

/** Which office family each format belongs to: conversions stay within a family, except to PDF. */
const FAMILY: Record<string, 'text' | 'sheet' | 'slides'> = {
  docx: 'text',
  odt: 'text',
  rtf: 'text',
  doc: 'text',
  xlsx: 'sheet',
  ods: 'sheet',
  xls: 'sheet',
  pptx: 'slides',
  odp: 'slides',
  ppt: 'slides',
};

/** `settings.images`: the operator's image pixel cap, which pictures inside a document are decoded under. */
export function createDocumentProcessor(
  images: Processor,
  options: Partial<DocumentLimits>,
  settings: Pick<HostSettings, 'images'>,
): Processor {
  const limits = withOverrides(DEFAULT_DOCUMENT_LIMITS, options);
  return typedProcessor(documentParams, {
    name: 'document',
    kind: 'document',
    inputFormats: INPUT_FORMATS,
    outputFormats: [...INPUT_FORMATS, 'pdf'],
    process: (request) => processDocument(request, images, limits, settings.images.maxPixels),
  });
}

async function processDocument(
  request: ProcessRequest<DocumentParams>,
  images: Processor,
  limits: DocumentLimits,
  maxPixels: number,
): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const inputFormat = request.input.format;
  const run: OfficeRun = {
    // What the file earns by its size (shared/time-budget.ts).
    deadline: new Deadline(
      earnedTimeMs(limits, DOCUMENT_TIME_EARNED, { bytes: request.input.size }),
      'the document',
    ),
    signal: request.signal,
    ...toolScope(request),
    memoryBytes: limits.toolMemoryBytes,
    zip: { maxEntries: limits.maxParts, maxUnzippedBytes: limits.maxUnpackedBytes },
  };
  let path = request.input.path;
  let format = inputFormat;
  const target = params.format;
  if (target !== undefined && target !== inputFormat) {
    checkConversion(inputFormat, target);
    path = await convert(path, inputFormat, target, run);
    format = target;
  }
  if (format === 'pdf' || !ZIP_FORMATS.has(format)) {
    return { path, format, transformed: format !== inputFormat };
  }

  const entries = readZip(await readFile(path), run.zip);
  const kind = packageKind(entries);
  // A signed document keeps every part as signed: only the container is compressed again.
  if (!isSigned(entries)) {
    const media = await recompressMedia(entries, {
      images,
      maxPixels,
      level: params.compression,
      imageFormat: params.imageFormat,
      kind,
      workDir: request.workDir,
      signal: request.signal,
    });
    if (kind !== undefined) {
      updateReferences(entries, kind, media.renamed);
      // A preview is not content, but `lossless` promises the document back with everything it held.
      if (params.compression !== 'lossless') dropThumbnails(entries, kind);
    }
  }
  const repacked = join(request.workDir, `repacked.${format}`);
  await writeFile(repacked, writeZip(entries));
  if ((await stat(repacked)).size >= (await stat(path)).size) {
    return { path, format, transformed: format !== inputFormat };
  }
  if (limits.verify && !(await samePageCount(path, repacked, format, run))) {
    return { path, format, transformed: format !== inputFormat };
  }
  request.signal.throwIfAborted();
  return { path: repacked, format, transformed: format !== inputFormat };
}

function checkConversion(from: string, to: DocumentOutputFormat): void {
  if (to === 'pdf' || FAMILY[from] === FAMILY[to]) return;
  throw ValidationError.field('document.format', `a ${from} document cannot be converted to ${to}`);
}

/**
 * LibreOffice renders both to PDF, in one start: the re-packed document must open and lay out to as many
 * pages as the original.
 */
async function samePageCount(
  original: string,
  repacked: string,
  format: string,
  run: OfficeRun,
): Promise<boolean> {
  // A missing LibreOffice is the operator's to fix and is reported; any other failure keeps the input.
  const keepInput =
    <T>(fallback: T) =>
    (error: unknown) => {
      if (error instanceof ToolMissingError || run.signal.aborted || run.deadline.isExceeded()) throw error;
      return fallback;
    };
  const pdfs = await convertAll([original, repacked], format, 'pdf', run).catch(keepInput([]));
  const count = (pdf: string | undefined) =>
    pdf === undefined ? -1 : pdfInfo(pdf, run).then((info) => Number(info.get('Pages')), keepInput(-1));
  const before = await count(pdfs[0]);
  const after = await count(pdfs[1]);
  return before > 0 && before === after;
}
