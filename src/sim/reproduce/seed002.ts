/**
 * Seed 002 (Petrini et al., Quadrics hardware and software collectives) checked by
 * simulation on the `es40` preset (64 nodes, 4-ary 3-tree, wormhole flow control):
 * ping latency and bandwidth (R1–R6), barriers on an empty network and under
 * uniform / complement background traffic (R7–R26), broadcast latency and bandwidth
 * empty and loaded (R27–R42). Plots: barrier latency vs nodes with and without
 * traffic; broadcast bandwidth vs nodes under traffic.
 *
 * elan_gsync is simulated as its two phases: the NIC threads' 4-ary gather (a custom
 * schedule, offload mode) plus the hardware-multicast release (hw_multicast, 8 B),
 * each under the same traffic; their means add. elan_hgsync is hw_barrier;
 * elan_hbcast = hw_barrier + hw_multicast; elan_bcast = the gather + hw_multicast (the
 * data broadcast is the release).
 *
 * Inputs: R3 (β), R4 and R6 (α and the MPI overhead). Calibrated: R7 (the NIC's
 * receive cost), R9 (hw barrier attempt cost), R27 (multicast packet gap). Everything under traffic is
 * validation: the background window (2 packets per node, one per VC) is not fitted.
 */
import { lineChartSvg, type Series } from '../../plot/svg.js';
import type { RankSchedule, Step } from '../../schedule/types.js';
import type { MachineSpec } from '../machine.js';
import { getPreset } from '../presets.js';
import { simulate, type SimOptions, type TrafficSpec } from '../simulate.js';
import { fmt, info, notMatchable, numeric, us, verdict, type SeedReproduction, type SimCheck } from './check.js';

const S = 'seed 002';

/** The gather phase of elan_gsync: every process waits for its k children (heap order), then signals its parent. */
export function gatherSchedule(P: number, k: number): (rank: number) => RankSchedule {
  return (rank) => {
    const steps: Step[] = [];
    const recvs: number[] = [];
    for (let c = k * rank + 1; c <= k * rank + k && c < P; c++) {
      recvs.push(steps.length);
      steps.push({ kind: 'recv', peer: c, region: { buf: 1, offset: 0, count: 0 }, deps: [], round: 0 });
    }
    if (rank > 0) steps.push({ kind: 'send', peer: Math.floor((rank - 1) / k), region: { buf: 0, offset: 0, count: 0 }, deps: recvs, round: 1 });
    return { collective: 'barrier', algorithm: 'gsync-gather', rank, size: P, buffers: [{ name: 'in', count: 0 }, { name: 'out', count: 0 }], steps, rounds: steps.length > 0 ? 2 : 0 };
  };
}

export interface Seed002Options {
  /** Runs per barrier point under traffic (default 10). */
  readonly runs?: number;
  /** Bytes of the loaded broadcasts (default 1 MB as in the seed). */
  readonly loadedBytes?: number;
  readonly plots?: boolean;
}

type Pattern = 'uniform' | 'complement' | undefined;

export function seed002(o: Seed002Options = {}): SeedReproduction {
  const runs = o.runs ?? 10;
  const loadedBytes = o.loadedBytes ?? 1 << 20;
  const es: MachineSpec = getPreset('es40');
  const checks: SimCheck[] = [];
  const plots: { name: string; svg: string }[] = [];
  const traffic = (p: Pattern): TrafficSpec | undefined => (p ? { pattern: p } : undefined);
  const mean = (x: Partial<SimOptions> & Pick<SimOptions, 'collective' | 'algorithm'>, procs: number, p: Pattern, r = runs): number =>
    simulate({ machine: es, procs, seed: 2002, runs: p ? r : 1, traffic: traffic(p), ...x }).distribution.mean;
  const release = (N: number, p: Pattern): number => mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes: 8 }, N, p);
  const gather = (N: number, p: Pattern): number =>
    mean({ collective: 'barrier', algorithm: 'gsync-gather', schedule: gatherSchedule(N, 4), mode: 'offload' }, N, p);
  const gsync = (N: number, p: Pattern): number => gather(N, p) + release(N, p);
  const hgsync = (N: number, p: Pattern): number => mean({ collective: 'barrier', algorithm: 'hw_barrier' }, N, p);
  const hwDist = (N: number, p: Pattern) =>
    simulate({ machine: es, procs: N, seed: 2002, runs: 4 * runs, traffic: traffic(p), collective: 'barrier', algorithm: 'hw_barrier', keepSamples: true }).samples!;
  const share = (x: Float64Array, lim: number): number => x.filter((v) => v < lim).length / x.length;

  // ---- Ping (R1–R6).
  const ping = (bytes: number, m: MachineSpec = es, mode: 'host' | 'offload' = 'host'): number =>
    simulate({ collective: 'bcast', algorithm: 'binomial', machine: m, procs: 2, bytes, mode }).first.time;
  checks.push(numeric(S, 'R6: MPI 0-byte latency', 5.5, ping(0) / us, 0.02, ' µs', 'input', 'α from R4 (2.2 µs Elan3lib) + the MPI overhead split over send and receive'));
  const mb = 1 << 20;
  checks.push(numeric(S, 'R3: main memory to main memory bandwidth, 1 MB', 200, mb / ping(mb) / 1e6, 0.02, ' MB/s', 'input', 'class β is R3'));
  const elanMem: MachineSpec = { ...es, classes: { ...es.classes, network: { ...es.classes.network, beta: 0 } } };
  checks.push(
    numeric(S, 'R1/R2: Elan memory to Elan memory peak bandwidth, 1 MB (320 B packets + 58 B overhead at 400 MB/s, 2 VCs)', 335, mb / ping(mb, elanMem) / 1e6, 0.02, ' MB/s', 'validation', 'wormhole packets; with a single VC the ack round trip would cut it'),
  );

  // ---- Barriers on an empty network (R7–R11, R20).
  const g = [4, 16, 64].map((N) => gsync(N, undefined) / us);
  checks.push(numeric(S, 'R8: elan_gsync (software gather + hardware release), 64 nodes', 14.8, g[2], 0.15, ' µs', 'validation'));
  const step = ((g[1] - g[0]) + (g[2] - g[1])) / 2;
  checks.push(numeric(S, 'R7: elan_gsync grows about 2.5 µs each time the node count is quadrupled', 2.5, step, 0.2, ' µs', 'calibrated', `4 / 16 / 64 nodes: ${g.map((x) => x.toFixed(2)).join(' / ')} µs`));
  const h = [4, 16, 32, 64].map((N) => hgsync(N, undefined) / us);
  checks.push(numeric(S, 'R9: elan_hgsync (hardware barrier) below 16 nodes', 5, h[1], 0.05, ' µs', 'calibrated', 'hw.barrierAttempt fitted to it'));
  checks.push(
    notMatchable(S, 'R9: elan_hgsync at 32 and 64 nodes', '5.5 / 6 µs', `${fmt(h[2], '')} / ${fmt(h[3], ' µs')}`, 'the seed attributes the rise to Tru64 scheduling; no OS parameter is given (nothing in the network model grows that much)'),
  );
  const quiet64 = hwDist(64, undefined);
  checks.push(verdict(S, 'R20: elan_hgsync, 64 nodes, empty network: 94% under 9 µs, 2% over 20 µs', '94% < 9 µs', `${(share(quiet64, 9 * us) * 100).toFixed(0)}% < 9 µs`, share(quiet64, 9 * us) >= 0.94, '≥ 94%', 'validation', 'no OS tail is modelled, so none is over 20 µs'));

  // ---- Barriers under traffic (R12–R19, R21, R24–R26).
  const gu = [4, 64].map((N) => gsync(N, 'uniform') / us);
  const gc = [4, 64].map((N) => gsync(N, 'complement') / us);
  const hu = [4, 64].map((N) => hgsync(N, 'uniform') / us);
  const hc = [4, 64].map((N) => hgsync(N, 'complement') / us);
  checks.push(numeric(S, 'R13/R24: elan_gsync under uniform traffic, 64 nodes (slowdown ×40)', 595, gu[1], 0.25, ' µs', 'validation', `×${(gu[1] / g[2]).toFixed(1)} here; see docs/simulator.md for what the network model does not explain`));
  checks.push(
    verdict(S, 'R14/R21/R26: elan_hgsync under uniform traffic, 64 nodes ("only doubled", 13–14.8 µs)', '13–14.8 µs', fmt(hu[1], ' µs'), hu[1] >= 13 * 0.9 && hu[1] <= 14.8 * 1.1, '13–14.8 µs ± 10%', 'validation'),
  );
  const loaded64 = hwDist(64, 'uniform');
  checks.push(verdict(S, 'R21/R25: elan_hgsync under uniform traffic: more than 93% under 20 µs', '> 93%', `${(share(loaded64, 20 * us) * 100).toFixed(0)}%`, share(loaded64, 20 * us) > 0.93, '> 93%', 'validation'));
  checks.push(
    verdict(S, 'R12: uniform traffic degrades the barriers more than complement (64 nodes)', 'uniform > complement', `gsync ${fmt(gu[1], '')} vs ${fmt(gc[1], ' µs')}; hgsync ${fmt(hu[1], '')} vs ${fmt(hc[1], ' µs')}`, gu[1] > gc[1] && hu[1] > hc[1], 'both', 'validation'),
  );
  const inc = (a: number, b: number): number => (b / a - 1) * 100;
  checks.push(numeric(S, 'R15: elan_gsync increase 4 → 64 nodes, empty network', 54, inc(g[0], g[2]), 0.3, '%', 'validation'));
  checks.push(numeric(S, 'R15: elan_gsync increase 4 → 64 nodes, uniform traffic', 160, inc(gu[0], gu[1]), 0.3, '%', 'validation'));
  checks.push(numeric(S, 'R18: elan_gsync increase 4 → 64 nodes, complement traffic', 150, inc(gc[0], gc[1]), 0.3, '%', 'validation'));
  checks.push(notMatchable(S, 'R16: elan_hgsync increase 4 → 64 nodes, empty network', '29%', `${inc(h[0], h[3]).toFixed(0)}%`, 'the OS-scheduling rise of R9/R11 is not modelled'));
  checks.push(numeric(S, 'R16: elan_hgsync increase 4 → 64 nodes, uniform traffic', 86, inc(hu[0], hu[1]), 0.3, '%', 'validation'));
  checks.push(numeric(S, 'R19: elan_hgsync increase 4 → 64 nodes, complement traffic', 40, inc(hc[0], hc[1]), 0.5, '%', 'validation'));

  // ---- Broadcast, empty network (R27–R33).
  const hb = (N: number, bytes: number, p: Pattern, r = runs): number => mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes }, N, p, r);
  checks.push(numeric(S, 'R27: hardware broadcast bandwidth, 1 MB, 64 nodes', 288, mb / hb(64, mb, undefined) / 1e6, 0.02, ' MB/s', 'calibrated', 'hw.multicastPacketGap fitted to it'));
  const hbcast256 = (hgsync(64, undefined) + hb(64, 256, undefined)) / us;
  const bcast256 = (gather(64, undefined) + hb(64, 256, undefined)) / us;
  checks.push(numeric(S, 'R29: elan_hbcast ≤ 256 B, 64 nodes (hardware barrier + multicast)', 13, hbcast256, 0.15, ' µs', 'validation'));
  checks.push(numeric(S, 'R29: elan_bcast ≤ 256 B, 64 nodes (software sync + multicast)', 16.5, bcast256, 0.15, ' µs', 'validation'));
  checks.push(numeric(S, 'R28: elan_bcast − elan_hbcast', 3.5, bcast256 - hbcast256, 0.3, ' µs', 'validation'));
  const kb256 = 1 << 18;
  const bw = [4, 16, 64].map((N) => kb256 / hb(N, kb256, undefined) / 1e6);
  checks.push(
    numeric(S, 'R32: Elan-memory broadcast, 256 KB: bandwidth drop from 16 to 64 nodes', 8, (1 - bw[2] / bw[1]) * 100, 0.5, '%', 'validation', `4 / 16 / 64 nodes: ${bw.map((x) => x.toFixed(1)).join(' / ')} MB/s (R33: 1% above 4 nodes); the simulated multicast's packet rate is set at the source (calibrated gap), not by the tree depth`),
  );

  // ---- Broadcast under traffic (R34–R42).
  const lc = loadedBytes / hb(64, loadedBytes, 'complement', 1) / 1e6;
  const lu = loadedBytes / hb(64, loadedBytes, 'uniform', 1) / 1e6;
  const sizeNote = loadedBytes === mb ? '1 run' : `${loadedBytes >> 10} KB instead of 1 MB, 1 run (quick)`;
  checks.push(numeric(S, 'R37: hardware broadcast bandwidth under uniform traffic, 1 MB', 24, lu, 0.25, ' MB/s', 'validation', sizeNote));
  checks.push(numeric(S, 'R36: hardware broadcast bandwidth under complement traffic, 1 MB', 36, lc, 0.25, ' MB/s', 'validation', sizeNote));
  const small = (hgsync(64, 'uniform') + hb(64, 2048, 'uniform')) / us;
  checks.push(verdict(S, 'R39: under load, elan_hbcast delivers messages up to 2 KB in less than 200 µs', '< 200 µs', fmt(small, ' µs'), small < 200, '< 200 µs', 'validation'));
  const bwN = [16, 32, 64].map((N) => kb256 / hb(N, kb256, 'uniform', 1) / 1e6);
  checks.push(
    verdict(S, 'R42: under uniform traffic the bandwidth loss with node count levels off (256 KB, 16 → 32 → 64)', 'levelling off', bwN.map((x) => x.toFixed(1)).join(' → ') + ' MB/s', bwN[0] - bwN[1] >= bwN[1] - bwN[2] - 1e-9, 'smaller second drop', 'validation'),
  );
  // Sensitivity: would NIC-thread work per background packet (not in the seed) explain R13?
  const knob = 1 * us;
  const gk = (p: 'uniform' | 'complement'): number =>
    simulate({ machine: es, procs: 64, seed: 2002, runs: 3, traffic: { pattern: p, nicPerPacket: knob }, collective: 'barrier', algorithm: 'gsync-gather', schedule: gatherSchedule(64, 4), mode: 'offload' }).distribution.mean +
    release(64, p);
  const [ku, kc] = [gk('uniform'), gk('complement')];
  checks.push(
    info(
      S,
      'R13 sensitivity: every background packet also costs its receiving NIC thread 1 µs (not in the seed)',
      'uniform 595 µs, complement ≈ 2.5× empty',
      `gsync uniform ${fmt(ku / us, ' µs')}, complement ${fmt(kc / us, ' µs')}`,
      'NIC-thread load grows with the packets a node receives, which complement traffic delivers faster than uniform: it slows complement more than uniform (at 1.5 µs complement runs away first), the opposite of R12/R18, so it does not explain the ×40 either',
    ),
  );
  checks.push(
    info(S, 'R24: 93% of the elan_gsync barriers under uniform traffic below 605 µs', '93% < 605 µs', 'not meaningful while the mean is far from 595 µs', 'the distribution claim presupposes the ×40 slowdown'),
  );

  if (o.plots !== false) {
    const nodes = [4, 8, 16, 32, 64];
    const series: Series[] = [];
    for (const [name, f] of [['gsync', gsync], ['hgsync', hgsync]] as const) {
      for (const p of [undefined, 'complement', 'uniform'] as const) series.push({ name: `${name}, ${p ?? 'empty'}`, points: nodes.map((N) => [N, f(N, p) / us]) });
    }
    plots.push({
      name: 'seed002-fig9-10-barrier-vs-nodes',
      svg: lineChartSvg({ title: 'Seed 002 Figs. 9/10 (simulated, es40 wormhole): barrier latency vs nodes', x: { label: 'nodes', log: true }, y: { label: 'latency (µs)', log: true }, series }),
    });
    const bsz = Math.min(loadedBytes, kb256);
    const bseries: Series[] = [undefined, 'complement', 'uniform'].map((p) => ({
      name: `hw broadcast ${bsz >> 10} KB, ${p ?? 'empty'}`,
      points: [4, 16, 64].map((N) => [N, bsz / hb(N, bsz, p as Pattern, 1) / 1e6] as [number, number]),
    }));
    plots.push({
      name: 'seed002-fig14-16-bcast-bandwidth-vs-nodes',
      svg: lineChartSvg({ title: 'Seed 002 Figs. 14/16 (simulated): hardware broadcast bandwidth vs nodes', x: { label: 'nodes', log: true }, y: { label: 'MB/s', log: true }, series: bseries }),
    });
  }
  return {
    seed: S,
    checks,
    plots,
    effort: `${runs} runs per loaded barrier point (the seed averaged 10,000), ${4 * runs} for the hgsync distributions, 1 run per loaded broadcast of ${loadedBytes >> 10} KB`,
  };
}
