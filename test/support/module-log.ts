/**
 * Loaded with `node --import` (NODE_OPTIONS) by the tests and the bench of what an idle server loads:
 * appends the URL of every module the process loads, ES module or CommonJS `require` alike (the hooks of
 * `module.registerHooks` see both), to the file named by PRESSO_MODULE_LOG, one a line, as it is loaded, so
 * the list is whole whenever it is read.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.PRESSO_MODULE_LOG;
if (log !== undefined) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(log, `${url}\n`);
      return next(url, context);
    },
  });
}
