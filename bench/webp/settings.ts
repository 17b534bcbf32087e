/**
 * WebP settings compared at equal SSIMULACRA 2 (wide-mosaic score): each sharp setting at q70/80/88,
 * its bytes divided by cwebp's at the same score (log-interpolated on a cwebp -q curve), and the encode's
 * CPU. The table of docs/benchmarks.md (WebP settings) comes from it. `node bench/webp/settings.ts PHOTO...`
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { decodeRgb, mosaic } from '../../src/processors/shared/metric/pixels.ts';
import { SCORE_MOSAIC, scoreAgainstMosaic } from '../../src/processors/shared/metric/score.ts';

const dir = mkdtempSync(join(tmpdir(), 'webp-rd-'));
const variants: Record<string, Record<string, unknown>> = {
  'e4 sharp-YUV (before)': { effort: 4, smartSubsample: true, alphaQuality: 90 },
  'e4 plain': { effort: 4 },
  'e6 plain': { effort: 6 },
  'e6 sharpyuv': { effort: 6, smartSubsample: true },
  'e4 photo': { effort: 4, preset: 'photo' },
  'e4 deblock': { effort: 4, smartDeblock: true },
};
const qs = [70, 80, 88];
const cq = [60, 70, 78, 85, 90, 95];
const ratios: Record<string, number[]> = {};
const cpus: Record<string, number[]> = {};
for (const file of process.argv.slice(2)) {
  const ref = join(dir, `${basename(file)}.png`);
  await sharp(file).autoOrient().toColourspace('srgb').png({ compressionLevel: 1 }).toFile(ref);
  const wide = mosaic(await decodeRgb(ref), SCORE_MOSAIC);
  const score = async (buf: Buffer) => scoreAgainstMosaic(wide, await decodeRgb(buf));
  const curve: { s: number; b: number }[] = [];
  for (const q of cq) {
    const o = join(dir, 'c.webp');
    execFileSync('cwebp', ['-quiet', '-q', String(q), ref, '-o', o]);
    const b = readFileSync(o);
    curve.push({ s: await score(b), b: b.length });
  }
  curve.sort((x, y) => x.s - y.s);
  const peerAt = (s: number) => {
    for (let i = 1; i < curve.length; i++) {
      const a = curve[i - 1]!,
        c = curve[i]!;
      if (s <= c.s) {
        const f = (s - a.s) / (c.s - a.s);
        return Math.exp(Math.log(a.b) + f * (Math.log(c.b) - Math.log(a.b)));
      }
    }
    return Number.NaN;
  };
  const line: string[] = [];
  for (const [name, opts] of Object.entries(variants)) {
    const rs: string[] = [];
    for (const q of qs) {
      const c0 = process.cpuUsage();
      const buf = await sharp(ref)
        .webp({ quality: q, ...opts })
        .toBuffer();
      const c = process.cpuUsage(c0);
      const s = await score(buf);
      const r = buf.length / peerAt(s);
      ratios[name] = [...(ratios[name] ?? []), r];
      cpus[name] = [...(cpus[name] ?? []), (c.user + c.system) / 1e3];
      rs.push(`q${q} ${s.toFixed(1)} ${r.toFixed(3)} ${((c.user + c.system) / 1e3).toFixed(0)}ms`);
    }
    line.push(`  ${name}: ${rs.join(' | ')}`);
  }
  console.log(
    `${basename(file)} cwebp curve ${curve.map((p) => `${p.s.toFixed(1)}:${p.b}`).join(' ')}\n${line.join('\n')}`,
  );
}
const med = (a: number[]) => {
  const s = [...a].filter(Number.isFinite).sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
for (const name of Object.keys(variants))
  console.log(
    `${name}: median ratio ${med(ratios[name]!)?.toFixed(3)} n=${ratios[name]!.filter(Number.isFinite).length}, median encode CPU ${med(cpus[name]!)?.toFixed(0)} ms`,
  );
