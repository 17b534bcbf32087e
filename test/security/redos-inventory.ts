/**
 * Every regular expression (or the linear scanner that replaced one) that attacker-controlled text
 * reaches, one entry each, with a pathological input of 50-100 KB built from the strings that make a
 * backtracking pattern of that shape go super-linear (long runs of what its quantifiers overlap on,
 * many openings without their closing). redos.test.ts runs them all in a child process with a CPU-time
 * limit; each finishes in milliseconds when it is linear. Patterns that only see trusted text (operator
 * configuration, our own file names, numbers ffmpeg computes) are not here; the source check
 * (regex-source.test.ts) covers every pattern of src/ whatever its input.
 */
import { URL } from 'node:url';
import { withoutTrailingSlashes } from '../../src/config/text.ts';
import { extractApiKey } from '../../src/http/plugins/access-control.ts';
import { parseRange } from '../../src/http/routes/downloads.ts';
import { isSvgText } from '../../src/media/detect.ts';
import { outputName, safeFileName } from '../../src/media/formats.ts';
import { fileNameFor, normaliseHeaders } from '../../src/outbound/request-parts.ts';
import { parseListing } from '../../src/processors/archive-tools/listing.ts';
import { escapes } from '../../src/processors/archive-tools/safety.ts';
import {
  resolveReference,
  rewriteCss,
  rewriteHtml,
  wrapInPicture,
} from '../../src/processors/bundle/references.ts';
import {
  canvasArea,
  elementArea,
  pathArea,
  regionFactor,
} from '../../src/processors/image/codecs/svg-boxes.ts';
import { isExternalReference, isSafeCssValue } from '../../src/processors/image/codecs/svg-css.ts';
import { checkSvgLimits, nestingDepth } from '../../src/processors/image/codecs/svg-limits.ts';
import { iccDescription } from '../../src/processors/image/icc.ts';
import { withoutTrailingNuls } from '../../src/processors/image/metadata-text.ts';
import { copyrightOf } from '../../src/processors/image/pipeline.ts';
import { publicDetail } from '../../src/processors/shared/public-detail.ts';
import { parseConnectionString } from '../../src/stores/azure/azure-connection-string.ts';
import { toFieldErrors } from '../../src/validation/schema-validator.ts';

export interface RedosEntry {
  /** Where the pattern lives and what it reads. */
  name: string;
  /** Runs the pattern (or its replacement) on pathological inputs. */
  run(): void;
}

const N = 50_000;
const many = (text: string, bytes = 100_000) => text.repeat(Math.ceil(bytes / text.length));
const SVG_LIMITS = { svgMaxBytes: 1e9, svgMaxDepth: 1e9, svgMaxElements: 1e9 };
const element = (name: string, attributes: Record<string, string>) =>
  ({ type: 'element', name, attributes, children: [] }) as Parameters<typeof elementArea>[0];

/** An ICC profile whose `desc` tag holds `text` (iccDescription reads it through `/\0+/g`). */
function iccWithDescription(text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  const icc = Buffer.alloc(156 + body.length);
  icc.writeUInt32BE(1, 128);
  icc.write('desc', 132, 'latin1');
  icc.writeUInt32BE(144, 136);
  icc.writeUInt32BE(12 + body.length, 140);
  icc.write('desc', 144, 'latin1');
  icc.writeUInt32BE(body.length, 152);
  body.copy(icc, 156);
  return icc;
}

export const REDOS_INVENTORY: RedosEntry[] = [
  {
    name: 'image/codecs/svg-limits.ts nestingDepth (was /<(\\/?)[A-Za-z_][^\\s/>]*(?:"[^"]*"|...)*?(\\/?)>/g, cubic)',
    run: () => {
      nestingDepth(many('<a'));
      nestingDepth(`<svg>${many('<a "')}`);
      nestingDepth(`<svg>${many("<a b='' ")}`);
      nestingDepth(many('<a/'));
    },
  },
  {
    name: 'image/codecs/svg-limits.ts nestingDepth skipped markup (was /<!--[\\s\\S]*?-->|<!\\[CDATA\\[...|<\\?...|<![^>]*>/g)',
    run: () => {
      nestingDepth(many('<?'));
      nestingDepth(many('<!--'));
      nestingDepth(many('<![CDATA['));
      nestingDepth(many('<!'));
    },
  },
  {
    name: 'image/codecs/svg-limits.ts checkSvgLimits /<!ENTITY/i and the element count',
    run: () => checkSvgLimits(many('<!ENTIT<a'), 0, SVG_LIMITS),
  },
  {
    name: 'image/codecs/svg-boxes.ts length() /^([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:e[+-]?\\d+)?)\\s*(px)?$/i',
    run: () => {
      elementArea(element('rect', { width: `${'0'.repeat(N)}${' '.repeat(N)}x`, height: '1' }));
      elementArea(element('circle', { r: `${'0'.repeat(N)}.${'0'.repeat(N)}e` }));
    },
  },
  {
    name: 'image/codecs/svg-boxes.ts regionFactor /^([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*(%)?$/',
    run: () => regionFactor(`${'0'.repeat(N)}${'\t'.repeat(N)}+0`),
  },
  {
    name: 'image/codecs/svg-boxes.ts pathArea commands and NUMBER',
    run: () => {
      pathArea(`M${many('1')}`);
      pathArea(`M${many('1.1.1e')}`);
      pathArea(many('M1 1'));
      canvasArea(element('svg', { viewBox: many('0.') }));
    },
  },
  {
    name: 'image/codecs/svg-css.ts isExternalReference /^data:image\\/(png|jpe?g|gif|webp)[;,]/i, isSafeCssValue /[\\\\(@]/',
    run: () => {
      isExternalReference(`data:image/${many('png')}`);
      isSafeCssValue(many('a'));
    },
  },
  {
    name: 'image/pipeline.ts copyrightOf XMP dc:rights / dc:creator / rdf:li (was /<name\\b[^>]*>([\\s\\S]*?)<\\/name>/, quadratic)',
    run: () => {
      copyrightOf(undefined, Buffer.from(many('<dc:rights')));
      copyrightOf(undefined, Buffer.from(many('<dc:rights>h')));
      copyrightOf(undefined, Buffer.from(`<dc:creator>${many('<rdf:li/')}</dc:creator>`));
      copyrightOf(undefined, Buffer.from(`<dc:creator>${many('<rdf:li>')}</dc:creator>`));
    },
  },
  {
    name: 'image/metadata-text.ts withoutTrailingNuls (was /\\0+$/ in pipeline.ts and metadata.ts, quadratic)',
    run: () => {
      withoutTrailingNuls(`${'\0'.repeat(N)}\u0001\0`);
      withoutTrailingNuls('\0'.repeat(N));
    },
  },
  {
    name: 'image/icc.ts iccDescription /\\0+/g',
    run: () => iccDescription(iccWithDescription(`${'\0'.repeat(N)}x${'\0'.repeat(N)}`)),
  },
  {
    name: 'media/detect.ts isSvgText prolog items (doctype was /^<!DOCTYPE\\s[^[>]*(\\[[\\s\\S]*?\\])?\\s*>/i, quadratic)',
    run: () => {
      isSvgText(many(' '));
      isSvgText(`<?xml${many(' ')}`);
      isSvgText(`<?${many('?')}`);
      isSvgText(`<!--${many('-')}`);
      isSvgText(`<!DOCTYPE\t${many('\t')}`);
      isSvgText(`<!DOCTYPE svg [${many(']')}`);
      isSvgText(many('<!---->'));
    },
  },
  {
    name: 'media/formats.ts safeFileName and outputName (file names of uploads)',
    run: () => {
      safeFileName(many('/'));
      safeFileName(many('\u0001'));
      safeFileName(`${many('. ')}x`);
      outputName(`${many('a.tar')}.x`, 'png');
    },
  },
  {
    name: 'outbound/request-parts.ts fileNameFor Content-Disposition (filename*, filename, %XX, \\\\)',
    run: () => {
      const url = new URL('https://example.com/a.png');
      fileNameFor(many('; filename*='), url);
      fileNameFor(`filename*=${many("'")}`, url);
      fileNameFor(`filename="${many('\\')}`, url);
      fileNameFor(`filename="${many('\\a')}"`, url);
      fileNameFor(many(';\t'), url);
      fileNameFor(`filename=${many('%4')}`, url);
    },
  },
  {
    name: 'outbound/request-parts.ts normaliseHeaders (header name token, CR/LF/NUL)',
    run: () => {
      normaliseHeaders({ [many('a')]: many('b') }, 'headers');
      try {
        normaliseHeaders({ a: `${many('b')}\n` }, 'headers');
      } catch {
        // Refused (a line break): what matters is that it answered.
      }
    },
  },
  {
    name: 'bundle/markup-scan.ts via rewriteCss (was /url\\(\\s*(["\']?)([^"\')]+)\\1\\s*\\)/gi, cubic)',
    run: () => {
      const renames = new Map([['a.png', 'a.webp']]);
      rewriteCss(many('url(L'), 'style.css', renames);
      rewriteCss(`url("${many('url(')}"${' '.repeat(N)}x`, 'style.css', renames);
      rewriteCss(many('url( '), 'style.css', renames);
    },
  },
  {
    name: 'bundle/references.ts rewriteHtml ATTRIBUTE and SRCSET',
    run: () => {
      const renames = new Map([['a.png', 'a.webp']]);
      rewriteHtml(many(' src='), 'index.html', renames);
      rewriteHtml(many(' src="'), 'index.html', renames);
      rewriteHtml(` srcset="${many(' a.png 1x,')}"`, 'index.html', renames);
    },
  },
  {
    name: 'bundle/markup-scan.ts via wrapInPicture (was /<img\\b[^>]*>/gi and /<picture\\b[^>]*>\\s*$/i, quadratic)',
    run: () => {
      const renames = new Map([['a.png', 'a.webp']]);
      wrapInPicture(many('<img '), 'index.html', renames, 'image/webp');
      wrapInPicture(many('<picture <img src="a.png">'), 'index.html', renames, 'image/webp');
      wrapInPicture(many('<img src="'), 'index.html', renames, 'image/webp');
    },
  },
  {
    name: 'bundle/references.ts resolveReference /^([a-z][a-z0-9+.-]*:|\\/\\/|#)/i and /[?#]/',
    run: () => {
      resolveReference('index.html', many('a'));
      resolveReference('index.html', `${many('a+')}?`);
    },
  },
  {
    name: 'shared/public-detail.ts publicDetail (tool stderr: control characters, paths, spaces)',
    run: () => {
      publicDetail(many('/'));
      publicDetail(many(' /a'));
      publicDetail(many('\u0000 '));
      publicDetail(many('C:\\'));
    },
  },
  {
    name: 'validation/schema-validator.ts toFieldErrors (JSON pointer of request fields)',
    run: () => {
      toFieldErrors([
        { instancePath: many('/0'), schemaPath: '', keyword: 'type', params: { type: 'string' } },
        { instancePath: `/${many('~1~0')}`, schemaPath: '', keyword: 'type', params: { type: 'string' } },
      ]);
    },
  },
  {
    name: 'http/plugins/access-control.ts extractApiKey /\\s+/ (Authorization header)',
    run: () => {
      extractApiKey(`Bearer${many(' ')}x`);
    },
  },
  {
    name: 'stores/azure-connection-string.ts parseConnectionString (Azure connection string, a scan)',
    run: () => {
      try {
        parseConnectionString(many('BlobEndpoint=;'));
      } catch {
        // Refused as malformed: the point is that refusing it takes linear time.
      }
    },
  },
  {
    name: "archive-tools/listing.ts parseListing /\\n\\s*\\n/ and /^[A-Z]*\\s*/ (7-Zip's listing echoes member names)",
    run: () => {
      parseListing(`\n----------\n${many('Path = \n \n')}`);
      parseListing(`\n----------\nPath = a\nAttributes = ${many('A')}${many(' ')}`);
    },
  },
  {
    name: 'archive-tools/safety.ts escapes /^[A-Za-z]:/ (member names)',
    run: () => {
      escapes(many('a:'));
    },
  },
  {
    name: 'http/routes/downloads.ts parseRange (was /^bytes=\\s*(\\d*)\\s*-\\s*(\\d*)\\s*(?:,.*)?$/, cubic)',
    run: () => {
      parseRange(`bytes=${'\t'.repeat(N)}-${'\t'.repeat(N)}\t0-`, 100);
      parseRange(`bytes=${many('0')}-${many('0')}x`, 100);
    },
  },
  {
    name: 'config/text.ts withoutTrailingSlashes (was /\\/+$/ in stores/s3/presets.ts, stores/gcs-store.ts, http/config.ts)',
    run: () => {
      withoutTrailingSlashes(`https://h${'/'.repeat(N)}x`);
    },
  },
];
