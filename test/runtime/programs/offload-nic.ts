/**
 * Rank program: the engine's NIC-style protocols (algorithm 'nic:*' in offload mode)
 * — NACK barrier (dissemination, pairwise exchange), Go-back-N tree broadcast over
 * every tree of the catalogue and several roots (multi-packet messages), allgather by
 * recursive doubling (power-of-two node counts) and concurrent broadcast — repeated,
 * so that early arrivals and the two rotating channels are exercised; under
 * COLL_ENGINE_LOSS the engines drop frames and the protocols must recover. Then the
 * typed errors for unknown or misplaced nic:* names.
 */
import { nicAlgorithms } from '../../../src/offload/engine/nic.js';
import { init } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const w = init({ timeoutMs: 60_000 });
const report = new Report(w);
const nodes = w.nodeCount;
const rounds = Number(process.argv[2] ?? 4);
for (let it = 0; it < rounds; it++) {
  for (const alg of nicAlgorithms('barrier')) w.barrier({ mode: 'offload', algorithm: alg });
  for (const alg of nicAlgorithms('bcast')) {
    for (const root of [...new Set([0, w.size - 1, Math.floor(w.size / 2)])]) {
      const b = new Int32Array(1500 + it);
      if (w.rank === root) b.forEach((_, i) => (b[i] = i * 7 + root + it));
      w.bcast(b, { mode: 'offload', algorithm: alg, root, params: { mtu: 1024 } });
      report.ok(b.every((v, i) => v === i * 7 + root + it), `bcast ${alg} root ${root} round ${it}`);
    }
  }
  for (const alg of nicAlgorithms('allgather')) {
    if (alg === 'nic:recursive_doubling' && (nodes & (nodes - 1)) !== 0) continue;
    const out = new Float64Array(2 * w.size);
    w.allgather(Float64Array.of(w.rank, it), out, { mode: 'offload', algorithm: alg });
    report.ok(out.every((v, i) => v === (i % 2 === 0 ? i / 2 : it)), `allgather ${alg} round ${it}: ${Array.from(out).join(',')}`);
  }
}
// Several outstanding nonblocking calls per protocol, completed in reverse order.
for (const alg of nicAlgorithms('barrier')) {
  const reqs = [0, 1, 2, 3].map(() => w.ibarrier({ mode: 'offload', algorithm: alg }));
  for (const r of reqs.reverse()) await r;
  report.ok(true, `outstanding barriers ${alg}`);
}
for (const alg of nicAlgorithms('bcast')) {
  const bufs = [0, 1, 2].map((k) => {
    const b = new Int32Array(700);
    if (w.rank === 0) b.forEach((_, i) => (b[i] = i + 100 * k));
    return b;
  });
  const reqs = bufs.map((b) => w.ibcast(b, { mode: 'offload', algorithm: alg, params: { mtu: 1024 } }));
  for (const r of [...reqs].reverse()) await r;
  bufs.forEach((b, k) => report.ok(b.every((v, i) => v === i + 100 * k), `outstanding bcast ${alg} #${k}`));
}
for (const alg of nicAlgorithms('allgather')) {
  if (alg === 'nic:recursive_doubling' && (nodes & (nodes - 1)) !== 0) continue;
  const outs = [0, 1, 2].map(() => new Float64Array(w.size));
  const reqs = outs.map((o, k) => w.iallgather(Float64Array.of(w.rank * 10 + k), o, { mode: 'offload', algorithm: alg }));
  for (const r of [...reqs].reverse()) await r;
  outs.forEach((o, k) => report.ok(o.every((v, i) => v === i * 10 + k), `outstanding allgather ${alg} #${k}: ${Array.from(o).join(',')}`));
}
await report.throws('UnknownAlgorithmError', "'nic:nope'", 'unknown nic barrier', () => w.barrier({ mode: 'offload', algorithm: 'nic:nope' }));
await report.throws('UnknownAlgorithmError', "'nic:binomial' for allreduce", 'nic allreduce', () => w.allreduce(new Float64Array(1), null, { mode: 'offload', algorithm: 'nic:binomial' }));
await report.throws('RestrictionError', 'offload mode', 'nic in intermediate mode', () => w.bcast(new Float64Array(1), { mode: 'intermediate', algorithm: 'nic:binomial' }));
await report.throws('ArgumentError', "no parameter 'f'", 'bad nic parameter', () => w.barrier({ mode: 'offload', algorithm: 'nic:dissemination', params: { f: 2 } }));
if (nodes === 3) {
  await report.throws('RestrictionError', 'power-of-two', 'nic RD on 3 nodes', () => w.allgather(new Float64Array(1), new Float64Array(w.size), { mode: 'offload', algorithm: 'nic:recursive_doubling' }));
}
// The node's engine counted what it did; with loss injected it dropped frames and still finished.
const stats = w.engineStats();
report.ok(stats !== undefined && stats.collectives > 0 && stats.framesSent > 0, `engine counters ${JSON.stringify(stats)}`);
const loss = Number(process.env.COLL_ENGINE_LOSS ?? 0);
report.ok(loss > 0 ? (stats?.framesDropped ?? 0) > 0 : stats?.framesDropped === 0, `frames dropped with loss ${loss}: ${JSON.stringify(stats)}`);
report.print();
