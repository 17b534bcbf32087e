/**
 * SVG input: refused above a size or nesting limit, sanitised (scripts, event handlers, `javascript:`
 * URLs, external references, `<foreignObject>`, CSS `@import` and external `url()` found by parsing the CSS,
 * see svg-css.ts), then optimised with svgo.
 * The sanitised SVG is both the SVG output and the source of any rasterisation.
 */
import { type CustomPlugin, optimize } from 'svgo';
import { UnprocessableInputError } from '../../../errors/catalog.ts';
import { isExternalReference, isSafeCssValue, sanitiseDeclarations, sanitiseStylesheet } from './svg-css.ts';

export interface SvgLimits {
  svgMaxBytes: number;
  svgMaxDepth: number;
}

/** Refuses an SVG that is too large, too deeply nested, or declares entities (expansion bombs). */
export function checkSvgLimits(text: string, bytes: number, limits: SvgLimits): void {
  if (bytes > limits.svgMaxBytes) {
    throw new UnprocessableInputError(
      `The SVG is ${bytes} bytes; this server accepts SVGs of at most ${limits.svgMaxBytes} bytes.`,
    );
  }
  if (/<!ENTITY/i.test(text)) {
    throw new UnprocessableInputError('SVGs that declare XML entities are not accepted.');
  }
  const depth = nestingDepth(text);
  if (depth > limits.svgMaxDepth) {
    throw new UnprocessableInputError(
      `The SVG nests elements ${depth} deep; this server accepts at most ${limits.svgMaxDepth}.`,
    );
  }
}

/** Deepest element nesting, from a linear scan of the tags (no parser recursion). */
export function nestingDepth(text: string): number {
  const body = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<![^>]*>/g, '');
  const tag = /<(\/?)[A-Za-z_][^\s/>]*(?:"[^"]*"|'[^']*'|[^'">])*?(\/?)>/g;
  let depth = 0;
  let max = 0;
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    if (m[1] === '/') depth--;
    else if (m[2] !== '/') max = Math.max(max, ++depth);
  }
  return max;
}

const sanitise: CustomPlugin = {
  name: 'presso-sanitise',
  fn: () => ({
    element: {
      enter(node, parentNode) {
        const name = node.name.toLowerCase();
        const href = node.attributes.href ?? node.attributes['xlink:href'];
        const drop =
          name === 'script' ||
          name === 'foreignobject' ||
          ((name === 'use' || name === 'feimage') && href !== undefined && isExternalReference(href));
        if (drop) {
          parentNode.children = parentNode.children.filter((child) => child !== node);
          return;
        }
        for (const [attribute, value] of Object.entries(node.attributes)) {
          const lower = attribute.toLowerCase();
          const isHref = lower === 'href' || lower.endsWith(':href');
          if (
            lower.startsWith('on') ||
            /^\s*(javascript|vbscript):/i.test(value) ||
            (isHref && isExternalReference(value))
          ) {
            delete node.attributes[attribute];
          } else if (lower !== 'style' && !isSafeCssValue(value)) {
            node.attributes[attribute] = 'none'; // as for an unresolvable url(): not painted
          } else if (lower === 'style') {
            node.attributes[attribute] = sanitiseDeclarations(value);
          }
        }
        if (name === 'style') {
          for (const child of node.children) {
            if (child.type === 'text' || child.type === 'cdata')
              child.value = sanitiseStylesheet(child.value);
          }
        }
      },
    },
  }),
};

/** The sanitised, optimised SVG; refuses text that is not a parseable SVG. */
export function sanitiseSvg(text: string, optimiseFurther: boolean): string {
  try {
    return optimize(text, {
      multipass: optimiseFurther,
      // Sanitising runs first so later plugins never see what it removes.
      plugins: optimiseFurther
        ? [sanitise, 'removeScripts', 'preset-default', sanitise]
        : [sanitise, 'removeScripts', sanitise],
    }).data;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UnprocessableInputError(`The SVG could not be parsed: ${detail}`, error);
  }
}
