/**
 * Rank program: offload-mode jobs that end badly (engine shutdown and failure tests).
 *
 *   lifecycle.ts throw:R    rank R throws after the first collective, while the others
 *                           are blocked in an offloaded allreduce
 *   lifecycle.ts loop       offloaded allreduces until the engine fails (COLL_ENGINE_FAULT)
 *
 * Neither returns normally: 'unreachable' on stdout means a rank got past the failure.
 */
import { init } from '../../helpers/rank-api.js';

const world = init({ mode: 'offload', timeoutMs: 60_000 });
const what = process.argv[2] ?? '';
const P = world.size;
const me = world.rank;
const total = (P * (P + 1)) / 2;

const first = world.allreduce(Float64Array.of(me + 1));
if (world.mode !== 'offload' || first[0] !== total) throw new Error(`mode ${world.mode}, first allreduce ${first[0]}`);

if (what.startsWith('throw:')) {
  if (me === Number(what.slice(6))) throw new Error(`boom from rank ${me}`);
  world.allreduce(Float64Array.of(me + 1)); // cannot complete: the failing rank never posts
  console.log('unreachable');
} else if (what === 'loop') {
  for (let i = 0; i < 100; i++) world.allreduce(Float64Array.of(me + 1));
  console.log('unreachable');
} else throw new Error(`unknown argument '${what}'`);
