/**
 * Rank program: the LogGP parameters between ranks 0 and 1 (run on 1 node for
 * thread↔thread, on 2 nodes for process↔process over TCP), measured as in Kielmann et
 * al.'s "Fast measurement of LogP parameters" and LogGPS: for each message size b,
 *
 * - o_s(b): the time rank 0 spends in `send` of b bytes, one message at a time (the
 *   peer acknowledges each, so sends never queue behind each other);
 * - o_r(b): the time rank 1 spends in `recv` of a message that has already arrived
 *   (rank 1 waits twice the measured round trip before calling recv);
 * - g(b): the time per message of a burst of `burst` back-to-back sends, less the
 *   closing acknowledgement's one-way time (the gap: the rate messages leave at).
 *
 * Argument: JSON { sizes, reps, burst }. Prints one `loggp` record per size:
 * seconds = g(b), oSend = median o_s(b), oRecv = median o_r(b). Buffers are in the
 * shared arena, as in the ping-pong jig.
 */
import { init } from '../../index.js';
import { emitRecord } from './protocol.js';
import { nowSeconds, summarize } from './timing.js';

interface Config {
  readonly sizes: readonly number[];
  /** Samples behind each median. */
  readonly reps: number;
  /** Messages per burst for the gap (fewer for large messages). */
  readonly burst: number;
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as Config;
const comm = init();
if (comm.size !== 2) throw new Error(`the LogGP jig needs exactly 2 ranks, got ${comm.size}`);
const peer = 1 - comm.rank;
const DATA = 11;
const ACK = 12;
const ack = new Uint8Array(0);
const ctl = new Float64Array(1);

function spin(seconds: number): void {
  const end = nowSeconds() + seconds;
  while (nowSeconds() < end) {
    // busy wait: the message arrives meanwhile
  }
}

for (const bytes of cfg.sizes) {
  const buf = bytes > 0 ? comm.alloc('uint8', bytes) : new Uint8Array(0);
  // Round trip (warm-up first), agreed by both ranks.
  const rtts: number[] = [];
  for (let i = 0; i < 5 + cfg.reps; i++) {
    const t0 = nowSeconds();
    if (comm.rank === 0) {
      comm.send(buf, peer, DATA);
      comm.recv(ack, peer, ACK);
    } else {
      comm.recv(buf, peer, DATA);
      comm.send(ack, peer, ACK);
    }
    if (i >= 5) rtts.push(nowSeconds() - t0);
  }
  ctl[0] = summarize(rtts).median;
  comm.bcast(ctl, { root: 0 });
  const rtt = ctl[0];
  // o_s: time in send, one message at a time.
  const os: number[] = [];
  for (let i = 0; i < cfg.reps; i++) {
    if (comm.rank === 0) {
      const t0 = nowSeconds();
      comm.send(buf, peer, DATA);
      os.push(nowSeconds() - t0);
      comm.recv(ack, peer, ACK);
    } else {
      comm.recv(buf, peer, DATA);
      comm.send(ack, peer, ACK);
    }
  }
  // o_r: time in recv of a message that has arrived.
  const or: number[] = [];
  for (let i = 0; i < cfg.reps; i++) {
    if (comm.rank === 0) {
      comm.send(buf, peer, DATA);
      comm.recv(ack, peer, ACK);
    } else {
      spin(2 * rtt + 20e-6);
      const t0 = nowSeconds();
      comm.recv(buf, peer, DATA);
      or.push(nowSeconds() - t0);
      comm.send(ack, peer, ACK);
    }
  }
  const orMedian = Float64Array.of(summarize(or.length > 0 ? or : [0]).median);
  comm.bcast(orMedian, { root: 1 });
  // g: back-to-back sends, closed by one acknowledgement.
  const burst = Math.max(4, bytes >= 1 << 20 ? Math.floor(cfg.burst / 8) : cfg.burst);
  const gaps: number[] = [];
  for (let i = 0; i < Math.max(3, Math.floor(cfg.reps / 4)); i++) {
    comm.barrier();
    if (comm.rank === 0) {
      const t0 = nowSeconds();
      for (let k = 0; k < burst; k++) comm.send(buf, peer, DATA);
      comm.recv(ack, peer, ACK);
      gaps.push(Math.max(0, nowSeconds() - t0 - rtt / 2) / burst);
    } else {
      for (let k = 0; k < burst; k++) comm.recv(buf, peer, DATA);
      comm.send(ack, peer, ACK);
    }
  }
  if (comm.rank === 0) {
    const g = summarize(gaps);
    emitRecord({ jig: 'loggp', bytes, seconds: g.median, oSend: summarize(os).median, oRecv: orMedian[0], rtt, reps: g.reps, spread: g.spread });
  }
  if (bytes > 0) comm.free(buf);
}
comm.barrier();
