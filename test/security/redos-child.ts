/**
 * Runs the ReDoS inventory (redos-inventory.ts) in a child process that redos.test.ts starts under a
 * CPU-time limit: one line `done <index>` per entry, so a parent whose child was stopped by the limit can
 * name the entry that was running.
 */
import { REDOS_INVENTORY } from './redos-inventory.ts';

for (const [index, entry] of REDOS_INVENTORY.entries()) {
  entry.run();
  process.stdout.write(`done ${index}\n`);
}
