/**
 * Rank program: completion without rank progress.
 *
 *   progress.ts <marker dir> <mode>:<stalled rank> [<mode>:<stalled rank> ...]
 *
 * Each phase: every rank posts four nonblocking collectives on comm.alloc buffers in
 * the phase's mode — an allreduce, a bcast the stalled rank receives, a bcast the
 * stalled rank is the root of, and an allgather. The stalled rank posts first (the
 * others wait for its marker file before they post, so nothing of theirs can have
 * reached it while it was inside the library) and then blocks its thread without
 * calling into the library: it sleeps with Atomics.wait on a private SharedArrayBuffer
 * and reads its result buffers and the marker directory between sleeps. Its event loop
 * does not run either, so nothing of the library runs on this thread.
 *
 * - offload: the stalled rank waits until its four results have landed in its buffers
 *   AND every other rank has written a "done" marker (their requests completed with the
 *   right results). Both must happen while it does not progress; a deadline only bounds
 *   a failing run (STALL_MS, default 60 s).
 * - host: the contrast. The stalled rank waits until every other rank has posted, then
 *   checks that no other rank's data has reached its result buffers: in host mode only a
 *   rank's own thread writes its receive buffers, so nothing can land while it is
 *   stalled, however long it sleeps. Then it waits normally and checks the results.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { init, type ExecutionMode } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';

/** A nonblocking request, whatever its result type. */
interface Pending extends PromiseLike<unknown> {
  test(): boolean;
}

const [dir, ...phases] = process.argv.slice(2);
const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const P = world.size;
const me = world.rank;
const N = 1000;
const G = 5;
const stallMs = Number(process.env.STALL_MS ?? 60_000);

/** Sleep without the library and without the event loop until `until` holds; false at the deadline. */
const cell = new Int32Array(new SharedArrayBuffer(4));
function stall(until: () => boolean, deadlineMs: number): boolean {
  const end = Date.now() + deadlineMs;
  while (!until()) {
    if (Date.now() > end) return false;
    Atomics.wait(cell, 0, 0, 2);
  }
  return true;
}

async function phase(k: number, mode: ExecutionMode, stalled: number): Promise<void> {
  const tag = `phase ${k} (${mode}, rank ${stalled} stalled)`;
  const rootIn = (stalled + 1) % P; // the stalled rank receives this bcast
  const rootOut = stalled; // the stalled rank is the root of this one
  const sumOf = (i: number): number => ((i + 1 + k) * P * (P + 1)) / 2;
  const bcastValue = (root: number, i: number): number => root * 100_000 + 7 * i + 1 + k;
  const gatherValue = (r: number, i: number): number => r * 1000 + i + 1 + k;

  const a = world.alloc('float64', N);
  for (let i = 0; i < N; i++) a[i] = (me + 1) * (i + 1 + k);
  const ar = world.alloc('float64', N).fill(-1);
  const b1 = world.alloc('int32', N);
  for (let i = 0; i < N; i++) b1[i] = me === rootIn ? bcastValue(rootIn, i) : -1;
  const b2 = world.alloc('int32', N);
  for (let i = 0; i < N; i++) b2[i] = me === rootOut ? bcastValue(rootOut, i) : -1;
  const g = world.alloc('int32', G);
  for (let i = 0; i < G; i++) g[i] = gatherValue(me, i);
  const gr = world.alloc('int32', G * P).fill(-1);

  const allreduceOk = (): boolean => ar.every((v, i) => v === sumOf(i));
  const bcastOk = (buf: Int32Array, root: number): boolean => buf.every((v, i) => v === bcastValue(root, i));
  const gatherOk = (): boolean => gr.every((v, j) => v === gatherValue(Math.floor(j / G), j % G));
  const allOk = (): boolean => allreduceOk() && bcastOk(b1, rootIn) && bcastOk(b2, rootOut) && gatherOk();
  const marker = (what: string, r: number): string => join(dir, `${k}-${what}-${r}`);
  const others = Array.from({ length: P }, (_, r) => r).filter((r) => r !== stalled);
  const post = (): Pending[] => [
    world.iallreduce(a, ar, { mode }),
    world.ibcast(b1, { mode, root: rootIn }),
    world.ibcast(b2, { mode, root: rootOut }),
    world.iallgather(g, gr, { mode }),
  ];

  if (me === stalled) {
    const reqs = post();
    writeFileSync(marker('posted', me), '');
    if (mode === 'host') {
      // Every other rank has posted (and runs its event loop); nothing of theirs may have reached us.
      report.ok(stall(() => others.every((r) => existsSync(marker('posted', r))), stallMs), `${tag}: the other ranks posted`);
      report.ok(!ar.some((v, i) => v === sumOf(i)), `${tag}: an allreduce result element landed while the rank was stalled`);
      report.ok(b1.every((v) => v === -1), `${tag}: the bcast data landed in the stalled rank's buffer`);
      report.ok(others.every((r) => gr.subarray(r * G, (r + 1) * G).every((v) => v === -1)), `${tag}: another rank's allgather block landed`);
    } else {
      const landed = stall(() => allOk() && others.every((r) => existsSync(marker('done', r))), stallMs);
      const missing = others.filter((r) => !existsSync(marker('done', r)));
      report.ok(
        landed,
        `${tag}: without progress: allreduce ${allreduceOk()}, bcast in ${bcastOk(b1, rootIn)}, bcast out ${bcastOk(b2, rootOut)}, allgather ${gatherOk()}; ranks not done: [${missing.join(', ')}]`,
      );
      // The requests are complete: test() says so at once (it only looks; the engine did the work).
      report.ok(
        reqs.every((q) => q.test()),
        `${tag}: a request does not test complete after the stall`,
      );
    }
    for (const q of reqs) await q;
    report.ok(allOk(), `${tag}: results after waiting`);
  } else {
    report.ok(
      stall(() => existsSync(marker('posted', stalled)), stallMs),
      `${tag}: the stalled rank did not post`,
    );
    const reqs = post();
    writeFileSync(marker('posted', me), '');
    for (const q of reqs) await q;
    const ok = allOk();
    report.ok(ok, `${tag}: results on rank ${me}`);
    if (ok) writeFileSync(marker('done', me), '');
  }
  for (const b of [a, ar, b1, b2, g, gr]) world.free(b);
}

for (let k = 0; k < phases.length; k++) {
  const [mode, stalled] = phases[k].split(':');
  await phase(k, mode as ExecutionMode, Number(stalled));
}
report.print();
