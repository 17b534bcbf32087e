/**
 * The rendering cost of an SVG's filters, estimated before anything is drawn. librsvg draws a document
 * in one uninterruptible call, and filter primitives are where a few bytes buy minutes: a 2.7 KB SVG of
 * stacked `feMorphology`/`feGaussianBlur`/`feTurbulence` filters held a worker for over ten minutes. The
 * survey (a svgo plugin, run in the SVG child process) adds up, per pixel of the rendered canvas, the
 * cost of every filter application times the share of the canvas its region covers (svg-boxes.ts); the
 * caller refuses a render whose estimate is far beyond the time left, and the deadline kills the rest.
 */
import type { CustomPlugin, XastElement } from 'svgo';
import { canvasArea, elementArea, regionFactor } from './svg-boxes.ts';

/**
 * Nanoseconds per canvas pixel of one application of each primitive, measured with librsvg 2.61 (sharp
 * 0.35) on a 1000×1000 canvas, one core: plain fill 17 ns; `feGaussianBlur` 150 (σ 5) to 300 (σ 1.5);
 * `feMorphology` 4,300 (r 10) to 4,750 (r 20); `feTurbulence` 430 for 4 octaves; `feConvolveMatrix`
 * 450 for 5×5. Unmeasured primitives count as a blur.
 */
const NS = {
  blur: 300,
  morphologyBase: 4000,
  /** Per pixel of radius (rx + ry) at the render scale. */
  morphologyPerRadius: 40,
  turbulencePerOctave: 110,
  convolvePerCell: 18,
  other: 300,
} as const;

/** Cost of all filter applications per canvas pixel: `constantNs + radiusNs × scale`. */
export interface FilterLoad {
  constantNs: number;
  radiusNs: number;
}

interface FilterCost {
  constantNs: number;
  radiusNs: number;
}

const numbers = (value: string | undefined): number[] =>
  (value ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isFinite(n));

function primitiveCost(node: XastElement): FilterCost {
  const name = node.name.toLowerCase();
  const { attributes } = node;
  if (name === 'femorphology') {
    const [rx = 0, ry = rx] = numbers(attributes.radius).map(Math.abs);
    return { constantNs: NS.morphologyBase, radiusNs: NS.morphologyPerRadius * (rx + ry) };
  }
  if (name === 'feturbulence') {
    const octaves = Math.min(Math.max(1, numbers(attributes.numOctaves)[0] ?? 1), 64);
    return { constantNs: NS.turbulencePerOctave * octaves, radiusNs: 0 };
  }
  if (name === 'feconvolvematrix') {
    const [ox = 3, oy = ox] = numbers(attributes.order);
    return { constantNs: NS.convolvePerCell * Math.abs(ox * oy), radiusNs: 0 };
  }
  return { constantNs: name === 'fegaussianblur' ? NS.blur : NS.other, radiusNs: 0 };
}

const FILTER_REFERENCE = /filter\s*:\s*url\(\s*['"]?#([^'")\s]+)/gi;
const DIRECT_REFERENCE = /url\(\s*['"]?#([^'")\s]+)/i;

interface FilterInfo extends FilterCost {
  /** The region is in user units (`filterUnits="userSpaceOnUse"` with plain numbers): its area. */
  userArea: number | undefined;
  /** Otherwise the region's share of the element's box (default 1.2 × 1.2). */
  boxFactor: number;
}

/** One element drawn with a filter: the filter's id and the element's box area, when known. */
interface Application {
  id: string;
  area: number | undefined;
}

/**
 * A svgo plugin that records the filters and their uses; `load()` is read after `optimize` returns. It
 * surveys the first pass only (before svgo turns shapes into paths whose boxes are harder to read).
 */
export function filterSurvey(): { plugin: CustomPlugin; load: () => FilterLoad } {
  const filters = new Map<string, FilterInfo>();
  const applications: Application[] = [];
  const styled: string[] = [];
  let elements = 0;
  let useElements = 0;
  let canvas: number | undefined;
  let surveyed = false;
  const plugin: CustomPlugin = {
    name: 'presso-filter-survey',
    fn: () => {
      if (surveyed) return {};
      surveyed = true;
      return {
        element: {
          enter(node, parent) {
            elements++;
            const name = node.name.toLowerCase();
            if (name === 'svg' && parent.type === 'root') canvas = canvasArea(node);
            if (name === 'use') useElements++;
            if (name === 'filter') filters.set(node.attributes.id ?? '', filterInfo(node));
            if (
              name.startsWith('fe') &&
              parent.type === 'element' &&
              parent.name.toLowerCase() === 'filter'
            ) {
              const info = filters.get(parent.attributes.id ?? '');
              const cost = primitiveCost(node);
              if (info !== undefined) {
                info.constantNs += cost.constantNs;
                info.radiusNs += cost.radiusNs;
              }
            }
            const area = elementArea(node);
            const direct = DIRECT_REFERENCE.exec(node.attributes.filter ?? '')?.[1];
            if (direct !== undefined) applications.push({ id: direct, area });
            for (const m of (node.attributes.style ?? '').matchAll(FILTER_REFERENCE)) {
              applications.push({ id: m[1] ?? '', area });
            }
            if (name === 'style') {
              for (const child of node.children) {
                if (child.type === 'text' || child.type === 'cdata') {
                  for (const m of child.value.matchAll(FILTER_REFERENCE)) styled.push(m[1] ?? '');
                }
              }
            }
          },
        },
      };
    },
  };
  const load = (): FilterLoad => {
    /** The share of the canvas one application covers: 1 when its region cannot be read. */
    const share = (info: FilterInfo, area: number | undefined): number => {
      if (canvas === undefined) return 1;
      const region = info.userArea ?? (area === undefined ? undefined : area * info.boxFactor);
      return region === undefined ? 1 : Math.min(1, region / canvas);
    };
    let constantNs = 0;
    let radiusNs = 0;
    const add = (info: FilterInfo | undefined, times: number) => {
      if (info === undefined) return;
      constantNs += times * info.constantNs;
      radiusNs += times * info.radiusNs;
    };
    for (const { id, area } of applications) add(filters.get(id), share(filters.get(id) ?? EMPTY, area));
    // A stylesheet rule may apply a filter to every element; <use> may repeat the costliest filter.
    for (const id of styled) add(filters.get(id), elements);
    const worst = [...filters.values()].reduce(
      (a, b) => (b.constantNs + b.radiusNs > a.constantNs + a.radiusNs ? b : a),
      EMPTY,
    );
    add(worst, useElements);
    return { constantNs, radiusNs };
  };
  return { plugin, load };
}

const EMPTY: FilterInfo = { constantNs: 0, radiusNs: 0, userArea: undefined, boxFactor: 1.2 };

function filterInfo(node: XastElement): FilterInfo {
  const { attributes } = node;
  const userSpace = attributes.filterUnits === 'userSpaceOnUse';
  const w = userSpace ? Number(attributes.width) : Number.NaN;
  const h = userSpace ? Number(attributes.height) : Number.NaN;
  return {
    constantNs: 0,
    radiusNs: 0,
    userArea: Number.isFinite(w) && Number.isFinite(h) ? Math.abs(w * h) : undefined,
    boxFactor: regionFactor(attributes.width) * regionFactor(attributes.height),
  };
}

/** Estimated milliseconds librsvg spends on filters for a canvas of `pixels` drawn at `scale`. */
export function filterMilliseconds(load: FilterLoad, scale: number, pixels: number): number {
  return ((load.constantNs + load.radiusNs * scale) * pixels) / 1e6;
}
