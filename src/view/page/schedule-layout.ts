/**
 * The schedule diagram's geometry and message pairing, without the DOM (unit-tested in
 * Node; schedule.ts draws what this computes).
 *
 * Pairing rule (the schedule IR's own, src/schedule/types.ts): the k-th `send` from
 * rank a to rank b, counting a's steps in index order, is the message that the k-th
 * `recv` at b from a receives, counting b's steps in index order. Per ordered pair
 * (a, b) the sends and the receives are matched first-in, first-out. A send with no
 * such receive (or to a peer outside the communicator) is unmatched, and so is a
 * receive with no such send; a valid schedule has neither.
 *
 * Layout: one row per rank, one column per round. Inside a column every rank's steps
 * of that round take consecutive slots in step-index order, so a column is as wide as
 * the busiest rank's round; a message runs from its send's slot in the sender's row
 * to its receive's slot in the receiver's row (a fan of messages into one rank arrives
 * at distinct points).
 */
import type { ScheduleStepView, ScheduleView } from '../document.js';

/** Step kinds that are messages (drawn as arrows); every other kind is a local operation (a box). */
export function isMessageKind(kind: string): boolean {
  return kind === 'send' || kind === 'recv';
}

/** One message: a send and the receive it pairs with (FIFO per ordered rank pair). */
export interface Message {
  /** Sender rank and the send's step index. */
  readonly from: number;
  readonly sendStep: number;
  /** Receiver rank (the send's peer) and the matching receive's step index, −1 when unmatched. */
  readonly to: number;
  readonly recvStep: number;
  /** k: this is the k-th message from `from` to `to`. */
  readonly seq: number;
}

export interface Pairing {
  /** One per send, in (sender rank, step index) order. */
  readonly messages: readonly Message[];
  /** Receives no send pairs with, as (rank, step index). */
  readonly unmatchedRecvs: readonly { readonly rank: number; readonly step: number }[];
}

/** Pair every send with its receive: the k-th send a→b with the k-th receive at b from a (see the module comment). */
export function pairMessages(view: ScheduleView): Pairing {
  const recvQueues = new Map<string, number[]>();
  const recvRank = new Map<number, readonly ScheduleStepView[]>();
  for (const r of view.ranks) {
    recvRank.set(r.rank, r.steps);
    r.steps.forEach((s, i) => {
      if (s.kind !== 'recv' || s.peer === undefined) return;
      const key = `${s.peer}>${r.rank}`;
      const q = recvQueues.get(key);
      if (q) q.push(i);
      else recvQueues.set(key, [i]);
    });
  }
  const used = new Map<string, number>();
  const messages: Message[] = [];
  for (const r of view.ranks) {
    r.steps.forEach((s, i) => {
      if (s.kind !== 'send' || s.peer === undefined) return;
      const key = `${r.rank}>${s.peer}`;
      const seq = used.get(key) ?? 0;
      used.set(key, seq + 1);
      const q = recvQueues.get(key);
      messages.push({ from: r.rank, sendStep: i, to: s.peer, recvStep: q && seq < q.length ? q[seq] : -1, seq });
    });
  }
  const unmatchedRecvs: { rank: number; step: number }[] = [];
  for (const [key, q] of recvQueues) {
    const n = used.get(key) ?? 0;
    const rank = Number(key.slice(key.indexOf('>') + 1));
    for (let k = n; k < q.length; k++) unmatchedRecvs.push({ rank, step: q[k] });
  }
  unmatchedRecvs.sort((a, b) => a.rank - b.rank || a.step - b.step);
  return { messages, unmatchedRecvs };
}

/** Sizes of the diagram's parts, in unzoomed pixels. */
export interface LayoutOptions {
  /** Width of one step's slot in a round column. */
  readonly slotWidth: number;
  /** Height of one rank's row. */
  readonly rowHeight: number;
  /** Space between two round columns. */
  readonly columnGap: number;
}

/** The default sizes: rows of 12–40 px up to 64 ranks (the diagram fits a screen's height), 10 px beyond (zoom). */
export function defaultLayoutOptions(size: number): LayoutOptions {
  return fitLayoutOptions(size, [], 0, 640);
}

/**
 * Sizes that use a viewport of `width` × `height` pixels: rows share the height (12–40
 * px each up to 64 ranks, 10 px beyond, where one zooms), slots and the gaps between
 * columns (¾ of a slot, 6–14 px) share the width, a slot 10–48 px (a wider schedule is
 * panned). `slots` is slotsPerRound(view).
 */
export function fitLayoutOptions(size: number, slots: readonly number[], width: number, height: number): LayoutOptions {
  const rowHeight = size <= 64 ? Math.max(12, Math.min(40, Math.floor(height / Math.max(1, size)))) : 10;
  const total = slots.reduce((n, k) => n + Math.max(1, k), 0);
  const per = total + 0.75 * slots.length;
  const slotWidth = per > 0 && width > 0 ? Math.max(10, Math.min(48, Math.floor(width / per))) : 18;
  const columnGap = Math.max(6, Math.min(14, Math.round(slotWidth * 0.75)));
  return { slotWidth, rowHeight, columnGap };
}

/** The most steps one rank has in each round (a round's column holds that many slots). */
export function slotsPerRound(view: ScheduleView): number[] {
  let rounds = Math.max(0, view.rounds);
  for (const r of view.ranks) for (const s of r.steps) rounds = Math.max(rounds, roundOf(s) + 1);
  const slots = new Array<number>(rounds).fill(0);
  for (const r of view.ranks) {
    const used = new Array<number>(rounds).fill(0);
    for (const s of r.steps) used[roundOf(s)]++;
    used.forEach((n, k) => (slots[k] = Math.max(slots[k], n)));
  }
  return slots;
}

export interface Column {
  readonly round: number;
  readonly x: number;
  readonly width: number;
  /** The most steps one rank has in this round. */
  readonly slots: number;
}

export interface ScheduleLayout {
  readonly columns: readonly Column[];
  readonly width: number;
  readonly height: number;
  readonly rowHeight: number;
  readonly slotWidth: number;
  /** Row index of each rank (ranks in the view's order). */
  readonly rowOf: ReadonlyMap<number, number>;
  /** Centre x of each rank's step i: x[rankRow][i]. */
  readonly stepX: readonly (readonly number[])[];
}

/** The column of every round and the x of every step (see the module comment). */
export function layoutSchedule(view: ScheduleView, o: LayoutOptions = defaultLayoutOptions(view.size)): ScheduleLayout {
  const slots = slotsPerRound(view);
  const rounds = slots.length;
  const slotOf: number[][] = view.ranks.map((r) => {
    const used = new Array<number>(rounds).fill(0);
    return r.steps.map((s) => used[roundOf(s)]++);
  });
  const columns: Column[] = [];
  let x = 0;
  for (let k = 0; k < rounds; k++) {
    const width = Math.max(1, slots[k]) * o.slotWidth + o.columnGap;
    columns.push({ round: k, x, width, slots: slots[k] });
    x += width;
  }
  const rowOf = new Map<number, number>();
  view.ranks.forEach((r, i) => rowOf.set(r.rank, i));
  const stepX = view.ranks.map((r, i) => r.steps.map((s, j) => {
    const c = columns[roundOf(s)];
    return c.x + o.columnGap / 2 + (slotOf[i][j] + 0.5) * o.slotWidth;
  }));
  return { columns, width: x, height: view.ranks.length * o.rowHeight, rowHeight: o.rowHeight, slotWidth: o.slotWidth, rowOf, stepX };
}

/** A step's round as a column index (negative or fractional rounds are clamped down to an integer ≥ 0). */
export function roundOf(s: ScheduleStepView): number {
  return Number.isFinite(s.round) ? Math.max(0, Math.floor(s.round)) : 0;
}

/** The kinds in the legend, in drawing order: 'message' for the arrows, then each local kind present. */
export function legendKinds(view: ScheduleView): string[] {
  const local = new Set<string>();
  let messages = false;
  for (const r of view.ranks) for (const s of r.steps) {
    if (isMessageKind(s.kind)) messages = true;
    else local.add(s.kind);
  }
  const order = ['reduce', 'copy'];
  const rest = [...local].filter((k) => !order.includes(k)).sort();
  return [...(messages ? ['message'] : []), ...order.filter((k) => local.has(k)), ...rest];
}

/**
 * Colour of a kind (Okabe–Ito, distinguishable with the common colour-vision
 * deficiencies): messages blue, reduce vermillion, copy bluish green, others in turn.
 */
export function kindColour(kind: string, others: readonly string[] = []): string {
  switch (kind) {
    case 'message':
    case 'send':
    case 'recv':
      return '#0072B2';
    case 'reduce':
      return '#D55E00';
    case 'copy':
      return '#009E73';
    default: {
      const more = ['#CC79A7', '#E69F00', '#56B4E9', '#555555'];
      const i = others.indexOf(kind);
      return more[(i < 0 ? 0 : i) % more.length];
    }
  }
}

/** How a step is named in a dependency list: "#3 recv ← 2", "#5 reduce". */
export function describeDep(steps: readonly ScheduleStepView[], i: number): string {
  const s = steps[i];
  if (!s) return `#${i} (missing)`;
  if (s.kind === 'send' && s.peer !== undefined) return `#${i} send → ${s.peer}`;
  if (s.kind === 'recv' && s.peer !== undefined) return `#${i} recv ← ${s.peer}`;
  return `#${i} ${s.kind}`;
}

/** Show only every n-th label so that labels stay `minGap` pixels apart at `spacing` pixels per item. */
export function labelStride(spacing: number, minGap: number): number {
  if (!(spacing > 0)) return Number.MAX_SAFE_INTEGER;
  const raw = Math.ceil(minGap / spacing);
  if (raw <= 1) return 1;
  // 1, 2, 4, 8, 16, … keeps the labelled ranks stable while zooming.
  return 2 ** Math.ceil(Math.log2(raw));
}

/**
 * An arrow as one SVG path: the shaft from (x1, y1) to (x2, y2) and an open head at
 * (x2, y2), `head` long (at most 40% of the shaft), in the diagram's units. Drawn as
 * geometry rather than an SVG marker, which is much cheaper to repaint while zooming
 * thousands of arrows. A curve (`bend` ≠ 0) leaves and arrives vertically, bulging by
 * `bend` (a message between two steps of the same row).
 */
export function arrowPath(x1: number, y1: number, x2: number, y2: number, head: number, bend = 0): string {
  const f = (v: number): string => (Math.round(v * 100) / 100).toString();
  let shaft: string;
  let ux: number;
  let uy: number;
  let len: number;
  if (bend !== 0) {
    shaft = `M${f(x1)},${f(y1)} C${f(x1)},${f(y1 - bend)} ${f(x2)},${f(y2 - bend)} ${f(x2)},${f(y2)}`;
    ux = 0;
    uy = Math.sign(bend);
    len = Math.abs(bend);
  } else {
    shaft = `M${f(x1)},${f(y1)} L${f(x2)},${f(y2)}`;
    len = Math.hypot(x2 - x1, y2 - y1);
    ux = len > 0 ? (x2 - x1) / len : 0;
    uy = len > 0 ? (y2 - y1) / len : 1;
  }
  const hl = Math.min(head, len * 0.4);
  if (!(hl > 0)) return shaft;
  const hw = hl * 0.55;
  const bx = x2 - ux * hl;
  const by = y2 - uy * hl;
  return `${shaft} M${f(bx - uy * hw)},${f(by + ux * hw)} L${f(x2)},${f(y2)} L${f(bx + uy * hw)},${f(by - ux * hw)}`;
}
