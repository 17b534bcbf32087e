/**
 * Rough boxes of SVG elements in user units, for the filter-cost estimate (svg-filters.ts): a filter
 * is drawn over its element's box (plus a margin), not over the whole canvas. Boxes are generous (a
 * path's box includes its control points, an arc's its radii) and ignore transforms; an element whose
 * box cannot be read this cheaply has none, and the estimate then assumes the whole canvas.
 */
import type { XastElement } from 'svgo';

/** A plain number of user units ("12", "12.5px"); percentages and other units are not read. */
function length(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  // Trimmed first, and `\d+(?:\.\d*)?` rather than `\d+\.?\d*`: one way to match each digit, so a long
  // attribute cannot make the expression backtrack (the old form was cubic in the value's length).
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(px)?$/i.exec(value.trim());
  return match ? Math.abs(Number(match[1])) : undefined;
}

const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?/gi;

/** Width × height of the points a path's commands visit, control points and arc radii included. */
export function pathArea(d: string): number | undefined {
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const visit = (px: number, py: number, margin = 0) => {
    minX = Math.min(minX, px - margin);
    maxX = Math.max(maxX, px + margin);
    minY = Math.min(minY, py - margin);
    maxY = Math.max(maxY, py + margin);
  };
  for (const [, command = '', args = ''] of d.matchAll(
    /([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)/g,
  )) {
    const n = (args.match(NUMBER) ?? []).map(Number);
    const relative = command === command.toLowerCase();
    const upper = command.toUpperCase();
    if (upper === 'Z') {
      [x, y] = [startX, startY];
    } else if (upper === 'H' || upper === 'V') {
      for (const v of n) {
        if (upper === 'H') x = (relative ? x : 0) + v;
        else y = (relative ? y : 0) + v;
        visit(x, y);
      }
    } else if (upper === 'A') {
      for (let i = 0; i + 6 < n.length; i += 7) {
        const radius = Math.max(Math.abs(n[i] ?? 0), Math.abs(n[i + 1] ?? 0));
        visit(x, y, radius);
        x = (relative ? x : 0) + (n[i + 5] ?? 0);
        y = (relative ? y : 0) + (n[i + 6] ?? 0);
        visit(x, y, radius);
      }
    } else {
      // Pairs: every point of the segment, control points included; the last pair is the new position.
      const step = { M: 2, L: 2, T: 2, S: 4, Q: 4, C: 6 }[upper] ?? 2;
      for (let i = 0; i + step - 1 < n.length; i += step) {
        const base = relative ? [x, y] : [0, 0];
        for (let j = 0; j < step; j += 2)
          visit((base[0] ?? 0) + (n[i + j] ?? 0), (base[1] ?? 0) + (n[i + j + 1] ?? 0));
        x = (base[0] ?? 0) + (n[i + step - 2] ?? 0);
        y = (base[1] ?? 0) + (n[i + step - 1] ?? 0);
        if (upper === 'M' && i === 0) [startX, startY] = [x, y];
      }
    }
  }
  return maxX >= minX ? (maxX - minX || 1) * (maxY - minY || 1) : undefined;
}

/** The element's box area in user units, or undefined when it cannot be read cheaply. */
export function elementArea(node: XastElement): number | undefined {
  const a = node.attributes;
  switch (node.name.toLowerCase()) {
    case 'rect':
    case 'image':
    case 'use':
    case 'svg': {
      const w = length(a.width);
      const h = length(a.height);
      return w !== undefined && h !== undefined ? w * h : undefined;
    }
    case 'circle': {
      const r = length(a.r);
      return r === undefined ? undefined : 4 * r * r;
    }
    case 'ellipse': {
      const rx = length(a.rx);
      const ry = length(a.ry);
      return rx !== undefined && ry !== undefined ? 4 * rx * ry : undefined;
    }
    case 'path':
      return a.d === undefined ? undefined : pathArea(a.d);
    default:
      return undefined;
  }
}

/** The canvas in user units: the viewBox, else the width and height; undefined when neither is plain. */
export function canvasArea(root: XastElement): number | undefined {
  const box = (root.attributes.viewBox ?? '').match(NUMBER)?.map(Number);
  if (box?.length === 4) return Math.abs((box[2] ?? 0) * (box[3] ?? 0)) || undefined;
  return elementArea({ ...root, name: 'svg' });
}

/** A filter region's share of its element's box: `width="200%"` → 2, `"1.5"` → 1.5; default 1.2. */
export function regionFactor(value: string | undefined): number {
  if (value === undefined) return 1.2;
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(%)?$/.exec(value.trim());
  if (!match) return 1.2;
  return Math.abs(Number(match[1])) / (match[2] ? 100 : 1);
}
