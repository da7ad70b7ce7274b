/**
 * Rank program: errors the offload engine reports to ranks. Written for 3 ranks on 2
 * nodes ({0, 1} and {2}); each argument is a scenario, run in order, each on a fresh dup
 * of the world (a communicator is abandoned after an error):
 *
 *   mismatch        world rank 0 posts an offloaded allreduce of 4 elements, the other
 *                   ranks of node 0 one of 5 (nonblocking on rank 1: the error comes
 *                   through the request). Node 0's engine completes those calls with a
 *                   MismatchError listing who posted what (ranks with the same call
 *                   grouped: "ranks 1, 2: ..."); ranks of other nodes (whose
 *                   engines started the call and wait for node 0) get a TimeoutError
 *                   naming node 0's ranks.
 *   timeout:R       every rank but R calls an offloaded allreduce with timeoutMs 2000. The
 *                   ranks on R's node get a TimeoutError from their engine naming exactly
 *                   [R]; ranks on other nodes one naming ranks of R's node only, R among them
 *                   (exactly [R] when R is alone on its node).
 *   mismatch-nodes  node 0's ranks post count 4, the other nodes' count 8: every rank gets
 *                   a MismatchError (the engines' messages disagree in size) that names the
 *                   engines (not their transport addresses, as if they were ranks).
 *   two-errors:DIR  two outstanding offloaded calls of world rank 0 fail with different
 *                   messages; rank 0 reads both only after the engine has completed both
 *                   (rank 1 has seen its own two errors; the engine completes a node's
 *                   members together), without calling into the library in between. Each
 *                   request must report its own error.
 * Every error must come from the engine (typed, message naming the offloaded call) and
 * carry its hint once. At the end the engines must still work: an offloaded allreduce
 * and bcast on the world return the right results on every rank.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';

/** A nonblocking request, whatever its result type. */
interface Pending extends PromiseLike<unknown> {
  test(): boolean;
}

const world = init({ timeoutMs: 60_000 });
/**
 * Timeout of calls that are meant to time out. The exact missing-rank checks of timeout:R
 * assume that the ranks present on one node post within this much of each other (they
 * leave the same host collective just before).
 */
const SHORT_MS = 2000;
const report = new Report(world);
const P = world.size;
const me = world.rank;
const myNode = world.nodeRank;
// Every rank's node, learned through a host-mode allgather.
const nodeOfRank = world.allgather(Int32Array.of(myNode), new Int32Array(P));
const ranksOnNode = (node: number): number[] => Array.from({ length: P }, (_, r) => r).filter((r) => nodeOfRank[r] === node);

/** Sleep (Atomics.wait on a private buffer: no library call, no event loop) until `cond` holds; 60 s bound. */
function sleepUntil(cond: () => boolean): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('sleepUntil: condition not reached in 60 s');
    Atomics.wait(cell, 0, 0, 2);
  }
}

type Err = Error & { missingRanks?: readonly number[] };

async function expectError(name: string, test: (e: Err) => string | undefined, what: string, fn: () => unknown): Promise<void> {
  try {
    await fn();
    report.ok(false, `${what}: expected ${name}, the call succeeded`);
  } catch (e) {
    const err = e as Err;
    if (process.env.SHOW_ERRORS) console.log(`${what}: ${err.name}: ${err.message}`);
    const hints = err.message.split('\n  hint: ').length - 1;
    const problem = err.name !== name ? `expected ${name}, got ${err.name}` : hints !== 1 ? `the hint appears ${hints} times` : test(err);
    report.ok(problem === undefined, `${what}: ${problem ?? ''}\n${err.name}: ${err.message}`);
  }
}

async function mismatch(): Promise<void> {
  const comm = world.dup();
  const node0 = ranksOnNode(0);
  const count = me === 0 || myNode !== 0 ? 4 : 5;
  // Node 0's engine reports the mismatch once all its ranks have posted (however late one is);
  // the other nodes' engines wait for node 0 and give up after a short timeout.
  const timeoutMs = myNode === 0 ? 60_000 : SHORT_MS;
  const call = (): unknown =>
    me === 1
      ? comm.iallreduce(new Float64Array(count).fill(1), new Float64Array(count), { mode: 'offload', timeoutMs })
      : comm.allreduce(new Float64Array(count).fill(1), null, { mode: 'offload', timeoutMs });
  if (myNode === 0) {
    await expectError(
      'MismatchError',
      (e) =>
        !e.message.includes('ranks disagree')
          ? 'no "ranks disagree"'
          : !e.message.includes('rank 0: allreduce(count=4, datatype=float64, op=sum, root=0, mode=offload)')
            ? 'rank 0 and its count not named'
            : !/ranks? 1(, \d+)*: allreduce\(count=5/.test(e.message)
              ? 'rank 1 and its count not named'
              : undefined,
      `mismatch: rank ${me} on node 0`,
      call,
    );
  } else {
    await expectError(
      'TimeoutError',
      (e) =>
        !e.message.includes('offloaded allreduce')
          ? 'not reported by the engine'
          : node0.every((r) => e.missingRanks?.includes(r))
            ? undefined
            : `missingRanks ${JSON.stringify(e.missingRanks)} lacks node 0's ranks ${JSON.stringify(node0)}`,
      `mismatch: rank ${me} on node ${myNode}`,
      call,
    );
  }
}

async function timeout(absent: number): Promise<void> {
  const comm = world.dup();
  const absentNode = nodeOfRank[absent];
  const sameNode = ranksOnNode(absentNode);
  if (me === absent) return;
  await expectError(
    'TimeoutError',
    (e) => {
      const m = e.missingRanks ?? [];
      if (!e.message.includes('offloaded allreduce')) return 'not reported by the engine';
      const exact = myNode === absentNode || sameNode.length === 1;
      if (exact) return m.length === 1 && m[0] === absent ? undefined : `missingRanks ${JSON.stringify(m)}, expected [${absent}]`;
      if (!m.includes(absent)) return `missingRanks ${JSON.stringify(m)} lacks ${absent}`;
      return m.every((r) => sameNode.includes(r)) ? undefined : `missingRanks ${JSON.stringify(m)} names ranks outside node ${absentNode}`;
    },
    `timeout: rank ${me} (node ${myNode}) waiting for absent rank ${absent} (node ${absentNode})`,
    () => comm.allreduce(Float64Array.of(me), null, { mode: 'offload', timeoutMs: SHORT_MS }),
  );
}

async function mismatchNodes(): Promise<void> {
  const comm = world.dup();
  const count = myNode === 0 ? 4 : 8;
  // The engines' transport reports the disagreement; it must name engines, not ranks the job does not have.
  const named = (e: Err): string | undefined => {
    const bogus = [...e.message.matchAll(/\brank (\d+)\b/g)].map((x) => Number(x[1])).filter((r) => r >= P);
    if (bogus.length > 0) return `names ranks [${bogus.join(', ')}] in a ${P}-rank job`;
    return /offload engine of node \d/.test(e.message) ? undefined : 'does not name the engines';
  };
  await expectError('MismatchError', named, `mismatch-nodes: rank ${me}`, () =>
    comm.allreduce(new Float64Array(count).fill(1), null, { mode: 'offload', timeoutMs: 5000 }),
  );
}

async function twoErrors(dir: string): Promise<void> {
  const comm = world.dup();
  const marker = (what: string): string => join(dir, what);
  const count = (k: number): number => (me === 0 ? 4 : 4 + k);
  // Ranks of other nodes (whose engines wait for node 0) give up after a short timeout.
  const timeoutMs = myNode === 0 ? 60_000 : SHORT_MS;
  const post = (): Pending[] => [
    comm.iallreduce(new Float64Array(count(1)).fill(1), new Float64Array(count(1)), { mode: 'offload', timeoutMs }),
    comm.ibcast(new Int32Array(count(2)), { mode: 'offload', root: 0, timeoutMs }),
  ];
  let reqs: Pending[];
  if (me === 0) {
    reqs = post();
    writeFileSync(marker('posted'), '');
    sleepUntil(() => existsSync(marker('done')));
  } else {
    sleepUntil(() => existsSync(marker('posted')));
    reqs = post();
    for (const q of reqs) await q.then(() => undefined, () => undefined);
    if (me === 1) writeFileSync(marker('done'), '');
  }
  if (myNode !== 0) {
    for (const q of reqs) await expectError('TimeoutError', () => undefined, `two-errors: rank ${me} on node ${myNode}`, () => q);
    return;
  }
  const names = ['allreduce(count=4', 'bcast(count=4'];
  for (let k = 0; k < reqs.length; k++) {
    await expectError(
      'MismatchError',
      (e) => (e.message.includes(`rank 0: ${names[k]}`) ? undefined : `the message is not the one of call ${k}`),
      `two-errors: rank ${me} outstanding call ${k}`,
      () => reqs[k],
    );
  }
}

for (const s of process.argv.slice(2)) {
  const [name, arg] = s.split(/:(.*)/s);
  if (name === 'mismatch') await mismatch();
  else if (name === 'timeout') await timeout(Number(arg));
  else if (name === 'mismatch-nodes') await mismatchNodes();
  else if (name === 'two-errors') await twoErrors(arg);
  else throw new Error(`unknown scenario '${s}'`);
}

// The engines keep working after the errors.
const v = world.allreduce(Float64Array.of(me + 1), null, { mode: 'offload' });
report.ok(v[0] === (P * (P + 1)) / 2, `offloaded allreduce after the errors: ${v[0]}`);
const b = world.bcast(me === P - 1 ? Int32Array.of(42, 43) : new Int32Array(2), { mode: 'offload', root: P - 1 });
report.ok(b[0] === 42 && b[1] === 43, 'offloaded bcast after the errors');
report.print();
