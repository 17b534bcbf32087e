/**
 * The rendering cost of an SVG's filters, estimated before anything is drawn. librsvg draws a document
 * in one uninterruptible call, and filter primitives are where a few bytes buy minutes: a 2.7 KB SVG of
 * stacked `feMorphology`/`feGaussianBlur`/`feTurbulence` filters held a worker for over ten minutes. The
 * survey (a svgo plugin, run in the SVG child process) adds up, per pixel of the rendered canvas, the
 * cost of every filter application; the caller refuses a render whose estimate exceeds the time left.
 */
import type { CustomPlugin, XastElement } from 'svgo';

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

/** A svgo plugin that records the filters and their uses; `load()` is read after `optimize` returns. */
export function filterSurvey(): { plugin: CustomPlugin; load: () => FilterLoad } {
  const costs = new Map<string, FilterCost>();
  const uses = new Map<string, number>();
  let elements = 0;
  let useElements = 0;
  const styled: string[] = [];
  const count = (id: string, times = 1) => uses.set(id, (uses.get(id) ?? 0) + times);
  const plugin: CustomPlugin = {
    name: 'presso-filter-survey',
    fn: () => ({
      element: {
        enter(node, parent) {
          elements++;
          const name = node.name.toLowerCase();
          if (name === 'use') useElements++;
          if (name.startsWith('fe') && parent.type === 'element' && parent.name.toLowerCase() === 'filter') {
            const id = parent.attributes.id ?? '';
            const cost = primitiveCost(node);
            const sum = costs.get(id) ?? { constantNs: 0, radiusNs: 0 };
            costs.set(id, {
              constantNs: sum.constantNs + cost.constantNs,
              radiusNs: sum.radiusNs + cost.radiusNs,
            });
          }
          const filter = node.attributes.filter;
          const direct = filter === undefined ? undefined : /url\(\s*['"]?#([^'")\s]+)/i.exec(filter)?.[1];
          if (direct !== undefined) count(direct);
          for (const m of (node.attributes.style ?? '').matchAll(FILTER_REFERENCE)) count(m[1] ?? '');
          if (name === 'style') {
            for (const child of node.children) {
              if (child.type === 'text' || child.type === 'cdata') {
                for (const m of child.value.matchAll(FILTER_REFERENCE)) styled.push(m[1] ?? '');
              }
            }
          }
        },
      },
    }),
  };
  const load = (): FilterLoad => {
    // A stylesheet rule may apply a filter to every element; <use> may repeat the costliest filter.
    for (const id of styled) count(id, elements);
    let constantNs = 0;
    let radiusNs = 0;
    let worst: FilterCost = { constantNs: 0, radiusNs: 0 };
    for (const [id, times] of uses) {
      const cost = costs.get(id);
      if (cost === undefined) continue;
      constantNs += times * cost.constantNs;
      radiusNs += times * cost.radiusNs;
      worst = {
        constantNs: Math.max(worst.constantNs, cost.constantNs),
        radiusNs: Math.max(worst.radiusNs, cost.radiusNs),
      };
    }
    return {
      constantNs: constantNs + useElements * worst.constantNs,
      radiusNs: radiusNs + useElements * worst.radiusNs,
    };
  };
  return { plugin, load };
}

/** Estimated milliseconds librsvg spends on filters for a canvas of `pixels` drawn at `scale`. */
export function filterMilliseconds(load: FilterLoad, scale: number, pixels: number): number {
  return ((load.constantNs + load.radiusNs * scale) * pixels) / 1e6;
}
