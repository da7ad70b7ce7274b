/**
 * NIC-style protocols in the engine (seed 003 ch. 6), for the inter-node part of
 * offloaded calls that name them: `{ mode: 'offload', algorithm: 'nic:…' }`.
 *
 *   barrier    nic:dissemination, nic:pairwise_exchange   one send record and bit vector per
 *              barrier, receiver-driven NACK retransmission (protocols/nic_barrier.ts)
 *   bcast      nic:<tree>  e.g. nic:binomial, nic:knomial, nic:linear (multisend from the
 *              root), nic:chain — forwarding in the engines, per-child Go-back-N
 *              (protocols/tree_broadcast.ts); the tree is the catalogue's bcast schedule
 *   allgather  nic:recursive_doubling (power-of-two node counts), nic:concurrent_bcast —
 *              two rotating channels (protocols/allgather_rd.ts, allgather_cb.ts)
 *
 * Unlike the catalogue's schedules, which assume a reliable transport, these survive
 * lost packets: engines exchange them as datagrams (one frame per packet, p2p messages
 * between engine addresses) and COLL_ENGINE_LOSS=p drops each frame with probability p
 * (seeded) to exercise the retransmission paths. Timers run on the engine's clock (µs).
 * A broadcast forwards packets as they arrive, before the node's ranks have posted
 * their call (early data is kept until they do). Parameters: `timeout` (barrier and
 * allgather NACK timer, µs), `rto` (broadcast retransmission timeout, µs), `mtu`
 * (broadcast packet payload, bytes).
 */
import { ArgumentError, RestrictionError, UnknownAlgorithmError } from '../../core/errors.js';
import { listAlgorithms } from '../../algorithms/registry.js';
import type { Params } from '../../schedule/context.js';
import type { CollectiveKind } from '../../schedule/types.js';
import type { Task } from '../../exec/task.js';
import { BARRIER_ALGORITHMS, type BarrierAlgorithm } from '../protocols/barrier_pattern.js';
import { barrierCodec } from '../protocols/barrier_packets.js';
import { NicBarrier } from '../protocols/nic_barrier.js';
import { broadcastTree } from '../protocols/bcast_tree.js';
import { bcastCodec } from '../protocols/bcast_packets.js';
import { TreeBroadcast } from '../protocols/tree_broadcast.js';
import { allgatherCodec } from '../protocols/allgather_packets.js';
import { RecursiveDoublingAllgather } from '../protocols/allgather_rd.js';
import { ConcurrentBcastAllgather } from '../protocols/allgather_cb.js';
import type { NicAllgather } from '../protocols/allgather_node.js';
import { FrameMux } from '../protocols/frame_mux.js';
import type { ProtocolEnv } from '../protocols/packet_network.js';

export const NIC_PREFIX = 'nic:';

export interface NicChoice {
  readonly kind: 'barrier' | 'bcast' | 'allgather';
  /** The protocol's algorithm (barrier pattern, bcast tree, allgather scheme). */
  readonly name: string;
  readonly timeoutUs: number;
  readonly rtoUs: number;
  readonly mtu: number;
}

const DEFAULTS = { timeout: 2000, rto: 2000, mtu: 16384 };

export function isNicAlgorithm(name: string | undefined): name is string {
  return name !== undefined && name.startsWith(NIC_PREFIX);
}

/** The NIC protocols for a collective (names with the nic: prefix). */
export function nicAlgorithms(kind: CollectiveKind): string[] {
  const names =
    kind === 'barrier'
      ? [...BARRIER_ALGORITHMS]
      : kind === 'bcast'
        ? listAlgorithms('bcast')
            // Trees over the engines, which have no node topology: node-aware schedules (multicast) would be flat.
            .filter((a) => a.topology === undefined)
            .map((a) => a.name)
            .filter((n) => isTreeBcast(n))
        : kind === 'allgather'
          ? ['recursive_doubling', 'concurrent_bcast']
          : [];
  return names.map((n) => NIC_PREFIX + n);
}

function isTreeBcast(name: string): boolean {
  try {
    broadcastTree({ algorithm: name, size: 5, root: 0 });
    return true;
  } catch {
    return false;
  }
}

/** Validate a nic:* algorithm for a call over `nodes` nodes; throws a typed error. */
export function nicChoice(kind: CollectiveKind, algorithm: string, params: Params | undefined, nodes: number): NicChoice {
  const name = algorithm.slice(NIC_PREFIX.length);
  const known = nicAlgorithms(kind);
  if (!known.includes(algorithm)) {
    throw new UnknownAlgorithmError(algorithm, kind, known.length > 0 ? known : ['(none: the engine has NIC protocols for barrier, bcast and allgather)']);
  }
  if (name === 'recursive_doubling' && (nodes & (nodes - 1)) !== 0) {
    throw new RestrictionError(`allgather/${algorithm}`, 'a power-of-two number of nodes', `the communicator spans ${nodes} nodes`, 'use nic:concurrent_bcast');
  }
  const p = params ?? {};
  const num = (key: 'timeout' | 'rto' | 'mtu'): number => {
    const v = p[key];
    if (v === undefined) return DEFAULTS[key];
    if (typeof v !== 'number' || !(v > 0) || (key === 'mtu' && !Number.isInteger(v))) throw new ArgumentError(`${algorithm} parameter ${key} must be a positive number, got ${String(v)}`);
    return v;
  };
  for (const key of Object.keys(p)) {
    if (key !== 'timeout' && key !== 'rto' && key !== 'mtu') throw new ArgumentError(`${algorithm} has no parameter '${key}'`, 'parameters: timeout (µs), rto (µs), mtu (bytes)');
  }
  return { kind: kind as NicChoice['kind'], name, timeoutUs: num('timeout'), rtoUs: num('rto'), mtu: num('mtu') };
}

/** What the engine gives a communicator's NIC port: a frame transport, a clock and timers. */
export type FrameEnv = ProtocolEnv<Uint8Array>;

interface Waiter {
  output: Uint8Array;
  finish(error?: Error): void;
}

/**
 * One communicator's NIC protocol instances at one engine (rank = node index), behind
 * one FrameMux. Channels are numbered in order of first use, which is the same on
 * every engine (every node makes the same calls in the same order); packets of an
 * instance that does not exist yet are dropped and recovered by retransmission.
 */
export class NicPort {
  private readonly mux: FrameMux;
  private readonly channels = new Map<string, number>();
  private barrier: NicBarrierQueue | undefined;
  private readonly bcasts = new Map<string, { p: TreeBroadcast; waiting: Waiter[]; arrived: Uint8Array[] }>();
  private readonly allgathers = new Map<string, { p: NicAllgather; waiting: Waiter[] }>();

  constructor(private readonly env: FrameEnv) {
    this.mux = new FrameMux(env);
  }

  onFrame(fromNode: number, frame: Uint8Array): void {
    this.mux.onPacket(fromNode, frame);
  }

  private channel(key: string): number {
    let c = this.channels.get(key);
    if (c === undefined) {
      c = this.channels.size + 1;
      this.channels.set(key, c);
    }
    return c;
  }

  /** Open every instance a call of this shape needs (so early packets have a home). */
  private barrierOf(c: NicChoice): NicBarrierQueue {
    this.barrier ??= new NicBarrierQueue((onComplete) =>
      this.mux.open(this.channel(`barrier:${c.name}`), barrierCodec, (env) => new NicBarrier(env, { algorithm: c.name as BarrierAlgorithm, timeout: c.timeoutUs, onComplete })),
    );
    return this.barrier;
  }

  private bcastOf(c: NicChoice, rootNode: number): { p: TreeBroadcast; waiting: Waiter[]; arrived: Uint8Array[] } {
    const key = `bcast:${c.name}:${rootNode}:${c.mtu}:${c.rtoUs}`;
    let b = this.bcasts.get(key);
    if (!b) {
      const waiting: Waiter[] = [];
      const arrived: Uint8Array[] = [];
      const tree = broadcastTree({ algorithm: c.name, size: this.env.size, root: rootNode });
      const p = this.mux.open(this.channel(key), bcastCodec, (env) =>
        new TreeBroadcast(env, {
          group: rootNode,
          tree,
          mtu: c.mtu,
          rto: c.rtoUs,
          onMessage: (_msg, data) => {
            const w = waiting.shift();
            if (w) deliver(w, data);
            else arrived.push(data.slice());
          },
        }),
      );
      b = { p, waiting, arrived };
      this.bcasts.set(key, b);
    }
    return b;
  }

  private allgatherOf(c: NicChoice, blockBytes: number): { p: NicAllgather; waiting: Waiter[] } {
    const key = `allgather:${c.name}:${blockBytes}:${c.timeoutUs}`;
    let a = this.allgathers.get(key);
    if (!a) {
      const waiting: Waiter[] = [];
      const o = {
        blockBytes,
        timeout: c.timeoutUs,
        onComplete: (_op: number, result: Uint8Array) => {
          const w = waiting.shift();
          if (w) deliver(w, result);
        },
      };
      const p = this.mux.open(this.channel(key), allgatherCodec, (env) => (c.name === 'recursive_doubling' ? new RecursiveDoublingAllgather(env, o) : new ConcurrentBcastAllgather(env, o)));
      a = { p, waiting };
      this.allgathers.set(key, a);
    }
    return a;
  }

  /**
   * The inter-node step of one call as a task: barrier (no data), bcast (`output`
   * holds the root node's data, or receives it), allgather (`input` is the node's
   * padded block, `output` receives every node's).
   */
  task(c: NicChoice, rootNode: number, input: Uint8Array, output: Uint8Array): Task {
    const t = new ProtocolTask();
    const w: Waiter = { output, finish: (e) => t.finish(e) };
    t.starter = () => {
      switch (c.kind) {
        case 'barrier': {
          // The protocol runs one barrier at a time per node (its records assume it);
          // barriers posted while one is in progress wait their turn, in call order.
          this.barrierOf(c).post(w);
          return;
        }
        case 'bcast': {
          const b = this.bcastOf(c, rootNode);
          if (this.env.rank === rootNode) {
            b.p.broadcast(output.slice()); // the protocol keeps its own copy for retransmission
            w.finish();
            return;
          }
          const early = b.arrived.shift();
          if (early) deliver(w, early);
          else b.waiting.push(w);
          return;
        }
        case 'allgather': {
          const a = this.allgatherOf(c, input.byteLength);
          a.waiting.push(w);
          a.p.post(input);
          return;
        }
      }
    };
    return t;
  }
}

/**
 * A node's NIC barrier and the calls waiting for it. The protocol runs one barrier at
 * a time per node (its records assume it), so barriers posted while one is in
 * progress (outstanding nonblocking calls) are entered one after another, in order.
 */
class NicBarrierQueue {
  private readonly p: NicBarrier;
  private readonly waiting: Waiter[] = [];
  /** A barrier has been entered and has not completed. */
  private active = false;
  /** Barriers posted while one was active. */
  private backlog = 0;

  constructor(open: (onComplete: () => void) => NicBarrier) {
    this.p = open(() => this.completed());
  }

  post(w: Waiter): void {
    this.waiting.push(w);
    if (this.active) this.backlog++;
    else this.enter();
  }

  private enter(): void {
    this.active = true; // before enter(): it completes synchronously when nothing is awaited
    this.p.enter();
  }

  private completed(): void {
    this.active = false;
    this.waiting.shift()?.finish();
    if (this.backlog > 0) {
      this.backlog--;
      this.enter();
    }
  }
}

function deliver(w: Waiter, data: Uint8Array): void {
  if (data.byteLength !== w.output.byteLength) {
    w.finish(new ArgumentError(`NIC protocol delivered ${data.byteLength} bytes where this node expects ${w.output.byteLength}: the nodes disagree on the call's count`));
    return;
  }
  w.output.set(data);
  w.finish();
}

class ProtocolTask implements Task {
  done = false;
  error: Error | undefined = undefined;
  starter: (() => void) | undefined;
  start(): void {
    this.starter?.();
  }
  advance(): void {}
  waitingFor(): number[] {
    return [];
  }
  finish(e?: Error): void {
    if (this.done) return;
    this.error = e;
    this.done = true;
  }
}
