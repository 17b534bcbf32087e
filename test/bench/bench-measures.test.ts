/**
 * The benchmark's own measures: a peer's CPU is its command's cgroup (not wall time, not this process), and
 * the checks catch a level that grows, a palette PNG left unshrunk and an output below its level.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Row } from '../../bench/images/cases.ts';
import { closeImagesMeter, runMeasured } from '../../bench/images/cpu.ts';
import { issue25Rows, renderIssue25 } from '../../bench/images/issue25.ts';
import { median, p95, summarise } from '../../bench/images/report.ts';
import { checkTargets } from '../../bench/images/targets.ts';

describe('runMeasured', () => {
  after(closeImagesMeter);

  it('counts the CPU a child burns, and not the time it sleeps', async () => {
    const busy = await runMeasured('python3', ['-c', 'sum(i * i for i in range(2_000_000))']);
    assert.equal(busy.code, 0);
    // Two million squarings take well over 20 ms of CPU on any machine; how long they wait for a core does not count.
    assert.ok(busy.cpuMs > 20, `busy child: ${busy.cpuMs} ms`);
    const idle = await runMeasured('sleep', ['0.5']);
    assert.equal(idle.code, 0);
    assert.ok(idle.cpuMs < 50, `sleeping child: ${idle.cpuMs} ms`);
  });

  it('passes a failing command’s exit code through', async () => {
    const run = await runMeasured('sh', ['-c', 'exit 3']);
    assert.equal(run.code, 3);
  });
});

const row = (over: Partial<Row> & Pick<Row, 'format' | 'level' | 'file'>): Row => ({
  inputBytes: 10_000,
  pixels: 100,
  presso: { bytes: 1000, score: 90, cpuMs: 500, wallMs: 600, outputFormat: over.format },
  peers: { peer: { bytes: 2000, score: 90, q: 50, cpuMs: 100, trials: 6 } },
  cpuPeer: 'peer',
  ...over,
});

describe('the checks', () => {
  it('median and nearest-rank p95', () => {
    assert.equal(median([3, 1, 2, 10]), 2.5);
    assert.equal(p95([1, 2, 3]), 3);
    assert.equal(p95(Array.from({ length: 40 }, (_, i) => i + 1)), 38);
  });

  it('summarises the CPU ratio against the CPU peer', () => {
    const [s] = summarise([row({ format: 'png', level: 'high', file: 'a.png' })]);
    assert.equal(s?.cpuRatio, 5);
    assert.equal(s?.ratio, 0.5);
  });

  it('states the floor against the peer, in its parts, and a target below its floor', () => {
    const floored = (file: string, encode: number, score: number) =>
      row({
        format: 'jpeg',
        level: 'high',
        file,
        presso: {
          bytes: 1000,
          score: 90,
          cpuMs: 4000,
          floorCpuMs: encode + score,
          floorEncodeCpuMs: encode,
          floorScoreCpuMs: score,
          wallMs: 1,
          outputFormat: 'jpeg',
        },
        fixedPeer: { name: 'cjpeg -quality 85', cpuMs: 50 },
      });
    // Matched peer: 100 ms per image, fixed one: 50. Floors 12×, 15× and 30× the matched peer; request 40×.
    const all = [floored('a.jpg', 200, 1000), floored('b.jpg', 300, 1200), floored('c.jpg', 1000, 2000)];
    const summary = summarise(all);
    const [s] = summary;
    assert.equal(s?.floorRatio, 15);
    assert.equal(s?.floorRatioP95, 30);
    assert.equal(s?.floorEncodeRatio, 3);
    assert.equal(s?.floorScoreRatio, 12);
    assert.ok(Math.abs((s?.overhead ?? 0) - 4000 / 1500) < 1e-9);
    const rows = issue25Rows(summary, all);
    const fixed = rows.find((r) => r.target.startsWith('jpeg CPU ÷ cjpeg -quality 85 ≤'));
    assert.equal(fixed?.floor, 30, 'the floor over the fixed setting, twice as cheap as the matched one');
    assert.equal(fixed?.reached, 80);
    assert.equal(fixed?.floorEncode, 6);
    assert.equal(fixed?.belowFloor, true);
    const cpu = rows.find((r) => r.target.startsWith('jpeg CPU ÷ peer ≤'));
    assert.equal(cpu?.floor, 15);
    assert.equal(cpu?.belowFloor, true, 'a 10× target under a 15× floor is out of reach');
    assert.equal(cpu?.met, false);
    const p95Row = rows.find((r) => r.target.startsWith('jpeg CPU ÷ peer, p95'));
    assert.equal(p95Row?.limit, 20);
    assert.equal(p95Row?.belowFloor, true);
    const overhead = rows.find((r) => r.target.startsWith('jpeg search overhead'));
    assert.equal(overhead?.belowFloor, false);
    assert.equal(overhead?.met, false);
    assert.ok(renderIssue25(rows).some((l) => l.includes('below its floor')));
  });

  it('names a level larger than the one above it, an unshrunk palette PNG and an output below target', () => {
    const rows: Row[] = [
      row({ format: 'png', level: 'medium', file: 'a.png' }),
      row({ format: 'png', level: 'high', file: 'a.png' }),
      row({
        format: 'png',
        level: 'ultra',
        file: 'a.png',
        presso: { bytes: 1500, score: 72, cpuMs: 500, wallMs: 1, outputFormat: 'png' },
      }),
      row({
        format: 'png',
        level: 'high',
        file: 'b.png',
        presso: { bytes: 12_000, score: 79.5, cpuMs: 500, wallMs: 1, outputFormat: 'png' },
        returnsInput: true,
        pngquantAtTarget: { bytes: 6000, score: 80.2, q: 70, cpuMs: 90, trials: 6 },
      }),
    ];
    const { targets, notes } = checkTargets({
      rows,
      summary: summarise(rows),
      levels: ['medium', 'high', 'ultra'],
      inProcess: 1,
      viaApi: 1,
      peakRssMb: 100,
    });
    const value = (prefix: string) => targets.find((t) => t.target.startsWith(prefix))?.value;
    assert.equal(value('levels monotonic'), 1);
    assert.equal(value('PNGs returned unchanged'), 1);
    assert.equal(value('outputs below'), 1);
    assert.ok(notes.some((n) => n.includes('a.png: ultra 1500 B > high 1000 B')));
    assert.ok(notes.some((n) => n.includes('not shrunk: b.png')));
    assert.ok(notes.some((n) => n.includes('below target: png high b.png')));
  });
});
