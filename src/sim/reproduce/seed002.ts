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
 * Mechanisms (src/sim/wormhole.ts, hardware.ts): the hardware multicast is rooted at
 * the top-leftmost switch of the group's subtree (one level deeper above 4 and 16
 * nodes, R32/R33); a destination acknowledges a packet after committing its payload
 * (ack turnaround + payload · ackPerByte), so with two VCs a packet stream — unicast
 * DMA or multicast — runs at two packets per circuit round trip, which grows with the
 * tree's depth; background traffic runs on all 64 nodes whatever the collective's
 * size (§5.2), senders unsynchronised.
 *
 * Inputs: R3 (β), R4 and R6 (α and the MPI overhead). Calibrated (one parameter each,
 * declared in the es40 preset's sources and here): R7 (es40 nic.oRecv), R9
 * (hw.barrierAttempt), R27 (network.wormhole.ackPerByte), R29 elan_hbcast
 * (hw.multicastStartup), R14 (the background packet payload, SEED002_BG_BYTES; the
 * window of 2 packets per node, one per VC, is not fitted). Everything else is
 * validation.
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

/**
 * Payload of the background job's packets (the seed gives no message size): CALIBRATED
 * on R14, elan_hgsync under uniform traffic on 64 nodes = 14.8 µs (§6.2.1; 200 B gives
 * 14.6 µs over 100 runs). With full 320 B packets it would be 18.6 µs.
 */
export const SEED002_BG_BYTES = 200;

/** Runs per loaded barrier point without --quick; rows that need them are `info` with fewer. */
const DEFAULT_RUNS = 10;

export function seed002(o: Seed002Options = {}): SeedReproduction {
  const runs = o.runs ?? DEFAULT_RUNS;
  const reduced = runs < DEFAULT_RUNS;
  const loadedBytes = o.loadedBytes ?? 1 << 20;
  const es: MachineSpec = getPreset('es40');
  const checks: SimCheck[] = [];
  const plots: { name: string; svg: string }[] = [];
  // The background job: every node of the machine (§5.2), SEED002_BG_BYTES per packet.
  const traffic = (p: Pattern, extra: Partial<TrafficSpec> = {}): TrafficSpec | undefined =>
    p ? { pattern: p, bytes: SEED002_BG_BYTES, nodes: es.nodes, ...extra } : undefined;
  const mean = (x: Partial<SimOptions> & Pick<SimOptions, 'collective' | 'algorithm'>, procs: number, p: Pattern, r = runs, bg: Partial<TrafficSpec> = {}): number =>
    simulate({ machine: es, procs, seed: 2002, runs: p ? r : 1, traffic: traffic(p, bg), ...x }).distribution.mean;
  const release = (N: number, p: Pattern): number => mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes: 8 }, N, p);
  const gather = (N: number, p: Pattern, bg: Partial<TrafficSpec> = {}): number =>
    mean({ collective: 'barrier', algorithm: 'gsync-gather', schedule: gatherSchedule(N, 4), mode: 'offload' }, N, p, runs, bg);
  const gsync = (N: number, p: Pattern, bg: Partial<TrafficSpec> = {}): number =>
    gather(N, p, bg) + mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes: 8 }, N, p, runs, bg);
  const hgsync = (N: number, p: Pattern, bg: Partial<TrafficSpec> = {}): number => mean({ collective: 'barrier', algorithm: 'hw_barrier' }, N, p, runs, bg);
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
    numeric(S, 'R1/R2: Elan memory to Elan memory peak bandwidth, 1 MB (320 B packets + 58 B overhead at 400 MB/s, 2 VCs)', 335, mb / ping(mb, elanMem) / 1e6, 0.02, ' MB/s', 'validation', 'nodes 0 → 1 (2 links): two packets in flight (2 VCs) per circuit round trip, the ack leaving after the payload is committed (ackPerByte, fitted on R27)'),
  );

  // ---- Barriers on an empty network (R7–R11, R20).
  const g = [4, 16, 64].map((N) => gsync(N, undefined) / us);
  checks.push(numeric(S, 'R8: elan_gsync (software gather + hardware release), 64 nodes', 14.8, g[2], 0.15, ' µs', 'validation'));
  const step = ((g[1] - g[0]) + (g[2] - g[1])) / 2;
  checks.push(numeric(S, 'R7: elan_gsync grows about 2.5 µs each time the node count is quadrupled', 2.5, step, 0.2, ' µs', 'calibrated', `nic.oRecv fitted to it; 4 / 16 / 64 nodes: ${g.map((x) => x.toFixed(2)).join(' / ')} µs`));
  const h = [4, 16, 32, 64].map((N) => hgsync(N, undefined) / us);
  checks.push(numeric(S, 'R9: elan_hgsync (hardware barrier) below 16 nodes', 5, h[1], 0.05, ' µs', 'calibrated', 'hw.barrierAttempt fitted to it'));
  checks.push(
    notMatchable(
      S,
      'R9: elan_hgsync at 32 and 64 nodes',
      '5.5 / 6 µs',
      `${fmt(h[2], '')} / ${fmt(h[3], ' µs')}`,
      `the seed attributes the rise to Tru64 scheduling (R11); no OS parameter is given, and the network adds only the multicast tree's third level above 16 nodes (+${fmt(h[2] - h[1], ' µs')}: 4 more link latencies per round)`,
    ),
  );
  const quiet64 = hwDist(64, undefined);
  checks.push(verdict(S, 'R20: elan_hgsync, 64 nodes, empty network: 94% under 9 µs, 2% over 20 µs', '94% < 9 µs', `${(share(quiet64, 9 * us) * 100).toFixed(0)}% < 9 µs`, share(quiet64, 9 * us) >= 0.94, '≥ 94%', 'validation', 'no OS tail is modelled, so none is over 20 µs'));

  // ---- Broadcast under traffic first (R37 bounds the network's share of R13).
  const hb = (N: number, bytes: number, p: Pattern, r = runs, bg: Partial<TrafficSpec> = {}): number => mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes }, N, p, r, bg);
  const lc = loadedBytes / hb(64, loadedBytes, 'complement', 1) / 1e6;
  const lu = loadedBytes / hb(64, loadedBytes, 'uniform', 1) / 1e6;

  // ---- Barriers under traffic (R12–R19, R21, R24–R26).
  const gu = [4, 64].map((N) => gsync(N, 'uniform') / us);
  const gc = [4, 64].map((N) => gsync(N, 'complement') / us);
  const hu = [4, 64].map((N) => hgsync(N, 'uniform') / us);
  const hc = [4, 64].map((N) => hgsync(N, 'complement') / us);
  const full = { bytes: 320 };
  const hu320 = hgsync(64, 'uniform', full) / us;
  const levels = Math.log(64) / Math.log(4);
  const perLevel = (595 - 14.8) / levels;
  const perPacket = 320 / 24;
  checks.push(
    notMatchable(
      S,
      'R13/R24: elan_gsync under uniform traffic, 64 nodes (slowdown ×40)',
      '595 µs',
      `${fmt(gu[1], ' µs')} (×${(gu[1] / g[2]).toFixed(1)})`,
      `the seed's own numbers bound the network's share: ×40 needs ≈ ${fmt(perLevel, ' µs')} of waiting per level of the 4-ary gather, i.e. per 0-byte ready packet, while under the same uniform load a hardware multicast, which must hold a VC on every ejection link (the parent's included) and 80 more links at once, completes a whole barrier in 13–14.8 µs (R14) and moves a 320 B packet every ${fmt(perPacket, ' µs')} (24 MB/s, R37). ` +
        `With the Elite's arbitration (FIFO / aging, "fair delivery of packets in the same priority level") one header cannot wait ~15× longer for one ejection link than a worm that needs it and 63 others; with the same traffic ours gives R14 ${fmt(hu[1], ' µs')} and R37 ${fmt(lu, ' MB/s')}. ` +
        'The rest lies outside the network (Elan thread processor or host under load), for which the seed gives no parameter; a larger background window or per-packet NIC work (docs/simulator.md, the sensitivity row below) break R14, R37 or R12/R18',
    ),
  );
  checks.push(
    verdict(
      S,
      'R14/R21/R26: elan_hgsync under uniform traffic, 64 nodes ("only doubled", 13–14.8 µs)',
      '13–14.8 µs',
      fmt(hu[1], ' µs'),
      hu[1] >= 13 * 0.9 && hu[1] <= 14.8 * 1.1,
      '13–14.8 µs ± 10%',
      'calibrated',
      `the background packet payload (${SEED002_BG_BYTES} B, unpublished) fitted to 14.8 µs; full 320 B packets give ${fmt(hu320, ' µs')}`,
    ),
  );
  const loaded64 = hwDist(64, 'uniform');
  const r21Claim = 'R21/R25: elan_hgsync under uniform traffic: more than 93% under 20 µs';
  const r21Ours = `${(share(loaded64, 20 * us) * 100).toFixed(0)}%`;
  checks.push(
    reduced
      ? info(
          S,
          r21Claim,
          '> 93%',
          r21Ours,
          `judged only without --quick (${4 * DEFAULT_RUNS} samples): with ${loaded64.length} samples one over 20 µs moves the share by ${(100 / loaded64.length).toFixed(0)} points and alone decides the verdict`,
        )
      : verdict(S, r21Claim, '> 93%', r21Ours, share(loaded64, 20 * us) > 0.93, '> 93%', 'validation'),
  );
  checks.push(
    verdict(S, 'R12: uniform traffic degrades the barriers more than complement (64 nodes)', 'uniform > complement', `gsync ${fmt(gu[1], '')} vs ${fmt(gc[1], ' µs')}; hgsync ${fmt(hu[1], '')} vs ${fmt(hc[1], ' µs')}`, gu[1] > gc[1] && hu[1] > hc[1], 'both', 'validation'),
  );
  const inc = (a: number, b: number): number => (b / a - 1) * 100;
  const osNote = 'the published increase includes the OS-scheduling rise of the empty network (R16: 29%, R11), which is not modelled';
  checks.push(numeric(S, 'R15: elan_gsync increase 4 → 64 nodes, empty network', 54, inc(g[0], g[2]), 0.3, '%', 'validation'));
  checks.push(
    numeric(S, 'R15: elan_gsync increase 4 → 64 nodes, uniform traffic', 160, inc(gu[0], gu[1]), 0.3, '%', 'validation', `${fmt(gu[0], '')} → ${fmt(gu[1], ' µs')}; both ends lack R13's unexplained slowdown (the seed's are ≈ 229 → 595 µs)`),
  );
  const gc320 = [4, 64].map((N) => gsync(N, 'complement', full) / us);
  checks.push(
    notMatchable(
      S,
      'R18: elan_gsync increase 4 → 64 nodes, complement traffic',
      '150%',
      `${inc(gc[0], gc[1]).toFixed(0)}%`,
      `${fmt(gc[0], '')} → ${fmt(gc[1], ' µs')}. The background message size is not published: fitted on R14 (${SEED002_BG_BYTES} B) it gives this; full 320 B packets give ${inc(gc320[0], gc320[1]).toFixed(0)}% but R14 ${fmt(hu320, ' µs')} (13–14.8) and R21 below 93%, so no size holds R14/R21 and R18 together. ` +
        'The seed has complement hurt the software barrier almost as much as uniform (150% vs 160%) while explaining complement\'s mildness by "always one virtual channel available in each link", i.e. no VC waits: the complement slowdown of the software barrier comes from outside the network model, like R13\'s',
    ),
  );
  checks.push(notMatchable(S, 'R16: elan_hgsync increase 4 → 64 nodes, empty network', '29%', `${inc(h[0], h[3]).toFixed(0)}%`, 'the OS-scheduling rise of R9/R11 is not modelled (the network adds one multicast level above 4 and 16 nodes)'));
  const r16Claim = 'R16: elan_hgsync increase 4 → 64 nodes, uniform traffic';
  const r16Note = `${fmt(hu[0], '')} → ${fmt(hu[1], ' µs')}; ${osNote}`;
  checks.push(
    reduced
      ? info(
          S,
          r16Claim,
          '86%',
          fmt(inc(hu[0], hu[1]), '%'),
          `judged only without --quick (${DEFAULT_RUNS} runs per point): a ratio of two ${runs}-run means under random background traffic; ${r16Note}`,
        )
      : numeric(S, r16Claim, 86, inc(hu[0], hu[1]), 0.3, '%', 'validation', r16Note),
  );
  checks.push(numeric(S, 'R19: elan_hgsync increase 4 → 64 nodes, complement traffic', 40, inc(hc[0], hc[1]), 0.5, '%', 'validation', `${fmt(hc[0], '')} → ${fmt(hc[1], ' µs')}; ${osNote}`));

  // ---- Broadcast, empty network (R27–R33).
  checks.push(numeric(S, 'R27: hardware broadcast bandwidth, 1 MB, 64 nodes', 288, mb / hb(64, mb, undefined) / 1e6, 0.02, ' MB/s', 'calibrated', 'network.wormhole.ackPerByte fitted to it (two packets in flight per tree round trip)'));
  const hbcast256 = (hgsync(64, undefined) + hb(64, 256, undefined)) / us;
  const bcast256 = (gather(64, undefined) + hb(64, 256, undefined)) / us;
  checks.push(numeric(S, 'R29: elan_hbcast ≤ 256 B, 64 nodes (hardware barrier + multicast)', 13, hbcast256, 0.15, ' µs', 'calibrated', 'es40 hw.multicastStartup fitted to it'));
  checks.push(numeric(S, 'R29: elan_bcast ≤ 256 B, 64 nodes (software sync + multicast)', 16.5, bcast256, 0.15, ' µs', 'validation'));
  checks.push(numeric(S, 'R28: elan_bcast − elan_hbcast', 3.5, bcast256 - hbcast256, 0.3, ' µs', 'validation', 'the software gather against the hardware barrier (the seed\'s 6 µs hgsync includes R11\'s OS rise, ours does not)'));
  const kb256 = 1 << 18;
  const bw = [4, 16, 64].map((N) => kb256 / hb(N, kb256, undefined) / 1e6);
  checks.push(
    numeric(
      S,
      'R32: Elan-memory broadcast, 256 KB: bandwidth drop from 16 to 64 nodes',
      8,
      (1 - bw[2] / bw[1]) * 100,
      0.5,
      '%',
      'validation',
      `4 / 16 / 64 nodes: ${bw.map((x) => x.toFixed(1)).join(' / ')} MB/s: the multicast root is the group's subtree root, each packet holds its tree until the combined ack, two VCs keep two in flight, so every level adds 4 link latencies to the round trip. ` +
        `R33 (1% above 4 nodes) is not reproduced: equal latency per level gives ${((1 - bw[1] / bw[0]) * 100).toFixed(1)}% there too`,
    ),
  );

  // ---- Broadcast under traffic (R34–R42).
  const sizeNote = loadedBytes === mb ? '1 run' : `${loadedBytes >> 10} KB instead of 1 MB, 1 run (quick)`;
  checks.push(numeric(S, 'R37: hardware broadcast bandwidth under uniform traffic, 1 MB', 24, lu, 0.25, ' MB/s', 'validation', sizeNote));
  const alt = Math.min(loadedBytes, kb256);
  const lcSeed = alt / mean({ collective: 'bcast', algorithm: 'hw_multicast', bytes: alt, seed: 7 }, 64, 'complement', 1) / 1e6;
  const lcBg = [256, 320].map((b) => alt / hb(64, alt, 'complement', 1, { bytes: b }) / 1e6);
  const lcOne = alt / hb(64, alt, 'complement', 1, { window: 1 }) / 1e6;
  const hu256 = hgsync(64, 'uniform', { bytes: 256 }) / us;
  checks.push(
    notMatchable(
      S,
      'R36: hardware broadcast bandwidth under complement traffic, 1 MB',
      '36 MB/s',
      fmt(lc, ' MB/s'),
      `${sizeNote}. Complement traffic is deterministic and the multicast locks into one of two regimes: with the same ${SEED002_BG_BYTES} B packets and other start offsets (seed 7) ${alt >> 10} KB get ${fmt(lcSeed, ' MB/s')}; ` +
        `with 256 / 320 B packets (the size is unpublished) ${lcBg.map((x) => x.toFixed(1)).join(' / ')} MB/s, but then R14 is ${fmt(hu256, '')} / ${fmt(hu320, ' µs')} (13–14.8). ` +
        `The seed explains complement by "always one virtual channel available in each link"; with one background packet in flight per node (so one VC stays free) ours is ${fmt(lcOne, ' MB/s')}: a multicast that never waits for a VC shares each link with one circuit. ` +
        '36 MB/s needs the background to hold both VCs, against that statement, or a NIC-side cost the seed only hints at (the background\'s Elan-memory buffers, R35) without a parameter',
    ),
  );
  const small = (hgsync(64, 'uniform') + hb(64, 2048, 'uniform')) / us;
  checks.push(verdict(S, 'R39: under load, elan_hbcast delivers messages up to 2 KB in less than 200 µs', '< 200 µs', fmt(small, ' µs'), small < 200, '< 200 µs', 'validation'));
  const bwN = [16, 32, 64].map((N) => kb256 / hb(N, kb256, 'uniform', 1) / 1e6);
  checks.push(
    verdict(S, 'R42: under uniform traffic the bandwidth loss with node count levels off (256 KB, 16 → 32 → 64)', 'levelling off', bwN.map((x) => x.toFixed(1)).join(' → ') + ' MB/s', bwN[0] - bwN[1] >= bwN[1] - bwN[2] - 1e-9, 'smaller second drop', 'validation'),
  );
  // Sensitivity: would NIC-thread work per background packet (not in the seed) explain R13?
  const knob = 1 * us;
  const gk = (p: 'uniform' | 'complement'): number =>
    simulate({ machine: es, procs: 64, seed: 2002, runs: 3, traffic: traffic(p, { nicPerPacket: knob }), collective: 'barrier', algorithm: 'gsync-gather', schedule: gatherSchedule(64, 4), mode: 'offload' }).distribution.mean +
    release(64, p);
  const [ku, kc] = [gk('uniform'), gk('complement')];
  checks.push(
    info(
      S,
      'R13 sensitivity: every background packet also costs its receiving NIC thread 1 µs (not in the seed)',
      'uniform 595 µs, complement ≈ 2.5× empty',
      `gsync uniform ${fmt(ku / us, ' µs')}, complement ${fmt(kc / us, ' µs')}`,
      'NIC-thread load grows with the packets a node receives, which complement traffic delivers faster than uniform: it slows complement more than uniform (complement runs away first), the opposite of R12/R18, so it does not explain the ×40 either',
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
