/**
 * CSS inside an SVG (`<style>` contents, `style=` and presentation attributes), made unable to reach
 * outside the document. Text patterns are not enough: CSS escapes (`@\69mport`, `u\72l(`), comments and
 * case all spell the same token, so the CSS is parsed with css-tree, names are decoded before they are
 * compared, and the CSS css-tree generates from the checked tree is what is served. Whatever holds an
 * external reference or text the parser could not make sense of is neutralised (see `neutralise`).
 */
import {
  type CssNode,
  type EnterOrLeaveFn,
  generate,
  ident,
  parse,
  type Value,
  type WalkContext,
  walk,
} from 'css-tree';

/** Anything but a fragment or an embedded raster image points outside the document. */
export function isExternalReference(reference: string): boolean {
  const value = reference.trim();
  return !value.startsWith('#') && !/^data:image\/(png|jpe?g|gif|webp)[;,]/i.test(value);
}

/** Functions whose string arguments are URLs (browsers fetch them; librsvg ignores most). */
const URL_FUNCTIONS = new Set(['url', 'src', 'image', 'image-set', '-webkit-image-set', 'cross-fade']);

const decodedName = (name: string): string => ident.decode(name).toLowerCase();

/** Inside `url(...)`, `image-set(...)` and the like, where a plain string is a URL. */
function insideUrlFunction(context: WalkContext): boolean {
  const fn = context.function;
  return fn?.type === 'Function' && URL_FUNCTIONS.has(decodedName(fn.name));
}

/** Whether this node, seen alone, makes its enclosing unit unsafe. */
function isUnsafe(node: CssNode, insideUrlFunction: boolean): boolean {
  switch (node.type) {
    case 'Raw':
      return true;
    case 'Atrule':
      return decodedName(node.name) === 'import';
    case 'Url':
      return isExternalReference(node.value);
    case 'String':
      return insideUrlFunction && isExternalReference(node.value);
    default:
      return false;
  }
}

/**
 * A declaration that holds an unsafe node gets the value `none` (what SVG 2 paints for an unresolvable
 * `url()`, so `fill: url(https://…)` hides the shape as a viewer would instead of painting it black); a
 * rule, at-rule or top-level item that holds one is dropped.
 */
function neutralise(ast: CssNode): void {
  const doomed = new Set<CssNode>();
  const find: EnterOrLeaveFn = function (this: WalkContext, node) {
    if (isUnsafe(node, insideUrlFunction(this)))
      doomed.add(this.declaration ?? this.rule ?? this.atrule ?? node);
  };
  walk(ast, find);
  if (doomed.size === 0) return;
  const remove: EnterOrLeaveFn = (node, item, list) => {
    if (!doomed.has(node)) return;
    if (node.type === 'Declaration') node.value = parse('none', { context: 'value' }) as Value;
    else if (list && item) list.remove(item);
  };
  walk(ast, remove);
}

function sanitise(css: string, context: 'stylesheet' | 'declarationList' | 'value'): string {
  // Custom properties are parsed too, so their values are checked like any other.
  let ast: CssNode;
  try {
    ast = parse(css, { context, parseCustomProperty: true, onParseError: () => {} });
  } catch {
    return ''; // not even recoverable: nothing of it is kept
  }
  neutralise(ast);
  return generate(ast);
}

/** A `<style>` element's contents. */
export function sanitiseStylesheet(css: string): string {
  return sanitise(css, 'stylesheet');
}

/** A `style=` attribute. */
export function sanitiseDeclarations(css: string): string {
  return sanitise(css, 'declarationList');
}

/** Whether a presentation attribute's value (`fill="url(#g)"`) refers to nothing outside the document. */
export function isSafeCssValue(value: string): boolean {
  if (!/[\\(@]/.test(value)) return true; // no function, escape or at-keyword: nothing to fetch
  let ast: CssNode;
  try {
    ast = parse(value, { context: 'value', onParseError: () => {} });
  } catch {
    return false;
  }
  let safe = true;
  const check: EnterOrLeaveFn = function (this: WalkContext, node) {
    if (isUnsafe(node, insideUrlFunction(this))) safe = false;
  };
  walk(ast, check);
  return safe;
}
