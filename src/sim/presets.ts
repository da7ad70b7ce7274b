/**
 * Machine presets for the seeds' experiments, each value with its source. Values
 * marked 'ASSUMED' are not in any seed (a typical value or a guess); 'DERIVED' are
 * computed from seed numbers; 'CALIBRATED' were fitted to a seed's published
 * result (the result is then a check of the fit, not a validation).
 */
import { ArgumentError } from '../core/errors.js';
import type { MachineSpec } from './machine.js';

const us = (x: number): number => x * 1e-6;
const ns = (x: number): number => x * 1e-9;
const MBps = (x: number): number => x * 1e6;
const GBps = (x: number): number => x * 1e9;

/** Elan3 NIC compute (seed 000 Table 4.3, 1-element column, per element). */
const ELAN3_NIC_GAMMA = {
  'sum:int32': us(0.25),
  'max:int32': us(0.27),
  'min:int32': us(0.27),
  'sum:float64': us(1.5),
  'max:float64': us(0.67),
  'min:float64': us(0.67),
  'sum:int64': us(0.5),
  'max:int64': us(0.54),
  'min:int64': us(0.54),
  'sum:float32': us(0.75),
  'max:float32': us(0.34),
  'min:float32': us(0.34),
  noop: 0,
  default: us(1.5),
};

/** Host compute on the crescendo/ALC nodes (seed 000 Table 4.3, 1-element column). */
const ELAN3_HOST_GAMMA = {
  'sum:int32': us(0.02),
  'max:int32': us(0.03),
  'min:int32': us(0.03),
  'sum:float64': us(0.02),
  'max:float64': us(0.04),
  'min:float64': us(0.04),
  noop: 0,
  default: us(0.02),
};

const ELAN3_SOURCES = {
  'network.topology': 'seed 000 F2 / seed 002 T1: quaternary fat tree of Elite switches',
  'network.arity': 'seed 002 T1 (k = 4)',
  'network.linkBandwidth': 'seed 000 F2 / seed 002 S3: 400 MB/s per link direction',
  'network.hopLatency': 'seed 000 F2 / seed 002 S3: 35 ns switch flow-through (wire delay ASSUMED 0)',
  'network.packetBytes': 'seed 002 P2: 320 B payload per packet',
  'network.packetOverhead': 'seed 002 P5: 58 B per packet',
  'classes.network.alpha': 'DERIVED: seed 000 Table 4.2 L_host = 2.90 µs minus 4 hops × 35 ns',
  'classes.network.beta': 'seed 000 F2: 325 MB/s at MPI level',
  'classes.node.alpha': 'ASSUMED: 1 µs shared-memory latency (not in seed 000)',
  'classes.node.beta': 'ASSUMED: 1 GB/s shared-memory copy (not in seed 000)',
  'host.oSend': 'DERIVED: seed 000 Table 4.1 charges no send overhead (sends cost L)',
  'host.oRecv': 'seed 000 Table 4.2: r = 0.42 µs',
  'host.gamma': 'seed 000 Table 4.3 host, 1-element column (per element; min = max ASSUMED)',
  'host.copyPerByte': 'ASSUMED: 1 ns/B',
  'host.callOverhead': 'seed 000 Table 4.2: C_host = 2.70 µs',
  'nic.oSend': 'DERIVED: as host',
  'nic.oRecv': 'seed 000 Table 4.2: r = 0.42 µs',
  'nic.gamma': 'seed 000 Table 4.3 NIC, 1-element column; int64 = 2 × int32 and float32 = ½ float64 ASSUMED (seed 000 §7)',
  'nic.copyPerByte': 'ASSUMED: 10 ns/B (100 MHz NIC processor)',
  'nic.startup':
    'CALIBRATED split of C_NIC − C_host = 6.50 µs (seed 000 Table 4.2) between start-up (data and descriptor to the NIC, start signalled) and completion (result copied up, host notified), §3.3: ' +
    'fitted so that intermediate-only NIC keeps half of the NIC − host gap at 16 nodes (Fig. 5.2, "roughly in half"; phased binomial, int32 sum), 32 nodes is validation (scripts/sim-calibrate-seed000.ts)',
  'nic.completion': 'CALIBRATED: 6.50 µs − nic.startup (see nic.startup)',
  'nic.busCrossing': 'DERIVED: seed 000 L_host − L_NIC = 0.80 µs, split evenly over the two endpoints (split ASSUMED)',
  'hw.multicastStartup': 'CALIBRATED: raw hardware broadcast 3.6 µs for 8 B on 8 nodes (seed 003 ch. 5)',
  'hw.deliveryOverhead': 'CALIBRATED: with hw.multicastStartup to the 3.6 µs raw broadcast (seed 003 ch. 5)',
  'hw.multicastPacketGap': 'CALIBRATED: 288 MB/s broadcast vs 338.6 MB/s packet payload rate (seed 002 R27, §4)',
  'hw.barrierEnter': 'ASSUMED: 0.5 µs to write the barrier sequence word',
  'hw.barrierAttempt': 'CALIBRATED: elan_hgsync ≈ 5 µs below 16 nodes (seed 002 R9)',
  'hw.barrierBackoff': 'ASSUMED: 1 µs first back-off (seed 002 leaves it unspecified)',
  'hw.barrierBackoffMax': 'ASSUMED: 64 µs',
} as const;

function elan3Machine(name: string, description: string, nodes: number, levels: number, extra: Record<string, string>): MachineSpec {
  return {
    name,
    description,
    nodes,
    coresPerNode: 2,
    defaultPpn: 1,
    network: {
      topology: 'fattree',
      arity: 4,
      levels,
      linkBandwidth: MBps(400),
      hopLatency: ns(35),
      packetBytes: 320,
      packetOverhead: 58,
    },
    classes: {
      node: { alpha: us(1), beta: 1 / GBps(1) },
      network: { alpha: us(2.9) - 4 * ns(35), beta: 1 / MBps(325) },
    },
    host: { oSend: 0, oRecv: us(0.42), gamma: ELAN3_HOST_GAMMA, copyPerByte: ns(1), callOverhead: us(2.7) },
    nic: {
      oSend: 0,
      oRecv: us(0.42),
      gamma: ELAN3_NIC_GAMMA,
      copyPerByte: ns(10),
      startup: us(5.92),
      completion: us(0.58),
      busCrossing: us(0.4),
    },
    hw: {
      multicastStartup: us(1.9),
      multicastPacketGap: us(0.166),
      deliveryOverhead: us(1.2),
      barrierEnter: us(0.5),
      barrierAttempt: us(2.5),
      barrierBackoff: us(1),
      barrierBackoffMax: us(64),
    },
    sources: { ...ELAN3_SOURCES, ...extra },
  };
}

/**
 * ALC: the crescendo (Elan3) parameters, except one, fitted at scale. Seed 000 fitted
 * L, r, C, c on the 32-node crescendo only, and the extract notes that they
 * under-predict the large-scale NIC-based latencies by 2–2.5×. Table 5.1's host-based
 * samples say the host path is not slower at scale (the best host sample, about a
 * third of the 89.30 µs mean, is what the crescendo parameters predict without
 * noise), so the extra cost is on the NIC side: we fit the NIC's per-send cost (the
 * Elan thread building and issuing the packet, 0 on crescendo where it is folded
 * into L) to Table 5.1's NIC-based mean, 73.67 µs (900 nodes × 2, float64 sum,
 * 4-nomial, top 1% dropped; NIC runs see no noise, so the mean isolates the
 * deterministic costs), simulated with phased execution as the seed's NIC runs its
 * tree (scripts/sim-calibrate-seed000.ts; 3.14 µs under the DAG).
 */
export const ALC_NIC_SEND = us(4.65);

/**
 * LANai 9.1: NIC time per data packet received through GM's regular packet path
 * (receive token, acknowledgement and send-record bookkeeping of the per-child
 * Go-back-N, DMA descriptor to the host; seed 003 §6.4 M8/M9), which the barrier's
 * static packets with receiver-driven NACKs skip (§6.3 M4/M5). CALIBRATED on the
 * MPI-level broadcast ≤ 512 B over 16 nodes (§6.9: up to 1.78×); the multisend and
 * allgather factors are validation (src/sim/reproduce/seed003.ts).
 */
export const LANAI9_PACKET_RECV = us(9);

function alcMachine(): MachineSpec {
  const m = elan3Machine(
    'alc',
    'LLNL ASCI Linux Cluster: 960 dual-CPU 2.4 GHz Xeon nodes, Quadrics Elan3/Elite (seed 000)',
    960,
    5,
    {
      nodes: 'seed 000 §5: 960 dual-processor nodes',
      coresPerNode: 'seed 000 §5: dual-processor',
      'network.levels': 'DERIVED: a 4-ary 5-tree (1024 ports) holds 960 nodes (layout ASSUMED)',
      'host.*': 'ASSUMED: crescendo parameters (seed 000 fitted them on crescendo only)',
      'nic.*': 'ASSUMED: crescendo parameters, except nic.oSend',
      'nic.oSend':
        'CALIBRATED: seed 000 Table 5.1 NIC-based mean 73.67 µs (900 nodes × 2, float64 sum, 4-nomial, top 1% dropped, phased execution); ' +
        'a lumped large-scale NIC cost (crescendo: 0, folded into L), not derived from the seed; the 8 extra hops of the 5-level tree add only 0.28 µs',
    },
  );
  return { ...m, nic: { ...m.nic!, oSend: ALC_NIC_SEND } };
}

export const PRESETS: Readonly<Record<string, MachineSpec>> = Object.freeze({
  crescendo: elan3Machine(
    'crescendo',
    'LANL "crescendo": 32 dual-CPU 1.0 GHz Pentium III nodes, Quadrics Elan3/Elite (seed 000)',
    32,
    3,
    {
      nodes: 'seed 000 §5: 32 dual-processor nodes',
      coresPerNode: 'seed 000 §5: dual-processor',
      'network.levels': 'DERIVED: 4-ary 3-tree holds 32 nodes (layout ASSUMED, seed 000 §7)',
    },
  ),
  alc: alcMachine(),
  es40: {
    ...elan3Machine('es40', '64-node Compaq AlphaServer ES40 cluster, 4 × Alpha 21264 per node, QsNet 4-ary 3-tree (seed 002)', 64, 3, {}),
    coresPerNode: 4,
    network: {
      ...elan3Machine('es40', '', 64, 3, {}).network,
      flowControl: 'wormhole',
      wormhole: { vcs: 2, ackTurnaround: us(0.1), ackPerByte: ns(2.24) },
    },
    classes: {
      node: { alpha: us(1), beta: 1 / GBps(1) },
      network: { alpha: us(2.2) - 4 * ns(35), beta: 1 / MBps(200) },
    },
    hw: {
      ...elan3Machine('es40', '', 64, 3, {}).hw!,
      multicastStartup: us(4.71),
      multicastPacketGap: 0,
      barrierAttempt: us(2.6),
    },
    host: { oSend: us(1.4), oRecv: us(1.9), gamma: { default: ns(3) }, copyPerByte: ns(1) },
    nic: {
      oSend: us(0.5),
      oRecv: us(0.15),
      gamma: ELAN3_NIC_GAMMA,
      copyPerByte: ns(10),
      startup: us(1),
      completion: us(1),
      busCrossing: us(0.4),
    },
    sources: {
      ...ELAN3_SOURCES,
      nodes: 'seed 002 §5: 64 AlphaServer ES40 nodes',
      coresPerNode: 'seed 002 §8: 4 × Alpha 21264 667 MHz',
      'network.levels': 'seed 002 §5: quaternary fat tree of dimension 3',
      'network.flowControl': 'seed 002 §2.2.1 S9, §3.3: wormhole, the circuit held until the destination acks and the EOP closes it (packet-level model, src/sim/wormhole.ts)',
      'network.wormhole.vcs': 'seed 002 S1: two virtual channels per link direction',
      'network.wormhole.ackTurnaround': 'ASSUMED: 0.1 µs (ten 100 MHz Elan cycles) from tail arrival to the ack leaving the destination',
      'network.wormhole.ackPerByte':
        'CALIBRATED: seed 002 R27 (288 MB/s hardware broadcast, 1 MB, 64 nodes): the destination commits a packet’s CRC-checked payload before it acks (2.24 ns/B: 0.82 µs for 320 B), so a multicast packet holds its tree for data + ack + the round trip to the group’s root and two VCs keep two packets in flight; validated by R1 (unicast 335 MB/s) and R32 (8% drop from 16 to 64 nodes)',
      'hw.multicastStartup': 'CALIBRATED: seed 002 R29, elan_hbcast ≤ 256 B on 64 nodes = 13 µs (hgsync + the data broadcast; seed 003’s 3.6 µs raw broadcast on another Elan3 cluster gives 1.9 µs)',
      'hw.multicastPacketGap': 'seed 002: 0, the DMA engine streams packets as for a unicast DMA; the broadcast rate follows from the circuits (two VCs, each packet held until its combined ack)',
      'hw.barrierAttempt': 'CALIBRATED: elan_hgsync = 5 µs at 16 nodes (seed 002 R9)',
      'classes.network.alpha': 'DERIVED: seed 002 R4 Elan3lib 0-byte latency 2.2 µs minus 4 hops × 35 ns (NIC to NIC: minus 2 × nic.busCrossing)',
      'classes.network.beta': 'seed 002 R3: 200 MB/s main memory to main memory (PCI-bound)',
      'host.oSend': 'DERIVED: seed 002 R6 MPI latency 5.5 µs = Elan3lib 2.2 µs + 3.3 µs of MPI overhead (tag matching); split 1.4 send / 1.9 receive ASSUMED',
      'host.oRecv': 'DERIVED (see host.oSend)',
      'host.gamma': 'ASSUMED: 3 ns per element (667 MHz Alpha)',
      'nic.oSend': 'ASSUMED: 0.5 µs Elan thread per message ("few µs" per hop, seed 002 E7)',
      'nic.oRecv': 'CALIBRATED: seed 002 R7, elan_gsync +2.5 µs per ×4 nodes (0-byte ready signals are event increments; any value in 0.1–0.2 µs gives +2.7 µs, the closest reachable)',
      'nic.startup': 'ASSUMED: 1 µs',
      'nic.completion': 'ASSUMED: 1 µs',
      'classes.node.alpha': 'ASSUMED: 1 µs',
    },
  },
  delta: {
    name: 'delta',
    description: 'Intel Touchstone DELTA: 16×32 mesh, cut-through routing, node-bandwidth-limited nodes (seed 004)',
    nodes: 512,
    coresPerNode: 1,
    network: {
      topology: 'mesh2d',
      width: 16,
      height: 32,
      linkBandwidth: 8 / us(1.54),
      hopLatency: ns(50),
      injectionBandwidth: 8 / us(1.54),
      nodeChannelShared: true,
      nodeChannelF: 'nominal',
    },
    classes: {
      node: { alpha: 0, beta: 0 },
      network: { alpha: 0, beta: us(1.54) / 8 },
    },
    host: { oSend: us(27), oRecv: us(27), gamma: { 'sum:float64': us(0.25), default: us(0.25) }, copyPerByte: ns(10) },
    sources: {
      nodes: 'seed 004: 16 × 32 mesh (orientation unspecified; 16 wide ASSUMED)',
      'network.topology': 'seed 004 F1: 2-D mesh, cut-through',
      'network.injectionBandwidth': 'seed 004 §7.2: β = 1.54 µs/double (5.2 MB/s; link speed halved in the test period)',
      'network.nodeChannelShared': 'seed 004 F2: all data in and out of the node processor share one link pair (nominal NBL, f(L) = L)',
      'network.linkBandwidth': 'seed 004 §4.1: every link carries 1/β (1.54 µs/double); the NBL node channel (f(L)) decides how far the L links a node uses at once overlap',
      'network.nodeChannelF': 'seed 004 §4.1 nominal NBL f(L) = L (recommended by the seed for unimplemented algorithms); fitted (§4.2) and testjig (Table 1) are selectable',
      'network.hopLatency': 'ASSUMED: 50 ns per hop (cut-through: latency nearly independent of distance)',
      'classes.network.beta': 'seed 004 §7.2: β = 1.54 µs per double',
      'host.oSend': "ASSUMED split: α = 54 µs (seed 004 §7.2) charged half at the sender, half at the receiver (network.alphaPer 'message-end', the default); network.alphaPer 'link-step' charges the whole α at each end in the node channel instead, as the seed's T(L) = L·α + f(L)·β·S (coll reproduce 004 uses it)",
      'host.oRecv': 'ASSUMED split (see host.oSend)',
      'host.gamma': 'seed 004 §7.2: c2 = 0.25 µs per element (2-vector combine)',
      'host.copyPerByte': 'ASSUMED',
    },
  },
  'myrinet-lanai9': {
    name: 'myrinet-lanai9',
    description: '16 quad-700 MHz Pentium III nodes, Myrinet LANai 9.1, GM-2.0.3 (seed 003 ch. 6)',
    nodes: 16,
    coresPerNode: 4,
    network: { topology: 'crossbar', linkBandwidth: MBps(250), hopLatency: ns(100) },
    classes: {
      node: { alpha: us(1), beta: 1 / GBps(0.5) },
      network: { alpha: us(4), beta: 1 / MBps(230) },
    },
    host: { oSend: us(8.7625), oRecv: us(8.7625), gamma: { default: ns(5) }, copyPerByte: ns(2) },
    nic: {
      oSend: us(1.515),
      oRecv: us(1.515),
      gamma: { default: ns(100) },
      copyPerByte: ns(8),
      startup: us(2),
      completion: us(2),
      busCrossing: us(0.9),
      packetRecv: LANAI9_PACKET_RECV,
      packetBytes: 4096,
    },
    sources: {
      nodes: 'seed 003 ch. 6 Fig. 6.4: 16-node quad-700 MHz cluster with LANai 9.1',
      'network.topology': 'ASSUMED: one Myrinet crossbar switch',
      'network.linkBandwidth': 'seed 003 §1.2.3: full-duplex 2+2 Gb/s per port, 250 MB/s per direction',
      'classes.network.alpha': 'ASSUMED: 4 µs wire + switch + GM latency',
      'classes.network.beta': 'ASSUMED',
      'host.oSend': 'CALIBRATED: host-based dissemination barrier = 3.38 × 25.72 = 86.9 µs at 16 nodes (seed 003 Fig. 6.4), i.e. 21.7 µs per round = α + 2o + hops; far above GM\'s "< 1 µs" host overhead: the MPI-level host barrier (polling, matching) is charged here',
      'host.oRecv': 'CALIBRATED (see host.oSend)',
      'nic.oSend': 'CALIBRATED: NIC-based barrier 25.72 µs at 16 nodes (seed 003 Fig. 6.4) with 4 µs of start-up + completion',
      'nic.oRecv': 'CALIBRATED (see nic.oSend)',
      'nic.startup': 'ASSUMED: 2 µs',
      'nic.completion': 'ASSUMED: 2 µs',
      'nic.busCrossing': 'ASSUMED: 0.9 µs per PCI crossing (64-bit/66 MHz PCI)',
      'nic.gamma': 'ASSUMED: 100 ns per element (133 MHz LANai, no FPU)',
      'nic.packetRecv':
        'CALIBRATED: MPI-level broadcast ≤ 512 B over 16 nodes, up to 1.78× (seed 003 §6.9); per data packet received through the regular GM path ' +
        '(receive token, ACK and send record of the per-child Go-back-N, DMA to the host, §6.4), which the barrier\'s static packet skips (§6.3)',
      'nic.packetBytes': 'seed 003 §6.7: "maximum packet size in GM is 4096 bytes"',
    },
  },
  'myrinet-lanaixp': {
    name: 'myrinet-lanaixp',
    description: '8 dual 2.4 GHz Xeon nodes, Myrinet LANai-XP, PCI-X (seed 003 ch. 6)',
    nodes: 8,
    coresPerNode: 2,
    network: { topology: 'crossbar', linkBandwidth: MBps(250), hopLatency: ns(100) },
    classes: {
      node: { alpha: us(0.5), beta: 1 / GBps(1) },
      network: { alpha: us(2.5), beta: 1 / MBps(240) },
    },
    host: { oSend: us(4.9), oRecv: us(4.9), gamma: { default: ns(1) }, copyPerByte: ns(0.5) },
    nic: {
      oSend: us(0.9),
      oRecv: us(0.9),
      gamma: { default: ns(60) },
      copyPerByte: ns(4),
      startup: us(1.97),
      completion: us(1.97),
      busCrossing: us(0.5),
    },
    sources: {
      nodes: 'seed 003 ch. 6 Fig. 6.5: 8-node 2.4 GHz Xeon cluster with LANai-XP',
      'network.topology': 'ASSUMED: one Myrinet crossbar switch',
      'network.linkBandwidth': 'ASSUMED: Myrinet-2000, 250 MB/s per direction',
      'classes.network.alpha': 'ASSUMED: 2.5 µs',
      'host.oRecv': 'CALIBRATED (see host.oSend)',
      'nic.oSend': 'CALIBRATED: NIC barrier model T_trig = 3.50 µs per step = α − 2·busCrossing + hops + 2o (seed 003 §6.6)',
      'nic.oRecv': 'CALIBRATED (see nic.oSend)',
      'nic.startup': 'CALIBRATED: T_init + T_adj − T_trig ≈ 3.9 µs split between start and completion (seed 003 §6.6)',
      'nic.completion': 'CALIBRATED (see nic.startup)',
      'nic.busCrossing': 'ASSUMED: 0.5 µs (PCI-X)',
      'host.oSend': 'CALIBRATED: host-based barrier = 2.64 × 14.20 = 37.5 µs at 8 nodes (seed 003 Fig. 6.5), 12.5 µs per round (MPI-level polling and matching charged here)',
    },
  },
  bluewaters: {
    name: 'bluewaters',
    description: 'Blue Waters-like Cray XE: 4096 nodes, 2 sockets, 16 processes per node, 3-D torus (seed 001)',
    nodes: 4096,
    coresPerNode: 16,
    socketsPerNode: 2,
    defaultPpn: 16,
    network: { topology: 'torus3d', dims: [16, 16, 16], linkBandwidth: GBps(9.4), hopLatency: ns(100), injectionBandwidth: GBps(6) },
    classes: {
      socket: { alpha: us(0.35), beta: 1 / GBps(6) },
      node: { alpha: us(0.6), beta: 1 / GBps(3.5) },
      network: { alpha: us(1.8), beta: 1 / GBps(3.5) },
    },
    host: { oSend: us(0.2), oRecv: us(0.2), gamma: { default: ns(1) }, copyPerByte: ns(0.2) },
    sources: {
      nodes: 'ASSUMED: 4096 nodes (65,536 processes at 16 ppn, the largest power of ppn in seed 001)',
      coresPerNode: 'seed 001: 16 processes per node',
      socketsPerNode: 'seed 001 F3 (intra-socket vs intra-node classes); 2 sockets ASSUMED',
      'network.topology': 'ASSUMED: Gemini 3-D torus (seed 001 does not model the topology)',
      'network.linkBandwidth': 'ASSUMED',
      'network.injectionBandwidth': 'ASSUMED: R_N = 6 GB/s (seed 001 Eq. 3 gives no value)',
      'classes.socket': 'ASSUMED: typical XE6 intra-socket values (seed 001 gives no numbers)',
      'classes.node': 'ASSUMED',
      'classes.network': 'ASSUMED: α = 1.8 µs, R_b = 3.5 GB/s',
      'host.*': 'ASSUMED',
    },
  },
  'simgrid-ft': {
    name: 'simgrid-ft',
    description: 'The 1024-host fat tree of the SimGrid anchor runs: 32-ary 2-tree, 12.5 GB/s links, 1 µs per link (CM02-like, no factors)',
    nodes: 1024,
    coresPerNode: 1,
    network: { topology: 'fattree', arity: 32, levels: 2, linkBandwidth: GBps(12.5), hopLatency: us(1) },
    classes: { node: { alpha: 0, beta: 0 }, network: { alpha: 0, beta: 1 / GBps(12.5) } },
    host: { oSend: 0, oRecv: 0, gamma: { default: 0 }, copyPerByte: 0 },
    sources: {
      '*': 'peers-simulators-models.md §4.1: FAT_TREE "2;32,32;1,32;1,1", link 12.5 GBps, latency 1 µs',
    },
  },
  loggopsim: {
    name: 'loggopsim',
    description: 'LogGOPSim default parameters on an ideal crossbar: L = 2.5 µs, o = 1.5 µs, G = 6 ns/B',
    nodes: 1 << 20,
    coresPerNode: 1,
    network: { topology: 'crossbar', linkBandwidth: 1 / ns(6), hopLatency: 0 },
    classes: { node: { alpha: 0, beta: 0 }, network: { alpha: ns(2500 - 6), beta: ns(6) } },
    host: { oSend: ns(1500), oRecv: ns(1500), gamma: { default: 0 }, copyPerByte: 0 },
    sources: {
      '*': 'peers-simulators-models.md §2.2: LogGOPSim defaults L=2500, o=1500, G=6 ns',
      'classes.network.alpha': 'DERIVED: L − G, so that α + s·G = L + (s−1)G as in LogGOPSim',
      'network.*': 'ASSUMED: ideal crossbar (LogGOPSim has no congestion by default)',
    },
  },
});

export function presetNames(): string[] {
  return Object.keys(PRESETS);
}

export function getPreset(name: string): MachineSpec {
  const m = PRESETS[name];
  if (!m) throw new ArgumentError(`unknown machine '${name}'`, `presets: ${presetNames().join(', ')}; or give a JSON file path`);
  return m;
}
