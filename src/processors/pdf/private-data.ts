/**
 * Data no reader draws: page-piece dictionaries (`/PieceInfo`, PDF 32000-1 §14.5), where authoring tools
 * keep their own copy of the artwork for editing (Adobe Illustrator's `AIPDFPrivateData` streams are
 * often most of a file: 3.1 MB of the 6.6 MB GS9_Color_Management.pdf), and page thumbnails (`/Thumb`,
 * which viewers draw from the page itself today). Removing the references changes no pixel of any page;
 * qpdf then leaves the unreferenced objects out. Acrobat's "discard private data of other applications"
 * does the same.
 */
import { isDict, type PdfDict, type PdfObjects, type PdfObjectUpdate } from './pdf-objects.ts';

const PRIVATE_KEYS = ['/PieceInfo'] as const;

export function privateDataUpdates(pdf: PdfObjects): Map<string, PdfObjectUpdate> {
  const updates = new Map<string, PdfObjectUpdate>();
  for (const [key, object] of Object.entries(pdf.objects)) {
    if (object.stream !== undefined) {
      const dict = withoutPrivate(object.stream.dict, false);
      if (dict !== undefined) updates.set(key, { stream: { dict } });
    } else if (isDict(object.value)) {
      const dict = withoutPrivate(object.value, object.value['/Type'] === '/Page');
      if (dict !== undefined) updates.set(key, { value: dict });
    }
  }
  return updates;
}

/** The dictionary without its private keys, or undefined when it has none. */
function withoutPrivate(dict: PdfDict, page: boolean): PdfDict | undefined {
  const keys: string[] = [...PRIVATE_KEYS, ...(page ? ['/Thumb'] : [])];
  if (!keys.some((k) => Object.hasOwn(dict, k))) return undefined;
  return Object.fromEntries(Object.entries(dict).filter(([k]) => !keys.includes(k)));
}
