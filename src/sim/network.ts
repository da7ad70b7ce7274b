/**
 * Interconnect topologies for the simulator: link tables (latency and per-byte time
 * of every directed link) and routing between node ports.
 *
 * Every node has an injection link (node → network, id = node) and an ejection link
 * (network → node, id = nodes + node); a node-bandwidth-limited node (seed 004)
 * uses one shared channel for both. Between them:
 * - crossbar: nothing (a full crossbar, no internal contention);
 * - fattree: a k-ary n-tree with Quadrics routing (seed 002): up to the nearest
 *   common ancestor choosing the least-loaded up-link at each level (adaptive),
 *   then down deterministically by the destination's digits; `upLinks` < k gives a
 *   k:u oversubscribed tree;
 * - mesh2d: W×H mesh, dimension-order routing X then Y (seed 004, cut-through:
 *   only the per-hop latency grows with distance);
 * - torus3d: X×Y×Z torus, dimension order X, Y, Z, shorter way round.
 * Routes are computed when a message is injected (source routing); on the fat tree
 * each up-link is re-chosen when the message's head reaches its switch (`adapt`),
 * as the least-loaded (earliest free) of the switch's up-links at that moment.
 */
import { ArgumentError } from '../core/errors.js';
import { fatTreeLevels, type NetworkSpec } from './machine.js';

export interface Network {
  readonly kind: NetworkSpec['topology'];
  readonly nodes: number;
  readonly linkCount: number;
  /** s/B per link. */
  readonly linkBeta: Float64Array;
  /** s per link. */
  readonly linkLatency: Float64Array;
  /** Longest route in links. */
  readonly maxHops: number;
  /**
   * Write the links from node a to node b (a ≠ b) into out[off..]; returns how many.
   * `linkFree` (reserved-until time per link) guides adaptive choices.
   */
  route(a: number, b: number, out: Int32Array, off: number, linkFree: Float64Array): number;
  /** Number of links on the route from a to b (a ≠ b). */
  hops(a: number, b: number): number;
  describeLink(id: number): string;
  /** True when `adapt` must be called before each hop. */
  readonly adaptive: boolean;
  /**
   * Before the head crosses hop h of the route in out[off..off+nh) at time t: make
   * an adaptive choice for that hop (rewriting it and the hops after it).
   */
  adapt(out: Int32Array, off: number, h: number, nh: number, b: number, linkFree: Float64Array, t: number): void;
}

function baseArrays(spec: NetworkSpec, nodes: number, linkCount: number): { beta: Float64Array; lat: Float64Array } {
  const beta = new Float64Array(linkCount).fill(1 / spec.linkBandwidth);
  const lat = new Float64Array(linkCount).fill(spec.hopLatency);
  const inj = 1 / (spec.injectionBandwidth ?? spec.linkBandwidth);
  for (let i = 0; i < Math.min(linkCount, 2 * nodes); i++) beta[i] = inj;
  return { beta, lat };
}

function ejectId(spec: NetworkSpec, nodes: number, node: number): number {
  return spec.nodeChannelShared ? node : nodes + node;
}

class Crossbar implements Network {
  readonly kind = 'crossbar' as const;
  readonly linkCount: number;
  readonly linkBeta: Float64Array;
  readonly linkLatency: Float64Array;
  readonly maxHops = 2;
  readonly adaptive = false;
  adapt(): void {}
  constructor(
    private readonly spec: NetworkSpec,
    readonly nodes: number,
  ) {
    this.linkCount = 2 * nodes;
    const a = baseArrays(spec, nodes, this.linkCount);
    this.linkBeta = a.beta;
    this.linkLatency = a.lat;
  }
  route(a: number, b: number, out: Int32Array, off: number): number {
    out[off] = a;
    out[off + 1] = ejectId(this.spec, this.nodes, b);
    return 2;
  }
  hops(): number {
    return 2;
  }
  describeLink(id: number): string {
    return id < this.nodes ? `node ${id} → crossbar` : `crossbar → node ${id - this.nodes}`;
  }
}

/** k-ary n-tree. Switch (l, w): level l (0 = leaves), word w of n−1 base-k digits. */
export class FatTree implements Network {
  readonly kind = 'fattree' as const;
  readonly adaptive: boolean;
  readonly linkCount: number;
  readonly linkBeta: Float64Array;
  readonly linkLatency: Float64Array;
  readonly maxHops: number;
  readonly k: number;
  readonly n: number;
  readonly u: number;
  /** Switches per level, k^(n−1). */
  readonly perLevel: number;
  private readonly pow: Int32Array;
  private readonly upBase: number;
  private readonly downBase: number;

  constructor(
    private readonly spec: NetworkSpec,
    readonly nodes: number,
  ) {
    this.k = spec.arity ?? 4;
    this.n = spec.levels ?? fatTreeLevels(this.k, nodes);
    this.u = spec.upLinks ?? this.k;
    if (this.k ** this.n < nodes) throw new ArgumentError(`a ${this.k}-ary ${this.n}-tree cannot hold ${nodes} nodes`);
    this.perLevel = this.k ** (this.n - 1);
    this.pow = new Int32Array(this.n + 1);
    for (let i = 0; i <= this.n; i++) this.pow[i] = this.k ** i;
    this.upBase = 2 * nodes;
    const sw = (this.n - 1) * this.perLevel * this.k;
    this.downBase = this.upBase + sw;
    this.linkCount = this.downBase + sw;
    const a = baseArrays(spec, nodes, this.linkCount);
    this.linkBeta = a.beta;
    this.linkLatency = a.lat;
    this.maxHops = 2 * this.n;
    this.adaptive = this.u > 1 && this.n > 1;
  }

  /** Id of the up-link from switch (l, w) through port j (l < n−1). */
  upLink(l: number, w: number, j: number): number {
    return this.upBase + (l * this.perLevel + w) * this.k + j;
  }

  /** Id of the down-link into switch (l, w) from its parent reached through port j. */
  downLink(l: number, w: number, j: number): number {
    return this.downBase + (l * this.perLevel + w) * this.k + j;
  }

  /** Highest base-k digit where a and b differ (−1 if equal). */
  private topDigit(a: number, b: number): number {
    for (let d = this.n - 1; d >= 0; d--) {
      if (Math.floor(a / this.pow[d]) % this.k !== Math.floor(b / this.pow[d]) % this.k) return d;
    }
    return -1;
  }

  hops(a: number, b: number): number {
    return 2 * this.topDigit(a, b) + 2;
  }

  route(a: number, b: number, out: Int32Array, off: number): number {
    const L = this.topDigit(a, b);
    out[off] = a;
    return 1 + this.build(0, Math.floor(a / this.k), L, b, out, off + 1);
  }

  /**
   * Links from switch (l, w) on the way up to level L and then down to node b:
   * default up-ports (the destination's digits mod u, d-mod-k style), then the
   * deterministic descent and the ejection link. Returns how many were written.
   */
  private build(l0: number, w0: number, L: number, b: number, out: Int32Array, off: number): number {
    const k = this.k;
    const pow = this.pow;
    let w = w0;
    let c = off;
    for (let l = l0; l < L; l++) {
      const j = Math.floor(b / pow[l + 1]) % this.u;
      out[c++] = this.upLink(l, w, j);
      const digit = Math.floor(w / pow[l]) % k;
      w += (j - digit) * pow[l];
    }
    for (let l = L; l >= 1; l--) {
      const j = Math.floor(w / pow[l - 1]) % k;
      const want = Math.floor(b / pow[l]) % k;
      const lower = w + (want - j) * pow[l - 1];
      out[c++] = this.downLink(l - 1, lower, j);
      w = lower;
    }
    out[c++] = ejectId(this.spec, this.nodes, b);
    return c - off;
  }

  adapt(out: Int32Array, off: number, h: number, nh: number, b: number, linkFree: Float64Array, t: number): void {
    const L = (nh - 2) >> 1;
    if (h < 1 || h > L) return; // only up-links are adaptive
    const x = out[off + h] - this.upBase;
    const k = this.k;
    const s = Math.floor(x / k);
    const l = Math.floor(s / this.perLevel);
    const w = s % this.perLevel;
    const cur = x % k;
    // Least loaded: earliest free (idle links tie at t); ties keep the default order.
    const first = Math.floor(b / this.pow[l + 1]) % this.u;
    let best = -1;
    let bestFree = Infinity;
    for (let i = 0; i < this.u; i++) {
      const j = (first + i) % this.u;
      const f = linkFree[this.upLink(l, w, j)];
      const free = f > t ? f : t;
      if (free < bestFree) {
        bestFree = free;
        best = j;
      }
    }
    if (best === cur) return;
    out[off + h] = this.upLink(l, w, best);
    const digit = Math.floor(w / this.pow[l]) % k;
    this.build(l + 1, w + (best - digit) * this.pow[l], L, b, out, off + h + 1);
  }

  /**
   * The fixed up path from a node to the leftmost switch of level `level` above it
   * (default the top; up-port 0 at every level), used by the hardware multicast
   * (seed 002: multicasts climb a predetermined path to a fixed root switch).
   * Returns link ids, injection first.
   */
  pathToRoot(a: number, level = this.n - 1): number[] {
    const links = [a];
    let w = Math.floor(a / this.k);
    for (let l = 0; l < level; l++) {
      links.push(this.upLink(l, w, 0));
      const digit = Math.floor(w / this.pow[l]) % this.k;
      w -= digit * this.pow[l];
    }
    return links;
  }

  /**
   * Level of the multicast root switch for the contiguous group of nodes [0, N): the
   * top-leftmost switch of the smallest subtree holding the group (level 0 = a leaf
   * switch), so the multicast tree gets one level deeper each time the group outgrows
   * a subtree (seed 002 R32/R33: steps above 4 and 16 nodes).
   */
  groupRootLevel(N: number): number {
    let l = 0;
    while (l < this.n - 1 && this.pow[l + 1] < N) l++;
    return l;
  }

  ejectLink(node: number): number {
    return ejectId(this.spec, this.nodes, node);
  }

  describeLink(id: number): string {
    if (id < this.nodes) return `node ${id} → leaf switch`;
    if (id < this.upBase) return `leaf switch → node ${id - this.nodes}`;
    const down = id >= this.downBase;
    const x = id - (down ? this.downBase : this.upBase);
    const j = x % this.k;
    const s = Math.floor(x / this.k);
    const l = Math.floor(s / this.perLevel);
    const w = s % this.perLevel;
    return down ? `switch (${l + 1}) → switch (${l},${w}) [port ${j}]` : `switch (${l},${w}) → up port ${j}`;
  }
}

class Mesh2D implements Network {
  readonly kind = 'mesh2d' as const;
  readonly adaptive = false;
  adapt(): void {}
  readonly linkCount: number;
  readonly linkBeta: Float64Array;
  readonly linkLatency: Float64Array;
  readonly maxHops: number;
  readonly width: number;
  readonly height: number;
  constructor(
    private readonly spec: NetworkSpec,
    readonly nodes: number,
  ) {
    this.width = spec.width ?? 1;
    this.height = spec.height ?? 1;
    const positions = this.width * this.height;
    this.linkCount = 2 * nodes + 4 * positions;
    const a = baseArrays(spec, nodes, this.linkCount);
    this.linkBeta = a.beta;
    this.linkLatency = a.lat;
    this.maxHops = 2 + this.width + this.height - 2;
  }
  hops(a: number, b: number): number {
    const W = this.width;
    return 2 + Math.abs((a % W) - (b % W)) + Math.abs(Math.floor(a / W) - Math.floor(b / W));
  }
  route(a: number, b: number, out: Int32Array, off: number): number {
    const W = this.width;
    const base = 2 * this.nodes;
    let c = off;
    out[c++] = a;
    let x = a % W;
    let y = Math.floor(a / W);
    const tx = b % W;
    const ty = Math.floor(b / W);
    while (x !== tx) {
      const dir = tx > x ? 0 : 1;
      out[c++] = base + (y * W + x) * 4 + dir;
      x += dir === 0 ? 1 : -1;
    }
    while (y !== ty) {
      const dir = ty > y ? 2 : 3;
      out[c++] = base + (y * W + x) * 4 + dir;
      y += dir === 2 ? 1 : -1;
    }
    out[c++] = ejectId(this.spec, this.nodes, b);
    return c - off;
  }
  describeLink(id: number): string {
    if (id < 2 * this.nodes) return id < this.nodes ? `node ${id} injection` : `node ${id - this.nodes} ejection`;
    const x = id - 2 * this.nodes;
    const pos = Math.floor(x / 4);
    const d = ['+x', '-x', '+y', '-y'][x % 4];
    return `(${pos % this.width},${Math.floor(pos / this.width)}) ${d}`;
  }
}

class Torus3D implements Network {
  readonly kind = 'torus3d' as const;
  readonly adaptive = false;
  adapt(): void {}
  readonly linkCount: number;
  readonly linkBeta: Float64Array;
  readonly linkLatency: Float64Array;
  readonly maxHops: number;
  private readonly d: readonly [number, number, number];
  constructor(
    private readonly spec: NetworkSpec,
    readonly nodes: number,
  ) {
    this.d = spec.dims ?? [1, 1, 1];
    const positions = this.d[0] * this.d[1] * this.d[2];
    this.linkCount = 2 * nodes + 6 * positions;
    const a = baseArrays(spec, nodes, this.linkCount);
    this.linkBeta = a.beta;
    this.linkLatency = a.lat;
    this.maxHops = 2 + Math.floor(this.d[0] / 2) + Math.floor(this.d[1] / 2) + Math.floor(this.d[2] / 2);
  }
  private coord(a: number, i: number): number {
    const [X, Y] = this.d;
    return i === 0 ? a % X : i === 1 ? Math.floor(a / X) % Y : Math.floor(a / (X * Y));
  }
  hops(a: number, b: number): number {
    let h = 2;
    for (let i = 0; i < 3; i++) {
      const n = this.d[i];
      const dist = (this.coord(b, i) - this.coord(a, i) + n) % n;
      h += Math.min(dist, n - dist);
    }
    return h;
  }
  route(a: number, b: number, out: Int32Array, off: number): number {
    const [X, Y] = this.d;
    const base = 2 * this.nodes;
    let c = off;
    out[c++] = a;
    const cur = [this.coord(a, 0), this.coord(a, 1), this.coord(a, 2)];
    for (let i = 0; i < 3; i++) {
      const n = this.d[i];
      const target = this.coord(b, i);
      const fwd = (target - cur[i] + n) % n;
      const plus = fwd <= n - fwd;
      while (cur[i] !== target) {
        const pos = cur[0] + X * (cur[1] + Y * cur[2]);
        out[c++] = base + pos * 6 + 2 * i + (plus ? 0 : 1);
        cur[i] = (cur[i] + (plus ? 1 : n - 1)) % n;
      }
    }
    out[c++] = ejectId(this.spec, this.nodes, b);
    return c - off;
  }
  describeLink(id: number): string {
    if (id < 2 * this.nodes) return id < this.nodes ? `node ${id} injection` : `node ${id - this.nodes} ejection`;
    const x = id - 2 * this.nodes;
    return `torus position ${Math.floor(x / 6)} ${['+x', '-x', '+y', '-y', '+z', '-z'][x % 6]}`;
  }
}

/** Build the network of a machine for its first `nodes` node positions. */
export function buildNetwork(spec: NetworkSpec, nodes: number): Network {
  switch (spec.topology) {
    case 'crossbar':
      return new Crossbar(spec, nodes);
    case 'fattree':
      return new FatTree(spec, nodes);
    case 'mesh2d':
      return new Mesh2D(spec, nodes);
    case 'torus3d':
      return new Torus3D(spec, nodes);
  }
}
