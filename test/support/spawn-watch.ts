/**
 * Every process this test process starts, as its argv: the tool runner's starts (posix_spawn or Node's spawn,
 * published on `presso:tool-spawn` by src/processors/shared/spawn-process.ts) and every other ChildProcess
 * (Node's `tracing:child_process.spawn:start` channel). Synchronous calls (execFileSync, a test's own
 * fixtures) are on neither.
 */
import { channel } from 'node:diagnostics_channel';

export interface SpawnWatch {
  /** argv of each start so far, argv[0] first, in order. */
  readonly calls: string[][];
  stop(): void;
}

/** Starts recording; `onStart` also runs at each start (with its argv). */
export function watchSpawns(onStart?: (argv: string[]) => void): SpawnWatch {
  const calls: string[][] = [];
  const add = (argv: string[]) => {
    calls.push(argv);
    onStart?.(argv);
  };
  const tools = channel('presso:tool-spawn');
  const others = channel('tracing:child_process.spawn:start');
  const fromRunner = (message: unknown) => {
    const { file, args } = message as { file: string; args: readonly string[] };
    add([file, ...args]);
  };
  // Node's message carries the options spawn was given; `args` starts with argv[0].
  const fromNode = (message: unknown) => {
    const { options } = message as { options: { file?: string; args?: string[] } };
    add([...(options.args ?? [options.file ?? ''])]);
  };
  tools.subscribe(fromRunner);
  others.subscribe(fromNode);
  return {
    calls,
    stop() {
      tools.unsubscribe(fromRunner);
      others.unsubscribe(fromNode);
    },
  };
}
