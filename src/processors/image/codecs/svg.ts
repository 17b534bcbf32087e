/**
 * SVG input: refused above a size or nesting limit (svg-limits.ts), sanitised (scripts, event handlers, `javascript:`
 * URLs, external references, `<foreignObject>`, CSS `@import` and external `url()` found by parsing the CSS,
 * see svg-css.ts), then optimised with svgo.
 * The sanitised SVG is both the SVG output and the source of any rasterisation.
 */
import { type CustomPlugin, optimize } from '#svgo';
import { UnprocessableInputError } from '../../../errors/catalog.ts';
import { isExternalReference, isSafeCssValue, sanitiseDeclarations, sanitiseStylesheet } from './svg-css.ts';
import { type FilterLoad, filterSurvey } from './svg-filters.ts';

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

export interface SanitisedSvg {
  svg: string;
  /** What the filters that remain will cost to render (svg-filters.ts). */
  filters: FilterLoad;
}

/**
 * The sanitised, optimised SVG; refuses text that is not a parseable SVG. CPU-heavy (svgo): the service
 * calls it only in the SVG child process (svg-child.ts), where the deadline can kill it.
 */
export function sanitiseSvg(text: string, optimiseFurther: boolean): SanitisedSvg {
  const survey = filterSurvey();
  try {
    const svg = optimize(text, {
      multipass: optimiseFurther,
      // Sanitising runs first so later plugins never see what it removes, nor does the survey.
      plugins: optimiseFurther
        ? [sanitise, 'removeScripts', survey.plugin, 'preset-default', sanitise]
        : [sanitise, 'removeScripts', survey.plugin, sanitise],
    }).data;
    return { svg, filters: survey.load() };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UnprocessableInputError(`The SVG could not be parsed: ${detail}`, error);
  }
}
