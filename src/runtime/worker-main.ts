/**
 * Entry point of a rank thread: makes the rank's process.argv look like the user
 * program was started directly, then imports the program. The program calls init()
 * to get its world communicator (init reads the rank spec from workerData).
 */
import { pathToFileURL } from 'node:url';
import { ArgumentError } from '../core/errors.js';
import { launchedSpec } from '../exec/config.js';

const spec = launchedSpec();
if (!spec) throw new Error('worker-main.ts runs inside rank threads started by the collectives runtime');
process.argv = [process.argv[0], spec.job.program, ...spec.job.args];
try {
  await import(pathToFileURL(spec.job.program).href);
} catch (e) {
  // A .ts/.js program in a CommonJS package is compiled to CommonJS, where top-level
  // await (common in rank programs: `await comm.iallreduce(...)`) cannot work.
  const code = (e as { code?: unknown }).code;
  if (code === 'ERR_REQUIRE_CYCLE_MODULE' || code === 'ERR_REQUIRE_ASYNC_MODULE') {
    throw new ArgumentError(
      `cannot load ${spec.job.program} as an ES module (${String(code)})`,
      'rename it to .mts/.mjs, or add "type": "module" to the nearest package.json, so that top-level await works',
    );
  }
  throw e;
}
