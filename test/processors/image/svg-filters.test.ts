/**
 * The filter-cost estimate: each filter application counts the share of the canvas its region covers,
 * read from the element's box, so many small shadowed shapes pass and full-canvas filter stacks do not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitiseSvg } from '../../../src/processors/image/codecs/svg.ts';
import { pathArea } from '../../../src/processors/image/codecs/svg-boxes.ts';
import { filterMilliseconds } from '../../../src/processors/image/codecs/svg-filters.ts';

const SHADOW =
  '<filter id="s"><feGaussianBlur in="SourceAlpha" stdDeviation="3"/><feOffset dx="2" dy="2"/>' +
  '<feMerge><feMergeNode/><feMergeNode in="SourceGraphic"/></feMerge></filter>';

function estimateMs(body: string, size = 2000): number {
  const { filters } = sanitiseSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${body}</svg>`,
    true,
  );
  return filterMilliseconds(filters, 1, size * size);
}

describe('SVG filter cost', () => {
  it('reads path boxes, relative commands and control points included', () => {
    assert.equal(pathArea('M10 10h20v30z'), 600);
    assert.equal(pathArea('m10 10 l20 0 0 30z'), 600);
    assert.equal(pathArea('M0 0C0 -10 40 -10 40 0'), 400, 'the control points bound the curve');
    assert.equal(pathArea('M0 0a5 5 0 0 1 10 0'), 20 * 10, 'arc radii widen the box');
  });

  it('counts the share of the canvas each application covers', () => {
    const small = Array.from(
      { length: 200 },
      (_, i) =>
        `<circle cx="${(i % 20) * 100 + 50}" cy="${Math.floor(i / 20) * 100 + 50}" r="20" filter="url(#s)"/>`,
    ).join('');
    const paths = Array.from(
      { length: 200 },
      (_, i) => `<path d="M${i * 10} 0h20v20h-20z" filter="url(#s)"/>`,
    ).join('');
    const whole = `<rect width="2000" height="2000" filter="url(#s)"/>`.repeat(200);
    const smallMs = estimateMs(SHADOW + small);
    const pathsMs = estimateMs(SHADOW + paths);
    const wholeMs = estimateMs(SHADOW + whole);
    assert.ok(smallMs < 1000, `200 small shadowed circles: ${smallMs} ms`);
    assert.ok(pathsMs < 1000, `200 small shadowed paths: ${pathsMs} ms`);
    assert.ok(wholeMs > 100 * smallMs, `200 shadowed full-canvas rects: ${wholeMs} ms`);
  });

  it('counts the morphology radius and the filter region', () => {
    const morph = (radius: number, width = '120%') =>
      `<filter id="m" width="${width}" height="${width}"><feMorphology radius="${radius}"/></filter>` +
      '<rect width="500" height="500" filter="url(#m)"/>';
    assert.ok(estimateMs(morph(100)) > estimateMs(morph(1)));
    assert.ok(estimateMs(morph(10, '400%')) > estimateMs(morph(10)));
    assert.equal(estimateMs('<rect width="10" height="10"/>'), 0, 'no filter, no cost');
  });
});
