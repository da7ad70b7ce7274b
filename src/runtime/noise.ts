/**
 * Injected OS noise for rank threads: the experiment knob behind seed 000 §5.4.1
 * (Fig. 5.5, Table 5.1) and the ASCI Q analysis it cites. Each rank thread has noise
 * events at times t_k, periodic with a random phase per rank or Poisson with the same
 * mean period, each lasting d µs. An event preempts the thread the way a daemon does:
 *
 * - a thread RUNNING at t_k (computing, polling, spinning) loses d µs: at its next
 *   progress point it stalls for d (busy, so the core stays taken);
 * - a thread PARKED across the whole window [t_k, t_k + d] loses nothing (the OS ran
 *   the daemon on the core the thread had given up);
 * - a thread that wakes inside the window resumes only at t_k + d.
 *
 * So work that needs the rank thread (host-mode progress) is delayed by every event
 * that hits it, while a rank that parked and left the collective to the offload
 * engine is exposed only while it posts and collects. The engine thread has no noise.
 *
 * The runtime calls tick() at its progress points (call entry, wait loops) and
 * parking()/woke() around each park. Configure with COLL_NOISE, e.g.
 * "period=1000,duration=100" or "period=1000,duration=100,poisson,seed=7" (µs).
 */
import { ArgumentError } from '../core/errors.js';
import { prng } from '../core/random.js';

export interface NoiseSpec {
  /** Mean time between events (µs). */
  readonly periodUs: number;
  /** CPU time an event takes from a running thread (µs). */
  readonly durationUs: number;
  /** 'periodic': fixed period, random phase per rank; 'poisson': exponential gaps. */
  readonly distribution: 'periodic' | 'poisson';
  /** Seed of the phases and gaps (mixed with the rank). */
  readonly seed: number;
}

export interface NoiseStats {
  /** Events that took CPU time from the thread. */
  readonly hits: number;
  /** Events that fell entirely into parks. */
  readonly absorbed: number;
  /** Total stall time (µs). */
  readonly stolenUs: number;
}

export class NoiseInjector {
  private readonly periodMs: number;
  private readonly durationMs: number;
  private readonly rand: () => number;
  private next: number;
  private parkedAt = -1;
  private hits = 0;
  private absorbed = 0;
  private stolenMs = 0;

  constructor(
    readonly spec: NoiseSpec,
    rank: number,
    now: number = performance.now(),
  ) {
    if (!(spec.periodUs > 0) || !(spec.durationUs >= 0) || spec.durationUs >= spec.periodUs) {
      throw new ArgumentError(
        `noise needs 0 <= duration < period, got period ${spec.periodUs} µs, duration ${spec.durationUs} µs`,
        'e.g. COLL_NOISE="period=1000,duration=100"',
      );
    }
    this.periodMs = spec.periodUs / 1000;
    this.durationMs = spec.durationUs / 1000;
    this.rand = prng((spec.seed * 0x9e3779b1 + rank * 0x85ebca6b) >>> 0);
    this.next = now + this.gap(true);
  }

  private gap(first: boolean): number {
    if (this.spec.distribution === 'poisson') return -Math.log(1 - this.rand()) * this.periodMs;
    return first ? this.rand() * this.periodMs : this.periodMs;
  }

  /** A progress point of the running thread: pay for the events that hit it since the last one. */
  tick(): void {
    const now = performance.now();
    if (now < this.next) return;
    let stall = 0;
    while (this.next <= now) {
      stall += this.durationMs;
      this.hits++;
      this.next += this.gap(false);
    }
    this.spinFor(now, stall);
  }

  /** The thread is about to park (pays for pending events first). */
  parking(): void {
    this.tick();
    this.parkedAt = performance.now();
  }

  /** The thread woke from a park: absorb the events it slept through, stall for one it woke inside. */
  woke(): void {
    const from = this.parkedAt;
    this.parkedAt = -1;
    if (from < 0) return;
    const now = performance.now();
    let resume = now;
    while (this.next <= now) {
      const end = this.next + this.durationMs;
      if (this.next >= from && end <= now) this.absorbed++;
      else {
        this.hits++;
        resume = Math.max(resume, end);
      }
      this.next += this.gap(false);
    }
    this.spinFor(now, resume - now);
  }

  stats(): NoiseStats {
    return { hits: this.hits, absorbed: this.absorbed, stolenUs: this.stolenMs * 1000 };
  }

  private spinFor(from: number, ms: number): void {
    if (ms <= 0) return;
    this.stolenMs += ms;
    const until = from + ms;
    while (performance.now() < until) {
      // the core is taken by the "daemon"
    }
  }
}

/** Parse a COLL_NOISE value ("period=1000,duration=100[,poisson][,seed=N]"). */
export function parseNoise(text: string): NoiseSpec {
  let periodUs = NaN;
  let durationUs = NaN;
  let distribution: NoiseSpec['distribution'] = 'periodic';
  let seed = 1;
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, v] = part.split('=');
    const n = Number(v);
    if (k === 'period' && Number.isFinite(n)) periodUs = n;
    else if (k === 'duration' && Number.isFinite(n)) durationUs = n;
    else if (k === 'seed' && Number.isInteger(n)) seed = n;
    else if ((k === 'poisson' || k === 'periodic') && v === undefined) distribution = k;
    else throw new ArgumentError(`COLL_NOISE: cannot read '${part}'`, 'use "period=<µs>,duration=<µs>[,poisson][,seed=<n>]"');
  }
  if (!Number.isFinite(periodUs) || !Number.isFinite(durationUs)) {
    throw new ArgumentError(`COLL_NOISE '${text}' needs period and duration`, 'use "period=<µs>,duration=<µs>[,poisson][,seed=<n>]"');
  }
  return { periodUs, durationUs, distribution, seed };
}

/** The noise injector of a rank thread from COLL_NOISE, if set. */
export function noiseFromEnv(rank: number): NoiseInjector | undefined {
  const v = process.env.COLL_NOISE;
  return v === undefined || v === '' ? undefined : new NoiseInjector(parseNoise(v), rank);
}
