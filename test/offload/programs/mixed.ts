/**
 * Rank program: the three execution modes interleaved on one communicator.
 *
 *   mixed.ts [calls]
 *
 * A seeded sequence (the same on every rank) of barrier, bcast, reduce, allreduce and
 * allgather calls, each in host, offload or intermediate mode, blocking or nonblocking,
 * on private or comm.alloc buffers, with up to three nonblocking calls of any modes
 * outstanding while further calls (blocking ones included) are made; requests are
 * completed in a seeded order, by await, wait() or test() polling. Every result is
 * checked against values each rank computes alone. Runs on the world and on a
 * communicator in reverse rank order.
 */
import { init, type Communicator, type ExecutionMode } from '../../helpers/rank-api.js';
import { prng } from '../../../src/reference/executor.js';
import { Report } from '../../runtime/programs/cases.js';

const world = init({ timeoutMs: Number(process.env.MIXED_TIMEOUT_MS ?? 60_000) });
const report = new Report(world);
const calls = Number(process.argv[2] ?? 120);

interface Outstanding {
  readonly label: string;
  readonly req: PromiseLike<unknown> & { wait(): unknown; test(): boolean };
  readonly check: () => boolean;
  readonly release: () => void;
}

function run(comm: Communicator, tag: string): void | Promise<void> {
  return (async () => {
    const P = comm.size;
    const me = comm.rank;
    const rand = prng(12345 + P + (tag === 'world' ? 0 : 1000));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const modes: readonly ExecutionMode[] = ['host', 'offload', 'intermediate'];
    const value = (r: number, i: number, j: number): number => ((r * 31 + i * 7 + j * 3) % 97) - 40;
    const pending: Outstanding[] = [];

    const complete = async (o: Outstanding, how: number): Promise<void> => {
      if (process.env.MIXED_TRACE) console.log(`${tag} complete ${o.label} by ${['await', 'wait', 'test'][how]}`);
      try {
        if (how === 0) await o.req;
        else if (how === 1) o.req.wait();
        else {
          while (!o.req.test()) await new Promise((r) => setImmediate(r));
          await o.req;
        }
        report.ok(o.check(), `${tag} ${o.label}: wrong result on rank ${me}`);
      } catch (e) {
        report.ok(false, `${tag} ${o.label}: ${(e as Error).stack}`);
      }
      o.release();
    };

    for (let i = 0; i < calls; i++) {
      const kind = pick(['barrier', 'bcast', 'reduce', 'allreduce', 'allgather'] as const);
      const mode = pick(modes);
      const nb = rand() < 0.5;
      const shared = rand() < 0.5;
      const count = pick([1, 3, 17, 600]);
      const root = Math.floor(rand() * P);
      const label = `#${i} ${kind} ${mode}${nb ? ' nonblocking' : ''}${shared ? ' shared' : ''} count=${count} root=${root}`;
      if (process.env.MIXED_TRACE) console.log(`${tag} ${label}`);
      const owned: Int32Array[] = [];
      const buf = (n: number): Int32Array => {
        if (!shared) return new Int32Array(n);
        const b = comm.alloc('int32', n);
        owned.push(b);
        return b;
      };
      const mine = buf(kind === 'barrier' ? 0 : count);
      for (let j = 0; j < mine.length; j++) mine[j] = kind === 'bcast' && me !== root ? -1 : value(kind === 'bcast' ? root : me, i, j);
      const out = buf(kind === 'allgather' ? count * P : kind === 'reduce' && me !== root ? 0 : kind === 'barrier' || kind === 'bcast' ? 0 : count);
      const o = { mode, root };
      let check: () => boolean;
      let req: Outstanding['req'] | undefined;
      try {
        switch (kind) {
          case 'barrier':
            if (nb) req = comm.ibarrier(o);
            else comm.barrier(o);
            check = () => true;
            break;
          case 'bcast':
            if (nb) req = comm.ibcast(mine, o);
            else comm.bcast(mine, o);
            check = () => mine.every((v, j) => v === value(root, i, j));
            break;
          case 'reduce': {
            if (nb) req = comm.ireduce(mine, me === root ? out : null, { ...o, op: 'max' });
            else comm.reduce(mine, me === root ? out : null, { ...o, op: 'max' });
            check = () => me !== root || out.every((v, j) => v === Math.max(...Array.from({ length: P }, (_, r) => value(r, i, j))));
            break;
          }
          case 'allreduce':
            if (nb) req = comm.iallreduce(mine, out, o);
            else comm.allreduce(mine, out, o);
            check = () => out.every((v, j) => v === Array.from({ length: P }, (_, r) => value(r, i, j)).reduce((a, b) => a + b, 0));
            break;
          case 'allgather':
            if (nb) req = comm.iallgather(mine, out, o);
            else comm.allgather(mine, out, o);
            check = () => out.every((v, k) => v === value(Math.floor(k / count), i, k % count));
            break;
        }
      } catch (e) {
        if (process.env.MIXED_TRACE) console.log(`${tag} ${label} threw ${(e as Error).stack}`);
        report.ok(false, `${tag} ${label}: ${(e as Error).stack}`);
        // Keep the seeded sequence in step with the ranks where the call did not throw.
        check = () => true;
      }
      const release = (): void => owned.forEach((b) => comm.free(b));
      if (req) pending.push({ label, req, check, release });
      else {
        report.ok(check(), `${tag} ${label}: wrong result on rank ${me}`);
        release();
      }
      // Complete some outstanding requests (seeded: the same choice on every rank), in a seeded order.
      const limit = Math.floor(rand() * 4);
      while (pending.length > limit) {
        const k = Math.floor(rand() * pending.length);
        const [x] = pending.splice(k, 1);
        await complete(x, Math.floor(rand() * 3));
      }
    }
    while (pending.length > 0) await complete(pending.shift() as Outstanding, 0);
  })();
}

await run(world, 'world');
await run(world.split(0, world.size - world.rank) as Communicator, 'reversed');
report.print();
