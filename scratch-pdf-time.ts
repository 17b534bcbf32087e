import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPdfProcessor } from './src/processors/pdf/pdf-processor.ts';
import { pdfJob, samples, writeHostilePdfs, writePhotoPdf } from './test/processors/pdf/fixtures.ts';
import { NO_TIME_PRESSURE } from './test/support/time-scale.ts';
function cpu() { const s = readFileSync('/proc/self/stat','utf8'); const f = s.slice(s.lastIndexOf(')')+2).split(' '); return [11,12,13,14].reduce((a,i)=>a+Number(f[i]),0)*10; }
const dir = mkdtempSync(join(tmpdir(), 'tiers-pdf-'));
const h = writeHostilePdfs(dir);
const photos = await writePhotoPdf(dir);
const p = createPdfProcessor(NO_TIME_PRESSURE);
async function t(label: string, path: string, params: Record<string, unknown> = {}) {
  const c = cpu(); const w = performance.now();
  let r = 'ok'; try { await p.process(pdfJob(dir, path, params)); } catch (e) { r = String(e).slice(0, 60); }
  console.log(label, JSON.stringify(params), `${cpu()-c} ms CPU`, `${Math.round(performance.now()-w)} ms wall`, r);
}
await t('photos', photos);
await t('text', samples.text);
for (const c of ['high','lossless']) await t('nested', h.nested, {compression: c});
await t('loop', h.loop); await t('trunc', h.truncated);
for (const path of [h.psXObject, h.postscript]) for (const params of [{ compression: 'ultra' }, { format: 'pdfa' }, { grayscale: true }]) await t(path.split('/').pop()!, path, params);
