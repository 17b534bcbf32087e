/**
 * A small real website for the bundle tests: two pages (one in a sub-folder), a style sheet with url()
 * backgrounds, a script that fetches JSON and sets a global, an inline script and style, an SVG logo, and
 * corpus pictures referenced by src, srcset, a style attribute and CSS.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';

const INDEX = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Presso   test   site</title>
    <!-- the site's only style sheet -->
    <link rel="stylesheet" href="css/site.css">
    <style>
      .hero   {   background-image :   url(img/background.jpg) ;   min-height: 40px; }
    </style>
  </head>
  <body>
    <h1>   A   small   site   </h1>
    <img id="photo" src="img/photo.png" srcset="img/photo.png 1x, img/photo-large.png 2x" alt="a cat">
    <img id="logo" src="img/logo.svg" alt="logo">
    <div class="hero"></div>
    <div id="inline" style="background: url('img/debian.png') no-repeat; width: 40px; height: 40px"></div>
    <p><a href="docs/page.html?from=index#top">Second page</a></p>
    <script>
      // Set before the external script runs.
      var presso_inline_ran = true;
    </script>
    <script src="js/app.js"></script>
  </body>
</html>
`;

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Page</title><link rel="stylesheet" href="../css/site.css"></head>
<body>
  <img id="again" src="../img/photo.png" alt="the same cat">
  <a href="../index.html">Back</a>
</body></html>
`;

const CSS = `/* Site styles */
body {
  margin : 0 ;
  font-family : sans-serif ;
  background : #ffffff url( "../img/background.jpg" ) repeat-x ;
}
h1   { color : #333333 ; }
`;

const JS = `// Loads the site's data and records it for the test.
function loadSiteInformation(address) {
  return fetch(address).then(function (response) { return response.json(); });
}
loadSiteInformation('data/info.json').then(function (information) {
  window.presso_site_name = information.name;
});
`;

const JSON_DATA = JSON.stringify(
  { name: 'Presso test site', pages: ['index.html', 'docs/page.html'], version: 1 },
  null,
  4,
);

const LOGO = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a logo -->
<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
  <circle cx="32" cy="32" r="30" fill="#d70a53" stroke="#000000" stroke-width="2"/>
</svg>
`;

/** Writes the site into `dir/site` and zips it (as a single top folder) into `dir/site.zip`. */
export async function writeSite(dir: string): Promise<{ folder: string; zip: string }> {
  const folder = join(dir, 'site');
  for (const sub of ['css', 'js', 'img', 'data', 'docs']) mkdirSync(join(folder, sub), { recursive: true });
  writeFileSync(join(folder, 'index.html'), INDEX);
  writeFileSync(join(folder, 'docs/page.html'), PAGE);
  writeFileSync(join(folder, 'css/site.css'), CSS);
  writeFileSync(join(folder, 'js/app.js'), JS);
  writeFileSync(join(folder, 'data/info.json'), JSON_DATA);
  writeFileSync(join(folder, 'img/logo.svg'), LOGO);
  // Small pictures: every one goes through the image search, which costs by the pixel (the 451×300 photo
  // alone took 2.9 CPU-s at high), and no property tested here depends on their size. The 2x picture is the
  // 1x one's region at twice the pixels, as a real srcset has it.
  const region = sharp(corpus.chelsea).extract({ left: 0, top: 0, width: 320, height: 240 });
  await region.clone().png().toFile(join(folder, 'img/photo-large.png'));
  await region.clone().resize(160).png().toFile(join(folder, 'img/photo.png'));
  await sharp(smallCorpus.canonPhoto)
    .resize(200)
    .jpeg({ quality: 95 })
    .toFile(join(folder, 'img/background.jpg'));
  // Drawn 40 px wide: 200 px of the 800x600 logo keep its transparency at a tenth of the encoders' work.
  await sharp(corpus.alphaPng).resize(200).png().toFile(join(folder, 'img/debian.png'));
  const zip = join(dir, 'site.zip');
  execFileSync('zip', ['-q', '-r', '-6', zip, 'site'], { cwd: dir });
  return { folder, zip };
}
