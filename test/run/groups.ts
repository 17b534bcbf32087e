/**
 * The fast tier's files in a few groups, each run by one Node process (`--test-isolation=none`, pool.ts):
 * a fast file spends more CPU on starting Node and loading the app than on its tests (measured: the 93 fast
 * files took 71.2 CPU-s as 93 processes and 42.3 CPU-s as one). A few groups rather than one keep them
 * spread over the pool's slots. A fast test therefore leaves no process-wide state behind (environment
 * variables, the sandbox mode, listeners): the next file in its group would see it. PRESSO_TEST_FAST_GROUPS=0
 * runs every fast file in a process of its own, with its own CPU figure (the tier's 4 CPU-s check).
 */

/** The name a group goes by in the output and in the remembered timings. */
export function groupName(index: number, count: number): string {
  return `fast group ${index + 1} of ${count}`;
}

/**
 * `files` in at most `count` groups of about equal past wall time: longest first, each to the group with the
 * least so far (a file never timed counts as one second). Groups keep their files in name order.
 */
export function groupFiles(
  files: readonly string[],
  count: number,
  pastWallMs: Readonly<Record<string, number>>,
): string[][] {
  const groups = Array.from({ length: Math.min(count, files.length) }, () => ({
    wall: 0,
    files: [] as string[],
  }));
  const wall = (file: string) => pastWallMs[file] ?? 1000;
  const longest = [...files].sort((a, b) => wall(b) - wall(a) || a.localeCompare(b));
  for (const file of longest) {
    const lightest = groups.reduce((best, group) => (group.wall < best.wall ? group : best));
    lightest.files.push(file);
    lightest.wall += wall(file);
  }
  return groups.map((group) => group.files.sort());
}
