/**
 * Loudness kept: a lossy encode may change a track's integrated loudness (EBU R 128), and a listener hears
 * that as the file turned down. libopus below about 56 kbit/s per channel codes speech in its hybrid
 * SILK/CELT mode, which loses 1.5–2 dB of the upper band: a speech WAV measured -23.3 LUFS before and
 * -25.1 after at 40 kbit/s. So the output is measured, and when it drifted more than `TOLERANCE_LU` the
 * encode runs again with the compensating gain, capped so the true peak stays under `PEAK_CEILING`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';

/** Drift that is left alone (LU): below what listeners notice between tracks. */
export const TOLERANCE_LU = 0.5;
/** Largest correction applied (dB): more means the encode did something else than lose a band. */
const MAX_GAIN_DB = 4;
/** Linear true peak the corrected output must stay under (-0.5 dBTP). */
const PEAK_CEILING = 10 ** (-0.5 / 20);
/** ebur128's integrated value for silence or near silence (its gate): nothing to keep. */
const SILENCE_LUFS = -69;

export interface Loudness {
  /** Integrated loudness, LUFS. */
  integrated: number;
  /** Largest true peak over the channels, linear (1 = full scale). */
  truePeak: number;
}

/** The two values read from ametadata's print (a literal pattern: the source check refuses a built one). */
const R128_VALUE = /^lavfi\.r128\.(I|true_peak)=(-?[\d.]+|-?inf)$/gm;

/**
 * ffmpeg's output options that measure the run's first audio track with the ebur128 filter; its metadata
 * goes to a file in the job's folder (the summary is logged at a level the runner silences). They can
 * follow another output of the same run: the encode's own run then measures its input too, one ffmpeg start
 * and one decode fewer. `name` keeps two measurements of one job apart.
 */
export function loudnessOutputArgs(run: MediaRun, name: string): string[] {
  const log = join(run.workDir, `${name}.r128`);
  return [
    '-map',
    '0:a:0',
    '-af',
    `ebur128=metadata=1:peak=true,ametadata=mode=print:file=${log}`,
    '-f',
    'null',
    '-',
  ];
}

/** Measures `inputArgs` (the same input options as the encode, trim included) on its own run. */
export async function measureLoudness(inputArgs: string[], run: MediaRun, name: string): Promise<Loudness> {
  await runFfmpeg([...inputArgs, ...loudnessOutputArgs(run, name)], run);
  return readLoudness(run, name);
}

/** The values a run with loudnessOutputArgs(name) wrote. */
export async function readLoudness(run: MediaRun, name: string): Promise<Loudness> {
  const text = await readFile(join(run.workDir, `${name}.r128`), 'utf8');
  const last = (key: string) => {
    const values = [...text.matchAll(R128_VALUE)].filter((match) => match[1] === key);
    const value = Number(values.at(-1)?.[2]?.replace('inf', 'Infinity'));
    return Number.isFinite(value) ? value : Number.NEGATIVE_INFINITY;
  };
  return { integrated: last('I'), truePeak: Math.max(0, last('true_peak')) };
}

/** The gain (dB) that brings `output` back to `input`'s loudness; 0 when it needs none or cannot take it. */
export function compensatingGain(input: Loudness, output: Loudness): number {
  if (!(input.integrated > SILENCE_LUFS && output.integrated > SILENCE_LUFS)) return 0;
  const drift = input.integrated - output.integrated;
  if (Math.abs(drift) <= TOLERANCE_LU) return 0;
  let gain = Math.max(-MAX_GAIN_DB, Math.min(MAX_GAIN_DB, drift));
  if (gain > 0 && output.truePeak > 0) {
    gain = Math.min(gain, 20 * Math.log10(PEAK_CEILING / output.truePeak));
  }
  return gain > TOLERANCE_LU || gain < -TOLERANCE_LU ? Math.round(gain * 100) / 100 : 0;
}
