/**
 * `coll sim --trace` (src/sim/timeline.ts): the format tags, every recv paired with the
 * send that delivered it through a shared message id, the noise model's detours as
 * 'noise' spans exactly when noise is configured, and a job of 1,024 ranks.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseNoise } from '../../src/sim/noise.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate } from '../../src/sim/simulate.js';
import { toChromeTrace, type ChromeTrace, type ChromeTraceEvent } from '../../src/sim/timeline.js';
import { captureConsole } from '../helpers/console.js';

/** Every recv has exactly one send with its id, the same bytes and the right ends, which started before the recv ended. */
function checkPairs(t: ChromeTrace): number {
  const sends = new Map<string, ChromeTraceEvent>();
  const bad: string[] = [];
  for (const e of t.traceEvents) {
    if (e.cat !== 'send') continue;
    const id = String(e.args.msg);
    if (sends.has(id)) bad.push(`duplicate message id ${id}`);
    sends.set(id, e);
  }
  const recvs = t.traceEvents.filter((e) => e.cat === 'recv');
  for (const r of recvs) {
    const s = sends.get(String(r.args.msg));
    if (!s) bad.push(`no send for ${JSON.stringify(r)}`);
    else if (s.args.bytes !== r.args.bytes || s.args.peer !== r.pid || r.args.peer !== s.pid || r.ts + r.dur < s.ts) bad.push(`${JSON.stringify(s)} does not deliver ${JSON.stringify(r)}`);
  }
  expect(bad.slice(0, 5)).toEqual([]);
  expect(recvs.length).toBe(sends.size);
  return recvs.length;
}

const alc = getPreset('alc');

describe('the simulator timeline', () => {
  it('pairs messages and marks no noise without a noise model', () => {
    const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: alc, procs: 12, ppn: 2, bytes: 1024, timeline: true });
    const t = toChromeTrace(r.timeline ?? [], { collective: 'allreduce', procs: 12 });
    expect(t.otherData).toMatchObject({ format: 'collectives-timeline', version: 1, source: 'sim', ranks: 12, collective: 'allreduce' });
    expect(checkPairs(t)).toBe(r.first.messages);
    expect(t.traceEvents.filter((e) => e.cat === 'noise')).toEqual([]);
    expect(new Set(t.traceEvents.map((e) => e.cat))).toEqual(new Set(['start', 'copy', 'send', 'recv', 'reduce']));
    for (const e of t.traceEvents.filter((x) => x.cat === 'send' || x.cat === 'recv' || x.cat === 'reduce')) expect(e.args.step).toBeGreaterThanOrEqual(0);
  });

  it('records the detours the noise model charges, on the ranks it charges them to', () => {
    const noise = parseNoise('periodic:10us/3us+random:20us/2us');
    const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: alc, procs: 32, ppn: 2, bytes: 8, noise, timeline: true });
    const t = toChromeTrace(r.timeline ?? [], { procs: 32 });
    checkPairs(t);
    const detours = t.traceEvents.filter((e) => e.cat === 'noise');
    expect(detours.length).toBeGreaterThan(0);
    expect(detours.every((e) => e.tid === 'host' && e.dur > 0 && e.pid >= 0 && e.pid < 32)).toBe(true);
    // Exactly the noise the run charged (seconds → µs).
    expect(detours.reduce((s, e) => s + e.dur, 0)).toBeCloseTo(r.first.busy.noise * 1e6, 6);
    // Without the timeline, the same run (same seed) charges the same noise: recording changes nothing.
    const plain = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: alc, procs: 32, ppn: 2, bytes: 8, noise });
    expect(plain.first.time).toBe(r.first.time);
    expect(plain.timeline).toBeUndefined();
  });

  it('offload mode pairs the NIC lanes too, and the limit counts what it drops', () => {
    const r = simulate({ collective: 'reduce', algorithm: 'binomial', machine: getPreset('crescendo'), procs: 16, bytes: 8, mode: 'offload', timeline: true, timelineLimit: 20 });
    expect(r.timeline?.length).toBe(20);
    expect(r.timelineDropped).toBeGreaterThan(0);
    const all = simulate({ collective: 'reduce', algorithm: 'binomial', machine: getPreset('crescendo'), procs: 16, bytes: 8, mode: 'offload', timeline: true });
    expect(all.timelineDropped).toBe(0);
    expect((all.timeline?.length ?? 0) - 20).toBe(r.timelineDropped);
    const t = toChromeTrace(all.timeline ?? [], {});
    expect(t.otherData.ranks).toBe(16);
    expect(checkPairs(t)).toBe(15);
    expect(t.traceEvents.some((e) => e.tid === 'nic' && e.cat === 'send')).toBe(true);
  });

  it('1,024 ranks: every message paired, quickly', () => {
    const t0 = performance.now();
    const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: alc, procs: 1024, ppn: 2, bytes: 64, noise: parseNoise('periodic:10us/3us'), timeline: true });
    const t = toChromeTrace(r.timeline ?? [], { procs: 1024 });
    expect(checkPairs(t)).toBe(10240);
    expect(t.traceEvents.length).toBeGreaterThan(30_000);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('coll sim --trace', () => {
  captureConsole();
  it('writes the tagged trace; --timeline is the same option', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-sim-trace-'));
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    const args = ['sim', 'bcast', '-m', 'alc', '-n', '8', '--ppn', '2', '--noise', 'periodic:10us/3us', '-q'];
    expect(await main([...args, '--trace', a])).toBe(0);
    expect(await main([...args, '--timeline', b])).toBe(0);
    const t = JSON.parse(readFileSync(a, 'utf8')) as ChromeTrace;
    expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));
    expect(t.otherData).toMatchObject({ format: 'collectives-timeline', version: 1, source: 'sim', ranks: 8, procs: 8, collective: 'bcast', algorithm: 'binomial', machine: 'alc', noise: 'periodic:10us/3us', dropped: 0 });
    expect(checkPairs(t)).toBe(7);
    expect(t.traceEvents.some((e) => e.cat === 'noise')).toBe(true);
    expect(await main([...args, '--trace', a, '--timeline', b])).toBe(2);
    expect(await main([...args, '--trace-limit', '5'])).toBe(2);
  });
});
