/**
 * Loaded with `node --import` by test/processors/image/ssimulacra2-native.test.ts: makes the native
 * SSIMULACRA 2 addon fail to load (its path resolves to a file that does not exist), as on a machine where
 * it was not built, so the TypeScript fallback and its warning can be tested in a child process.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.endsWith('/ssimulacra2.node'))
      return next(specifier.replace(/ssimulacra2\.node$/, 'absent.node'), context);
    return next(specifier, context);
  },
});
