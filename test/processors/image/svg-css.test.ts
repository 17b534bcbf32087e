/**
 * CSS in SVGs reaches nothing outside the document, however the CSS spells it: escapes, case, comments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isSafeCssValue,
  sanitiseDeclarations,
  sanitiseStylesheet,
} from '../../../src/processors/image/codecs/svg-css.ts';

const EVIL = /evil|import/i;

describe('SVG CSS sanitiser', () => {
  it('drops @import in every spelling', () => {
    for (const css of [
      '@import url(https://evil.example/a.css); rect { fill: red }',
      '@\\69mport "https://evil.example/a.css"; rect { fill: red }',
      '@\\49 MPORT url("https://evil.example/a.css"); rect { fill: red }',
      '@IMPORT "https://evil.example/a.css"; rect { fill: red }',
      '/* x */@\\000069mport/**/"https://evil.example/a.css";rect{fill:red}',
    ]) {
      const out = sanitiseStylesheet(css);
      assert.doesNotMatch(out, EVIL, css);
      assert.match(out, /rect\{fill:red\}/, `${css} keeps the rule`);
    }
  });

  it('neutralises external url() in every spelling and keeps fragments and embedded rasters', () => {
    for (const css of [
      'rect { fill: url(https://evil.example/p.svg#g); stroke: blue }',
      'rect { fill: u\\72l(https://evil.example/p.svg#g); stroke: blue }',
      'rect { fill: U\\52L( "https://evil.example/p.svg#g" ); stroke: blue }',
      'rect { fill: url(/*c*/https://evil.example/p); stroke: blue }',
      'rect { --x: url(https://evil.example/p); stroke: blue }',
      'rect { background: image-set("https://evil.example/p.png" 1x); stroke: blue }',
      '@font-face { src: url(//evil.example/f.woff) } rect { stroke: blue }',
    ]) {
      const out = sanitiseStylesheet(css);
      assert.doesNotMatch(out, EVIL, css);
      assert.match(out, /stroke:blue/, `${css} keeps the safe declaration`);
      assert.doesNotMatch(out, /url|image-set|--x:[^n]/i, css);
    }
    const kept = 'rect{fill:url(#grad)}circle{fill:url(data:image/png;base64,AAAA)}';
    assert.equal(sanitiseStylesheet(kept), kept);
    assert.doesNotMatch(sanitiseStylesheet('a{b:url(data:text/css,x)}'), /data:/);
  });

  it('drops CSS the parser cannot make sense of rather than passing it through', () => {
    const out = sanitiseStylesheet('}}{{ @\\69mport "https://evil.example/x"; rect{fill:red}');
    assert.doesNotMatch(out, EVIL);
  });

  it('turns unsafe style declarations into none and refuses unsafe presentation values', () => {
    assert.equal(
      sanitiseDeclarations('fill: u\\72l(https://evil.example/p); stroke: #00f'),
      'fill:none;stroke:#00f',
    );
    assert.equal(sanitiseDeclarations('fill:url(#g)'), 'fill:url(#g)');
    assert.equal(isSafeCssValue('url(#g)'), true);
    assert.equal(isSafeCssValue('translate(10, 20) rotate(5)'), true);
    assert.equal(isSafeCssValue('u\\72l(https://evil.example/p)'), false);
    assert.equal(isSafeCssValue('URL("https://evil.example/p")'), false);
  });
});
