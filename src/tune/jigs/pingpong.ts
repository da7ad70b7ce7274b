/**
 * Rank program: ping-pong between ranks 0 and 1 (run on 1 node for thread↔thread,
 * on 2 nodes for process↔process over TCP). Argument: JSON { sizes, batches,
 * seconds } — for each size, `batches` timed batches of k round trips (k sized so a
 * batch takes about `seconds`/batches, from one calibration round trip that both
 * ranks agree on); prints one `pingpong` record per size with the one-way time
 * (half the median round trip). Buffers live in the shared arena, as applications'
 * buffers from `comm.alloc` do (zero-copy paths from 4 KiB).
 */
import { init } from '../../index.js';
import { emitRecord } from './protocol.js';
import { nowSeconds, summarize } from './timing.js';

interface Config {
  readonly sizes: readonly number[];
  readonly batches: number;
  /** Target measuring time per size (s). */
  readonly seconds: number;
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as Config;
const comm = init();
if (comm.size !== 2) throw new Error(`the ping-pong jig needs exactly 2 ranks, got ${comm.size}`);
const peer = 1 - comm.rank;
const TAG = 7;

function roundTrips(buf: Uint8Array, k: number): void {
  for (let i = 0; i < k; i++) {
    if (comm.rank === 0) {
      comm.send(buf, peer, TAG);
      comm.recv(buf, peer, TAG);
    } else {
      comm.recv(buf, peer, TAG);
      comm.send(buf, peer, TAG);
    }
  }
}

const ctl = new Float64Array(1);
for (const bytes of cfg.sizes) {
  const buf = bytes > 0 ? comm.alloc('uint8', bytes) : new Uint8Array(0);
  roundTrips(buf, 3); // warm-up: connections, caches, JIT
  const t0 = nowSeconds();
  roundTrips(buf, 2);
  ctl[0] = (nowSeconds() - t0) / 2;
  comm.bcast(ctl, { root: 0 });
  const k = Math.max(1, Math.min(2000, Math.floor(cfg.seconds / cfg.batches / Math.max(ctl[0], 1e-7))));
  const samples: number[] = [];
  for (let b = 0; b < cfg.batches; b++) {
    const s = nowSeconds();
    roundTrips(buf, k);
    samples.push((nowSeconds() - s) / k / 2);
  }
  if (comm.rank === 0) {
    const m = summarize(samples);
    emitRecord({ jig: 'pingpong', bytes, seconds: m.median, reps: m.reps * k, spread: m.spread });
  }
  if (bytes > 0) comm.free(buf);
}
comm.barrier();
