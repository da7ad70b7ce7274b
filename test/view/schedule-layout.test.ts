/**
 * The schedule diagram's pure parts (src/view/page/schedule-layout.ts): FIFO pairing of
 * sends with receives per ordered rank pair, unmatched messages, the slot layout of a
 * round's steps, the legend's kinds, label thinning and the arrow geometry.
 */
import { describe, expect, it } from 'vitest';
import type { ScheduleStepView, ScheduleView } from '../../src/view/document.js';
import { arrowPath, describeDep, fitLayoutOptions, kindColour, labelStride, layoutSchedule, legendKinds, pairMessages, slotsPerRound } from '../../src/view/page/schedule-layout.js';

const step = (kind: string, round: number, peer?: number, deps: number[] = [], count = 4): ScheduleStepView => ({ kind, round, peer, count, bytes: count * 8, deps });

function view(ranks: ScheduleStepView[][]): ScheduleView {
  const rounds = Math.max(0, ...ranks.flat().map((s) => s.round + 1));
  return { kind: 'schedule', collective: 'test', algorithm: 'hand', size: ranks.length, rounds, elementBytes: 8, ranks: ranks.map((steps, rank) => ({ rank, steps })) };
}

describe('pairMessages', () => {
  it('pairs the k-th send a→b with the k-th recv at b from a, in step-index order', () => {
    // Rank 0 sends twice to 1 (steps 0 and 2) and once to 2; rank 1 posts its two receives
    // from 0 at steps 1 and 3 with a receive from 2 between them.
    const v = view([
      [step('send', 0, 1), step('send', 0, 2), step('send', 1, 1)],
      [step('recv', 1, 2), step('recv', 0, 0), step('reduce', 1), step('recv', 1, 0)],
      [step('recv', 0, 0), step('send', 1, 1)],
    ]);
    const { messages, unmatchedRecvs } = pairMessages(v);
    expect(messages).toEqual([
      { from: 0, sendStep: 0, to: 1, recvStep: 1, seq: 0 },
      { from: 0, sendStep: 1, to: 2, recvStep: 0, seq: 0 },
      { from: 0, sendStep: 2, to: 1, recvStep: 3, seq: 1 },
      { from: 2, sendStep: 1, to: 1, recvStep: 0, seq: 0 },
    ]);
    expect(unmatchedRecvs).toEqual([]);
  });

  it('reports sends without a receive and receives without a send', () => {
    const v = view([[step('send', 0, 1), step('send', 1, 1)], [step('recv', 0, 0), step('recv', 0, 0), step('recv', 1, 0), step('recv', 0, 0)]]);
    const p = pairMessages(v);
    expect(p.messages.map((m) => m.recvStep)).toEqual([0, 1]);
    expect(p.unmatchedRecvs).toEqual([{ rank: 1, step: 2 }, { rank: 1, step: 3 }]);
    const q = pairMessages(view([[step('send', 0, 1), step('send', 0, 5)], [step('recv', 0, 0)]]));
    expect(q.messages.map((m) => [m.to, m.recvStep])).toEqual([[1, 0], [5, -1]]);
  });
});

describe('layoutSchedule', () => {
  const v = view([
    [step('send', 0, 1), step('recv', 0, 1), step('reduce', 0, undefined, [0, 1]), step('send', 2, 1)],
    [step('send', 0, 0), step('recv', 0, 0), step('recv', 2, 0)],
  ]);
  const o = { slotWidth: 10, rowHeight: 20, columnGap: 4 };
  const l = layoutSchedule(v, o);

  it('makes a column as wide as the busiest rank in its round, an empty round one slot', () => {
    expect(slotsPerRound(v)).toEqual([3, 0, 1]);
    expect(l.columns.map((c) => [c.x, c.width, c.slots])).toEqual([[0, 34, 3], [34, 14, 0], [48, 14, 1]]);
    expect(l.width).toBe(62);
    expect(l.height).toBe(40);
  });

  it('places a rank\'s steps of one round in consecutive slots, in step order', () => {
    expect(l.stepX[0]).toEqual([7, 17, 27, 55]);
    expect(l.stepX[1]).toEqual([7, 17, 55]);
    expect(l.rowOf.get(1)).toBe(1);
  });

  it('sizes rows and slots to the viewport within their bounds', () => {
    expect(fitLayoutOptions(4, [2, 2], 1000, 600)).toEqual({ slotWidth: 48, rowHeight: 40, columnGap: 14 });
    expect(fitLayoutOptions(64, [2, 2], 100, 600)).toEqual({ slotWidth: 18, rowHeight: 12, columnGap: 14 });
    expect(fitLayoutOptions(64, [2, 2], 40, 600)).toEqual({ slotWidth: 10, rowHeight: 12, columnGap: 8 });
    // 4 rounds of one slot in 4 · 1.75 · 20 px: slots of 20 px, gaps of 15 → 14.
    expect(fitLayoutOptions(32, [1, 1, 1, 1], 140, 640)).toEqual({ slotWidth: 20, rowHeight: 20, columnGap: 14 });
    expect(fitLayoutOptions(32, [2, 2, 2, 2, 2, 2, 2, 2, 2, 2], 303, 640)).toEqual({ slotWidth: 11, rowHeight: 20, columnGap: 8 });
    expect(fitLayoutOptions(1024, [3], 1000, 600).rowHeight).toBe(10);
  });
});

describe('legend, labels and arrows', () => {
  it('lists messages first, then reduce, copy and any other local kind', () => {
    const v = view([[step('copy', 0), step('send', 0, 1), step('zero', 1)], [step('recv', 0, 0), step('reduce', 1)]]);
    expect(legendKinds(v)).toEqual(['message', 'reduce', 'copy', 'zero']);
    expect(kindColour('send')).toBe(kindColour('message'));
    expect(new Set(['message', 'reduce', 'copy', 'zero'].map((k) => kindColour(k, ['zero']))).size).toBe(4);
  });

  it('names a dependency by index, kind and peer', () => {
    const steps = [step('send', 0, 3), step('recv', 0, 2), step('reduce', 0)];
    expect([0, 1, 2, 7].map((i) => describeDep(steps, i))).toEqual(['#0 send → 3', '#1 recv ← 2', '#2 reduce', '#7 (missing)']);
  });

  it('thins labels by powers of two', () => {
    expect(labelStride(20, 11)).toBe(1);
    expect(labelStride(5, 11)).toBe(4);
    expect(labelStride(1, 11)).toBe(16);
    expect(labelStride(0, 11)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('draws a straight arrow with its head at the end, and a curve for a same-row message', () => {
    expect(arrowPath(0, 0, 0, 100, 10)).toBe('M0,0 L0,100 M-5.5,90 L0,100 L5.5,90');
    expect(arrowPath(0, 0, 0, 10, 10)).toBe('M0,0 L0,10 M-2.2,6 L0,10 L2.2,6');
    expect(arrowPath(0, 10, 20, 10, 5, -8)).toMatch(/^M0,10 C0,18 20,18 20,10 M/);
  });
});
