/**
 * References from pages and style sheets to files of the site: rewritten when an image was converted (its
 * extension changed), and listed so tests can check that every one still resolves. URLs are resolved the way
 * a browser resolves a relative URL from the file that holds it; absolute URLs, `data:` and other schemes are
 * never touched, and a query or fragment is kept.
 */
import { posix } from 'node:path';
import { endsWithPictureTag, imgTags, replaceCssUrls } from './markup-scan.ts';

/** HTML attributes that load a file, and the CSS `url()` form (in style sheets, style attributes and blocks). */
const ATTRIBUTE = /(\s(?:src|href|poster|data-src)\s*=\s*)(["'])([^"']*)\2/gi;
const SRCSET = /(\s(?:srcset|data-srcset)\s*=\s*)(["'])([^"']*)\2/gi;

/** `renames` maps site paths (relative to the site root, `/`-separated) to their new paths. */
export type Renames = ReadonlyMap<string, string>;

/** The site path a reference in `from` (a site path) points at; undefined for external or non-file URLs. */
export function resolveReference(from: string, url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '' || /^([a-z][a-z0-9+.-]*:|\/\/|#)/i.test(trimmed)) return undefined;
  const path = trimmed.split(/[?#]/)[0]!;
  if (path === '') return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  const joined = decoded.startsWith('/') ? decoded.slice(1) : posix.join(posix.dirname(from), decoded);
  const normal = posix.normalize(joined);
  return normal.startsWith('../') ? undefined : normal;
}

/** The same URL with its file's extension replaced, when it points at a renamed file. */
function rewrite(from: string, url: string, renames: Renames): string {
  const target = resolveReference(from, url);
  const renamed = target === undefined ? undefined : renames.get(target);
  if (renamed === undefined) return url;
  const oldExt = posix.extname(target as string);
  const newExt = posix.extname(renamed);
  const cut = url.search(/[?#]/);
  const [path, rest] = cut < 0 ? [url, ''] : [url.slice(0, cut), url.slice(cut)];
  return path.endsWith(oldExt) ? `${path.slice(0, -oldExt.length)}${newExt}${rest}` : url;
}

export function rewriteCss(css: string, from: string, renames: Renames): string {
  return replaceCssUrls(css, (all, quote, url) => {
    const next = rewrite(from, url, renames);
    return next === url ? all : `url(${quote}${next}${quote})`;
  });
}

export function rewriteHtml(html: string, from: string, renames: Renames): string {
  return rewriteCss(
    html
      .replace(
        ATTRIBUTE,
        (_, head: string, quote: string, url: string) =>
          `${head}${quote}${rewrite(from, url, renames)}${quote}`,
      )
      .replace(SRCSET, (_, head: string, quote: string, list: string) => {
        const items = list.split(',').map((item) => {
          const [url = '', ...descriptor] = item.trim().split(/\s+/);
          return [rewrite(from, url, renames), ...descriptor].join(' ');
        });
        return `${head}${quote}${items.join(', ')}${quote}`;
      }),
    from,
    renames,
  );
}

/**
 * With `picture`: each <img> whose src was converted becomes <picture><source type srcset><img></picture>,
 * the <img> keeping the original as the fallback.
 */
export function wrapInPicture(html: string, from: string, renames: Renames, mime: string): string {
  let out = '';
  let copied = 0;
  for (const { tag: img, offset } of imgTags(html)) {
    out += html.slice(copied, offset) + pictureFor(img, offset, html, from, renames, mime);
    copied = offset + img.length;
  }
  return out + html.slice(copied);
}

function pictureFor(img: string, offset: number, html: string, from: string, renames: Renames, mime: string) {
  if (endsWithPictureTag(html.slice(Math.max(0, offset - 200), offset))) return img;
  const src = /\ssrc\s*=\s*(["'])([^"']*)\1/i.exec(img)?.[2];
  if (src === undefined) return img;
  const converted = rewrite(from, src, renames);
  if (converted === src) return img;
  return `<picture><source type="${mime}" srcset="${converted}">${img}</picture>`;
}
