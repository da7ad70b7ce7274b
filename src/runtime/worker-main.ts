/**
 * Entry point of a rank thread: makes the rank's process.argv look like the user
 * program was started directly, then imports the program. The program calls init()
 * to get its world communicator (init reads the rank spec from workerData).
 */
import { pathToFileURL } from 'node:url';
import { launchedSpec } from './init.js';

const spec = launchedSpec();
if (!spec) throw new Error('worker-main.ts runs inside rank threads started by the collectives runtime');
process.argv = [process.argv[0], spec.job.program, ...spec.job.args];
await import(pathToFileURL(spec.job.program).href);
