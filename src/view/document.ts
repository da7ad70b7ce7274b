/**
 * The viewer's document: what `coll view` hands to the page (served as JSON, or
 * embedded in the `--export` HTML). The command reads the files the other commands
 * write (formats in docs/view.md#formats), recognises each one's kind, validates it and
 * normalises it into one of the four views below; the page only draws. Everything
 * here is plain JSON (numbers, strings, arrays), so the same document travels over
 * HTTP and inside a `<script type="application/json">` element.
 *
 * Time is in microseconds everywhere in the document.
 */

/** The four kinds of data the page shows. */
export type ViewKind = 'schedule' | 'timeline' | 'bench' | 'model';

/** One step of one rank's schedule (a rank × step diagram draws these). */
export interface ScheduleStepView {
  /** send, recv, reduce, copy, or another step kind of the schedule IR. */
  readonly kind: string;
  /** The round the step belongs to (the diagram's x position). */
  readonly round: number;
  /** The other rank of a send or recv. */
  readonly peer?: number;
  /** Elements moved or combined, and the bytes they are at the file's element size. */
  readonly count: number;
  readonly bytes: number;
  /** Indices (into this rank's steps) of the steps this one waits for. */
  readonly deps: readonly number[];
  /** The algorithm's own label of the phase (fold, reduce-scatter, …), when it gives one. */
  readonly phase?: string;
}

export interface ScheduleView {
  readonly kind: 'schedule';
  readonly collective: string;
  readonly algorithm: string;
  readonly size: number;
  readonly rounds: number;
  /** Bytes per element used for `bytes` (8 unless the file says otherwise). */
  readonly elementBytes: number;
  readonly ranks: readonly { readonly rank: number; readonly steps: readonly ScheduleStepView[] }[];
  /** The schedule's statistics as `coll schedule --json` prints them. */
  readonly stats?: Readonly<Record<string, unknown>>;
}

/**
 * A timeline, columnar so that 10⁵ spans stay compact: span i lies on lane `lane[i]`,
 * has kind `kinds[kind[i]]` and runs from `start[i]` for `dur[i]` µs.
 */
export interface TimelineView {
  readonly kind: 'timeline';
  /** A simulated run (`coll sim --trace`) or a real one (`coll run --trace`). */
  readonly source: 'sim' | 'run';
  readonly ranks: number;
  /** Lane names, in drawing order (e.g. "rank 3", "rank 3 nic"); `laneRank[l]` is lane l's rank. */
  readonly lanes: readonly string[];
  readonly laneRank: readonly number[];
  /** Span kinds: send, recv, reduce, copy, compute, collective, idle, noise, … */
  readonly kinds: readonly string[];
  readonly spans: {
    readonly lane: readonly number[];
    readonly kind: readonly number[];
    readonly start: readonly number[];
    readonly dur: readonly number[];
    /** Other rank of a send/recv, −1 otherwise. */
    readonly peer: readonly number[];
    /** Bytes moved, −1 when not applicable. */
    readonly bytes: readonly number[];
    /** Index of the matching send of a recv (and of the recv of a send), −1 otherwise. */
    readonly match: readonly number[];
    /** A short label per span (the collective and algorithm of a call span, …), '' when none. */
    readonly label: readonly string[];
  };
  /** Span indices on the critical path, from the first to the last. */
  readonly critical: readonly number[];
  /** Point or interval events drawn over the lanes (noise, detours), time in µs. */
  readonly marks: { readonly lane: readonly number[]; readonly start: readonly number[]; readonly dur: readonly number[]; readonly label: readonly string[] };
  /** What the producing command recorded about the run (collective, machine, sizes, …). */
  readonly meta: Readonly<Record<string, string | number | boolean>>;
}

/** One measured curve: time per call against message size. */
export interface BenchSeries {
  /** 'collectives' or the peer MPI ('openmpi', 'mpich'). */
  readonly impl: string;
  readonly collective: string;
  readonly ranks: number;
  readonly nodes: number;
  /** The algorithm that ran ('' for a peer MPI). */
  readonly algorithm: string;
  /** A variant of the call (nonblocking, dup, split, a datatype/op spot check), '' for the plain call. */
  readonly variant: string;
  readonly bytes: readonly number[];
  /** Median µs per call at each size. */
  readonly us: readonly number[];
}

/** One cell of the ratio heat map: our time over the peer's, same run. */
export interface BenchRatio {
  readonly peer: string;
  readonly ranks: number;
  readonly collective: string;
  readonly bytes: number;
  readonly ratio: number;
  readonly oursUs: number;
  readonly peerUs: number;
}

export interface BenchView {
  readonly kind: 'bench';
  readonly series: readonly BenchSeries[];
  /** Empty when the file has no peer. */
  readonly ratios: readonly BenchRatio[];
  readonly meta: Readonly<Record<string, string | number | boolean>>;
}

/** A predicted and a measured time of one algorithm at one point. */
export interface ModelPoint {
  readonly collective: string;
  /** Process count (0 where the series is not a collective, e.g. a fitted kernel). */
  readonly P: number;
  /** The x of the point: message bytes, or elements for a kernel series. */
  readonly bytes: number;
  readonly algorithm: string;
  /** The tuner's choice, the runtime's default, or a fitted series of `coll fit`. */
  readonly role: 'choice' | 'default' | 'fit';
  /** Predicted µs (absent: the model has no such algorithm). */
  readonly predictedUs?: number;
  readonly measuredUs: number;
}

export interface ModelView {
  readonly kind: 'model';
  readonly points: readonly ModelPoint[];
  readonly meta: Readonly<Record<string, string | number | boolean>>;
}

export type ViewData = ScheduleView | TimelineView | BenchView | ModelView;

/** One input file, recognised and normalised. */
export type ViewFile = ViewData & {
  /** The file's base name, shown as the view's title. */
  readonly name: string;
};

export interface ViewDocument {
  readonly format: 'collectives-view';
  readonly version: 1;
  /** ISO time the document was made. */
  readonly generated: string;
  readonly files: readonly ViewFile[];
}
