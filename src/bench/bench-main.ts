/**
 * The rank program of `coll bench` (bench.ts launches it): runs bench-program.ts's
 * runBench with the BenchConfig given as JSON in the first argument. Kept apart from
 * bench-program.ts so that importing that module (the package does, for the tuner's
 * measured check) never starts a benchmark in a program that happens to get a JSON argument.
 */
import { init } from '../runtime/init.js';
import { runBench, type BenchConfig } from './bench-program.js';

const arg = process.argv[2];
if (arg === undefined || !arg.startsWith('{')) throw new Error('bench-main: the first argument must be the JSON of a BenchConfig (coll bench starts this program)');
runBench(init(), JSON.parse(arg) as BenchConfig);
