/**
 * Each benchmark command writes its own table into the README, between its two markers
 * (`<!-- bench:<name>:start (written by `<command>`) -->` and `<!-- bench:<name>:end -->`), so the README
 * always shows the last run of every benchmark and nobody copies numbers by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Replaces the section's content; false (nothing written) when the README lacks its markers. */
export function writeReadmeSection(readmePath: string, name: string, markdown: string): boolean {
  const readme = readFileSync(readmePath, 'utf8');
  const start = new RegExp(`<!-- bench:${name}:start[^>]*-->`).exec(readme);
  const end = readme.indexOf(`<!-- bench:${name}:end -->`);
  if (!start || end < start.index) return false;
  const from = start.index + start[0].length;
  writeFileSync(readmePath, `${readme.slice(0, from)}\n${markdown}\n${readme.slice(end)}`);
  return true;
}
