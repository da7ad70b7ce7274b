/**
 * Statistics of a schedule under a rank → node map: messages and bytes per rank
 * and per round, inter-node traffic (max inter-node messages sent by one process,
 * concurrent inter-node injectors per node: the max-rate model's "active ppn"),
 * endpoint messages per node per round (seed 004's active links L) and, on a 2-D
 * mesh placement, per-round link loads under dimension-order (X then Y) routing with
 * a link-conflict check.
 */
import { flatTopology, type Topology } from './topology.js';
import type { Schedule } from './types.js';

export interface RankStats {
  readonly rank: number;
  readonly node: number;
  readonly steps: number;
  readonly messagesSent: number;
  readonly bytesSent: number;
  readonly messagesReceived: number;
  readonly bytesReceived: number;
  readonly interNodeMessagesSent: number;
  readonly interNodeBytesSent: number;
  /** Element combinations performed: Σ over reduce steps of (operands − 1) × count. */
  readonly reduceElements: number;
  readonly copyElements: number;
}

export interface RoundStats {
  readonly round: number;
  readonly messages: number;
  readonly bytes: number;
  readonly interNodeMessages: number;
  /** Largest number of ranks of one node sending inter-node messages in this round. */
  readonly maxInjectorsPerNode: number;
  /** Largest number of messages one node sends plus receives in this round (seed 004's L). */
  readonly maxActiveLinksPerNode: number;
}

export interface LinkConflict {
  readonly round: number;
  /** Directed link, e.g. "(1,0)->(2,0)". */
  readonly link: string;
  /** Messages on that link in that round, as "src->dst". */
  readonly messages: readonly string[];
}

export interface MeshStats {
  readonly width: number;
  readonly height: number;
  /** Most messages on one directed link in one round. */
  readonly maxLinkLoad: number;
  /** Rounds × links that carry more than one message. */
  readonly conflicts: readonly LinkConflict[];
  /** Distinct directed links used, per round. */
  readonly linksPerRound: readonly number[];
  /** Longest route in hops. */
  readonly maxHops: number;
}

export interface ScheduleStats {
  readonly ranks: number;
  readonly nodes: number;
  readonly rounds: number;
  readonly totalMessages: number;
  readonly totalBytes: number;
  readonly interNodeMessages: number;
  readonly interNodeBytes: number;
  readonly maxMessagesSentPerRank: number;
  readonly maxInterNodeMessagesPerRank: number;
  readonly maxConcurrentInjectorsPerNode: number;
  readonly maxActiveLinksPerNode: number;
  readonly perRank: readonly RankStats[];
  readonly perRound: readonly RoundStats[];
  readonly mesh?: MeshStats;
}

export interface StatsOptions {
  topology?: Topology;
  /** Bytes per element (default 8). */
  elementSize?: number;
  /** Keep at most this many conflicts in the report (default 32). */
  maxConflicts?: number;
}

export function computeStats(schedule: Schedule, o: StatsOptions = {}): ScheduleStats {
  const P = schedule.length;
  const topo = o.topology ?? flatTopology(P);
  const es = o.elementSize ?? 8;
  const rounds = schedule.reduce((m, s) => Math.max(m, s.rounds), 0);
  const perRank: RankStats[] = [];
  const rMsgs = new Array<number>(rounds).fill(0);
  const rBytes = new Array<number>(rounds).fill(0);
  const rInter = new Array<number>(rounds).fill(0);
  // (round, node) -> set of injecting ranks; (round, node) -> endpoint messages.
  const injectors = new Map<number, Set<number>>();
  const endpoints = new Map<number, number>();
  const key = (round: number, node: number): number => round * topo.nodeCount + node;
  const recvd = new Array<number>(P).fill(0);
  const recvdBytes = new Array<number>(P).fill(0);
  for (const s of schedule) {
    let sent = 0;
    let bytes = 0;
    let inter = 0;
    let interBytes = 0;
    let red = 0;
    let cp = 0;
    const node = topo.nodeOf(s.rank);
    for (const st of s.steps) {
      if (st.kind === 'send') {
        const b = st.region.count * es;
        sent++;
        bytes += b;
        rMsgs[st.round]++;
        rBytes[st.round] += b;
        const peerNode = topo.nodeOf(st.peer);
        endpoints.set(key(st.round, node), (endpoints.get(key(st.round, node)) ?? 0) + 1);
        endpoints.set(key(st.round, peerNode), (endpoints.get(key(st.round, peerNode)) ?? 0) + 1);
        recvd[st.peer]++;
        recvdBytes[st.peer] += b;
        if (peerNode !== node) {
          inter++;
          interBytes += b;
          rInter[st.round]++;
          let set = injectors.get(key(st.round, node));
          if (!set) injectors.set(key(st.round, node), (set = new Set()));
          set.add(s.rank);
        }
      } else if (st.kind === 'reduce') {
        red += (st.inputs.length - 1) * st.dst.count;
      } else if (st.kind === 'copy') {
        cp += st.dst.count;
      }
    }
    perRank.push({
      rank: s.rank,
      node,
      steps: s.steps.length,
      messagesSent: sent,
      bytesSent: bytes,
      messagesReceived: 0,
      bytesReceived: 0,
      interNodeMessagesSent: inter,
      interNodeBytesSent: interBytes,
      reduceElements: red,
      copyElements: cp,
    });
  }
  const ranks = perRank.map((r, i) => ({ ...r, messagesReceived: recvd[i], bytesReceived: recvdBytes[i] }));
  const perRound: RoundStats[] = [];
  for (let t = 0; t < rounds; t++) {
    let inj = 0;
    let act = 0;
    for (let n = 0; n < topo.nodeCount; n++) {
      inj = Math.max(inj, injectors.get(key(t, n))?.size ?? 0);
      act = Math.max(act, endpoints.get(key(t, n)) ?? 0);
    }
    perRound.push({
      round: t,
      messages: rMsgs[t],
      bytes: rBytes[t],
      interNodeMessages: rInter[t],
      maxInjectorsPerNode: inj,
      maxActiveLinksPerNode: act,
    });
  }
  const max = (f: (r: RankStats) => number): number => ranks.reduce((m, r) => Math.max(m, f(r)), 0);
  return {
    ranks: P,
    nodes: topo.nodeCount,
    rounds,
    totalMessages: ranks.reduce((s, r) => s + r.messagesSent, 0),
    totalBytes: ranks.reduce((s, r) => s + r.bytesSent, 0),
    interNodeMessages: ranks.reduce((s, r) => s + r.interNodeMessagesSent, 0),
    interNodeBytes: ranks.reduce((s, r) => s + r.interNodeBytesSent, 0),
    maxMessagesSentPerRank: max((r) => r.messagesSent),
    maxInterNodeMessagesPerRank: max((r) => r.interNodeMessagesSent),
    maxConcurrentInjectorsPerNode: perRound.reduce((m, r) => Math.max(m, r.maxInjectorsPerNode), 0),
    maxActiveLinksPerNode: perRound.reduce((m, r) => Math.max(m, r.maxActiveLinksPerNode), 0),
    perRank: ranks,
    perRound,
    mesh: topo.mesh ? meshStats(schedule, topo, rounds, o.maxConflicts ?? 32) : undefined,
  };
}

/** Directed links a message crosses on the mesh under X-then-Y dimension-order routing. */
export function meshRoute(
  from: { x: number; y: number },
  to: { x: number; y: number },
): { x: number; y: number; nx: number; ny: number }[] {
  const hops: { x: number; y: number; nx: number; ny: number }[] = [];
  let { x, y } = from;
  while (x !== to.x) {
    const nx = x + Math.sign(to.x - x);
    hops.push({ x, y, nx, ny: y });
    x = nx;
  }
  while (y !== to.y) {
    const ny = y + Math.sign(to.y - y);
    hops.push({ x, y, nx: x, ny });
    y = ny;
  }
  return hops;
}

function meshStats(schedule: Schedule, topo: Topology, rounds: number, keep: number): MeshStats {
  const mesh = topo.mesh as NonNullable<Topology['mesh']>;
  const loads: Map<string, string[]>[] = Array.from({ length: rounds }, () => new Map());
  let maxHops = 0;
  for (const s of schedule) {
    for (const st of s.steps) {
      if (st.kind !== 'send') continue;
      const route = meshRoute(mesh.coordOf(s.rank), mesh.coordOf(st.peer));
      maxHops = Math.max(maxHops, route.length);
      for (const h of route) {
        const link = `(${h.x},${h.y})->(${h.nx},${h.ny})`;
        let l = loads[st.round].get(link);
        if (!l) loads[st.round].set(link, (l = []));
        l.push(`${s.rank}->${st.peer}`);
      }
    }
  }
  const conflicts: LinkConflict[] = [];
  let maxLinkLoad = 0;
  loads.forEach((m, round) => {
    for (const [link, msgs] of m) {
      maxLinkLoad = Math.max(maxLinkLoad, msgs.length);
      if (msgs.length > 1 && conflicts.length < keep) conflicts.push({ round, link, messages: msgs });
    }
  });
  return {
    width: mesh.width,
    height: mesh.height,
    maxLinkLoad,
    conflicts,
    linksPerRound: loads.map((m) => m.size),
    maxHops,
  };
}
