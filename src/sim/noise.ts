/**
 * OS noise on host CPUs (detour injection, as in LogGOPSim and SimGrid availability
 * profiles): a CPU interval of d seconds of work starting at t is lengthened by
 * every detour it overlaps, and one that starts inside a detour waits for its end.
 *
 * Components: periodic detours (period T, duration D: kernel ticks, daemons) and
 * random detours (a renewal process: gaps exponential with the given mean interval,
 * durations fixed, exponential or Pareto). Independent noise gives every process its
 * own phase / random stream; co-scheduled noise gives all processes the same
 * detours (gang-scheduled daemons). NIC processors are not perturbed (seed 000:
 * NIC-based collectives are exposed to host noise only while the host starts them).
 * Arrival skew (different start times per rank) is drawn here too.
 */
import { ArgumentError } from '../core/errors.js';
import { mixSeed, nextUniform, Rng } from '../core/random.js';
import { parseQuantity } from './machine.js';

export interface PeriodicNoise {
  readonly kind: 'periodic';
  /** s between detour starts. */
  readonly period: number;
  /** s per detour (< period). */
  readonly duration: number;
}

export interface RandomNoise {
  readonly kind: 'random';
  /** s: mean gap between the end of one detour and the start of the next. */
  readonly meanInterval: number;
  /** s: detour duration (its mean for exponential; its minimum for Pareto). */
  readonly duration: number;
  readonly distribution?: 'fixed' | 'exponential' | 'pareto';
  /** Pareto shape (> 1; default 1.5). */
  readonly shape?: number;
}

export type NoiseComponent = PeriodicNoise | RandomNoise;

export interface NoiseSpec {
  readonly components: readonly NoiseComponent[];
  /** Same detours on every process (default false: independent). */
  readonly coScheduled?: boolean;
  /**
   * OS daemons run on idle cores when there are any (seed 000 §4: interference
   * appears when all CPUs of a node run application processes). When set, a
   * host-mode process sees detours only on nodes whose cores are all busy (ppn ≥
   * cores); a NIC-mode process sleeps on its completion event while the NIC works,
   * so it sees none (its few µs of initiation are neglected: an assumption).
   */
  readonly absorbedByIdleCores?: boolean;
  /**
   * With absorbedByIdleCores: NIC-mode processes still see detours during their own
   * host work (start-up and completion), the window seed 000 names as the NIC-based
   * reductions' only exposure (default false: neglected).
   */
  readonly nicWindowExposed?: boolean;
}

export interface SkewSpec {
  readonly kind: 'uniform' | 'exponential' | 'normal' | 'fixed';
  /** s: the upper bound (uniform), mean (exponential), standard deviation (normal, truncated at 0) or the offset of rank i·value/P (fixed ramp). */
  readonly value: number;
}

/**
 * Named noise profiles. 'seed000-alc' is CALIBRATED on seed 000 Table 5.1 (900 ALC
 * nodes × 2 processes, 4-nomial float64 sum, top 1% dropped): host-based mean
 * 89.30 µs, σ 65.26 µs; the fit gives 88.8 ± 66.8 µs (scripts/sim-calibrate-noise.ts,
 * 400 runs). NIC-based runs are shielded (σ 0; published 0.29 µs).
 */
export const NOISE_PROFILES: Readonly<Record<string, NoiseSpec>> = Object.freeze({
  'seed000-alc': {
    components: [{ kind: 'random', meanInterval: 0.4, duration: 200e-6, distribution: 'exponential' }],
    absorbedByIdleCores: true,
  },
});

/**
 * Parse a profile name or "periodic:1ms/25us+random:10ms/200us:exp" (see `coll sim
 * --help`); a "+idle" component sets absorbedByIdleCores.
 */
export function parseNoise(text: string, coScheduled = false): NoiseSpec {
  const profile = NOISE_PROFILES[text];
  if (profile) return { ...profile, coScheduled: coScheduled || profile.coScheduled };
  const components: NoiseComponent[] = [];
  let absorbedByIdleCores = false;
  for (const part of text.split('+')) {
    if (part === 'idle') {
      absorbedByIdleCores = true;
      continue;
    }
    const [kind, times, dist] = part.split(':');
    const [a, b] = (times ?? '').split('/').map(parseQuantity);
    if (!(a > 0) || !(b > 0)) {
      throw new ArgumentError(
        `--noise component '${part}' needs <kind>:<interval>/<duration>, e.g. periodic:1ms/25us`,
        `or a profile: ${Object.keys(NOISE_PROFILES).join(', ')}`,
      );
    }
    if (kind === 'periodic') {
      if (b >= a) throw new ArgumentError(`--noise '${part}': the detour (${b}s) must be shorter than the period (${a}s)`);
      components.push({ kind: 'periodic', period: a, duration: b });
    } else if (kind === 'random') {
      const distribution = dist === undefined || dist === 'fixed' ? 'fixed' : dist === 'exp' || dist === 'exponential' ? 'exponential' : dist === 'pareto' ? 'pareto' : undefined;
      if (!distribution) throw new ArgumentError(`--noise '${part}': distribution must be fixed, exp or pareto`);
      components.push({ kind: 'random', meanInterval: a, duration: b, distribution });
    } else {
      throw new ArgumentError(`--noise component '${part}': kind must be periodic or random`);
    }
  }
  return { components, coScheduled, absorbedByIdleCores };
}

/** Parse "uniform:10us", "exponential:5us", "normal:2us", "fixed:10us". */
export function parseSkew(text: string): SkewSpec {
  const [kind, v] = text.split(':');
  const value = parseQuantity(v);
  if (!['uniform', 'exponential', 'normal', 'fixed'].includes(kind) || !(value >= 0)) {
    throw new ArgumentError(`--skew needs uniform|exponential|normal|fixed:<time>, got '${text}'`);
  }
  return { kind: kind as SkewSpec['kind'], value };
}

export function validateNoise(n: NoiseSpec): void {
  for (const c of n.components) {
    if (c.kind === 'periodic') {
      if (!(c.period > 0) || !(c.duration > 0) || c.duration >= c.period) {
        throw new ArgumentError(`periodic noise needs 0 < duration < period, got period ${c.period}, duration ${c.duration}`);
      }
    } else if (!(c.meanInterval > 0) || !(c.duration > 0) || (c.shape !== undefined && !(c.shape > 1))) {
      throw new ArgumentError(`random noise needs meanInterval > 0, duration > 0 and Pareto shape > 1`);
    }
  }
}

/** Start offsets of the P ranks for one run. */
export function drawSkew(spec: SkewSpec | undefined, P: number, seed: number): Float64Array | undefined {
  if (!spec || spec.value === 0) return undefined;
  const out = new Float64Array(P);
  const rng = new Rng(seed, 0x5e3);
  for (let r = 0; r < P; r++) {
    switch (spec.kind) {
      case 'uniform':
        out[r] = rng.next() * spec.value;
        break;
      case 'exponential':
        out[r] = rng.exp(spec.value);
        break;
      case 'normal':
        out[r] = Math.abs(rng.normal() * spec.value);
        break;
      case 'fixed':
        out[r] = (r * spec.value) / P;
        break;
    }
  }
  return out;
}

/** Per-run noise state: answers "when does this CPU work end". */
export class NoiseModel {
  private readonly periodic: PeriodicNoise[] = [];
  private readonly random: RandomNoise[] = [];
  /** Per component: phase per process (periodic) — one shared when co-scheduled. */
  private readonly phase: Float64Array[] = [];
  /** Random, independent: per component per process next detour [start, end) and stream state. */
  private readonly rStart: Float64Array[] = [];
  private readonly rEnd: Float64Array[] = [];
  private readonly rState: Uint32Array[] = [];
  private readonly rInit: Uint8Array[] = [];
  /** Random, co-scheduled: per component the shared detour list. */
  private readonly shared: { starts: number[]; ends: number[]; state: Uint32Array }[] = [];
  private readonly co: boolean;
  /** Total detour time charged (s). */
  charged = 0;
  /** Called with each detour as charged (process, from, to; s): the simulator's timeline sets it. */
  onDetour: ((r: number, start: number, end: number) => void) | undefined = undefined;

  constructor(spec: NoiseSpec, P: number, seed: number) {
    validateNoise(spec);
    this.co = spec.coScheduled ?? false;
    const rng = new Rng(seed, 0x401);
    let ci = 0;
    for (const c of spec.components) {
      ci++;
      if (c.kind === 'periodic') {
        this.periodic.push(c);
        const ph = new Float64Array(this.co ? 1 : P);
        for (let i = 0; i < ph.length; i++) ph[i] = rng.next() * c.period;
        this.phase.push(ph);
      } else {
        this.random.push(c);
        if (this.co) {
          const state = new Uint32Array([mixSeed(seed, 0x777 + ci)]);
          this.shared.push({ starts: [], ends: [], state });
          this.rStart.push(new Float64Array(0));
          this.rEnd.push(new Float64Array(0));
          this.rState.push(new Uint32Array(0));
          this.rInit.push(new Uint8Array(0));
        } else {
          this.rStart.push(new Float64Array(P));
          this.rEnd.push(new Float64Array(P));
          const st = new Uint32Array(P);
          for (let r = 0; r < P; r++) st[r] = mixSeed(seed + ci * 7919, r);
          this.rState.push(st);
          this.rInit.push(new Uint8Array(P));
        }
      }
    }
  }

  private duration(c: RandomNoise, st: Uint32Array, i: number): number {
    switch (c.distribution ?? 'fixed') {
      case 'fixed':
        return c.duration;
      case 'exponential':
        return -c.duration * Math.log(1 - nextUniform(st, i));
      case 'pareto':
        return c.duration / Math.pow(1 - nextUniform(st, i), 1 / (c.shape ?? 1.5));
    }
  }

  /** First detour of a renewal stream, in steady state at time 0. */
  private first(c: RandomNoise, st: Uint32Array, i: number, out: { s: number; e: number }): void {
    const D = c.duration;
    if (nextUniform(st, i) < D / (D + c.meanInterval)) {
      const rem = nextUniform(st, i) * D;
      out.s = rem - D;
      out.e = rem;
    } else {
      out.s = -c.meanInterval * Math.log(1 - nextUniform(st, i));
      out.e = out.s + this.duration(c, st, i);
    }
  }

  private readonly tmp = { s: 0, e: 0 };

  /** Next detour of random component j for process r whose end is after t: writes tmp. */
  private nextRandom(j: number, r: number, t: number): void {
    const c = this.random[j];
    if (this.co) {
      const sh = this.shared[j];
      if (sh.starts.length === 0) {
        this.first(c, sh.state, 0, this.tmp);
        sh.starts.push(this.tmp.s);
        sh.ends.push(this.tmp.e);
      }
      while (sh.ends[sh.ends.length - 1] <= t) {
        const s = sh.ends[sh.ends.length - 1] - c.meanInterval * Math.log(1 - nextUniform(sh.state, 0));
        sh.starts.push(s);
        sh.ends.push(s + this.duration(c, sh.state, 0));
      }
      // Binary search for the first detour ending after t.
      let lo = 0;
      let hi = sh.ends.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sh.ends[mid] <= t) lo = mid + 1;
        else hi = mid;
      }
      this.tmp.s = sh.starts[lo];
      this.tmp.e = sh.ends[lo];
      return;
    }
    const S = this.rStart[j];
    const E = this.rEnd[j];
    const st = this.rState[j];
    if (!this.rInit[j][r]) {
      this.rInit[j][r] = 1;
      this.first(c, st, r, this.tmp);
      S[r] = this.tmp.s;
      E[r] = this.tmp.e;
    }
    while (E[r] <= t) {
      const s = E[r] - c.meanInterval * Math.log(1 - nextUniform(st, r));
      S[r] = s;
      E[r] = s + this.duration(c, st, r);
    }
    this.tmp.s = S[r];
    this.tmp.e = E[r];
  }

  /** End time of `work` seconds of CPU work on process r starting at t. */
  stretch(r: number, t: number, work: number): number {
    let cur = t;
    let rem = work;
    for (let guard = 0; guard < 1_000_000; guard++) {
      // Earliest detour ending after cur, over all components.
      let ds = Infinity;
      let de = Infinity;
      for (let j = 0; j < this.periodic.length; j++) {
        const c = this.periodic[j];
        const ph = this.phase[j][this.co ? 0 : r];
        const k = Math.floor((cur - ph) / c.period);
        let s = ph + k * c.period;
        if (s + c.duration <= cur) s += c.period;
        if (s < ds) {
          ds = s;
          de = s + c.duration;
        }
      }
      for (let j = 0; j < this.random.length; j++) {
        this.nextRandom(j, r, cur);
        if (this.tmp.s < ds) {
          ds = this.tmp.s;
          de = this.tmp.e;
        }
      }
      if (ds <= cur) {
        this.charged += de - cur;
        if (this.onDetour !== undefined) this.onDetour(r, cur, de);
        cur = de;
        continue;
      }
      if (cur + rem <= ds) return cur + rem;
      rem -= ds - cur;
      this.charged += de - ds;
      if (this.onDetour !== undefined) this.onDetour(r, ds, de);
      cur = de;
    }
    throw new ArgumentError('noise: a CPU interval crossed more than a million detours; check the noise parameters');
  }
}
