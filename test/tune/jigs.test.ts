/**
 * The measurement jigs: parsing of their COLLFIT output (robust to prefixes and
 * other lines, strict about malformed records), fits on synthetic jig output that
 * recover known parameters, and one short real run of each jig checked for
 * structure and sanity only (no timing thresholds).
 */
import { describe, expect, it } from 'vitest';
import { serialReduction } from '../../src/model/lrc.js';
import { prng as seededRandom } from '../../src/core/random.js';
import { fitPingPong, fitSerialReduction, fitTestjig, type SerialPoint } from '../../src/tune/fit.js';
import { NOP_SERIES } from '../../src/tune/fit-plan.js';
import { JigError, parseJigOutput, type JigRecord } from '../../src/tune/jigs/protocol.js';
import { runJig } from '../../src/tune/jigs/run.js';

const rnd = seededRandom(7);
const noise = (v: number, amp = 0.01): number => v * (1 + amp * (2 * rnd() - 1));
const line = (r: JigRecord): string => `[0] COLLFIT ${JSON.stringify(r)}`;

describe('jig output parsing', () => {
  it('takes marked lines with the launcher prefix, skips other output', () => {
    const out = ['[1] hello', line({ jig: 'pingpong', bytes: 8, seconds: 1e-6, reps: 10, spread: 0.1 }), '', '[0] done', line({ jig: 'pingpong', bytes: 64, seconds: 2e-6, reps: 10, spread: 0 })].join('\n');
    expect(parseJigOutput(out, 'pingpong').map((r) => r.bytes)).toEqual([8, 64]);
  });

  it('malformed, wrong-kind or missing records are JigErrors naming the problem', () => {
    expect(() => parseJigOutput('[0] COLLFIT {"jig":"pingpong",', 'pingpong')).toThrow(/line 1 is not valid JSON/);
    expect(() => parseJigOutput('[0] COLLFIT {"jig":"pingpong","bytes":8,"seconds":-1,"reps":1,"spread":0}', 'pingpong')).toThrow(/'seconds' must be a finite number ≥ 0/);
    expect(() => parseJigOutput('[0] COLLFIT {"jig":"serial","P":2,"series":"sum","seconds":1,"reps":1,"spread":0}', 'serial')).toThrow(/'series' must be "op\/dtype\/count"/);
    expect(() => parseJigOutput(line({ jig: 'nbl', L: 1, S: 60, seconds: 1e-5, reps: 3, spread: 0 }), 'pingpong')).toThrow(/expected a 'pingpong' record, got 'nbl'/);
    expect(() => parseJigOutput('[0] nothing here\n', 'serial')).toThrow(JigError);
  });
});

describe('fits on synthetic jig output recover known parameters', () => {
  it('ping-pong: α = 12 µs, β = 1/(2 GB/s) over 0 B … 4 MiB with ±1% noise', () => {
    const sizes = [0, 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20];
    const out = sizes.map((b) => line({ jig: 'pingpong', bytes: b, seconds: noise(12e-6 + b * 0.5e-9), reps: 50, spread: 0.05 })).join('\n');
    const recs = parseJigOutput(out, 'pingpong');
    const f = fitPingPong(recs.map((r) => ({ x: r.bytes, seconds: r.seconds })), { relative: true });
    expect(f.alpha / 12e-6).toBeCloseTo(1, 1);
    expect(f.beta / 0.5e-9).toBeCloseTo(1, 1);
    expect(f.fit.residuals).toHaveLength(sizes.length);
    expect(f.fit.maxRelResidual).toBeLessThan(0.03);
  });

  it('serial reduction: r, c per series and C from P = 2..8 (seed 000 §3.2.1)', () => {
    const truth = { L: 4e-6, r: 2.5e-6, C: 6e-6 };
    const cOf: Record<string, number> = { [NOP_SERIES]: 0, 'sum/float64/1': 0.2e-6, 'max/int32/8': 0.6e-6 };
    const lines: string[] = [];
    for (const series of Object.keys(cOf)) {
      for (let P = 2; P <= 8; P++) lines.push(line({ jig: 'serial', P, series, seconds: noise(serialReduction(P, { ...truth, c: cOf[series] }), 0.002), reps: 100, spread: 0.1 }));
    }
    const by: Record<string, SerialPoint[]> = {};
    for (const r of parseJigOutput(lines.join('\n'), 'serial')) (by[r.series] ??= []).push({ P: r.P, seconds: r.seconds });
    const f = fitSerialReduction(by, NOP_SERIES);
    expect(f.r / truth.r).toBeCloseTo(1, 1);
    expect(f.c['max/int32/8'] / 0.6e-6).toBeCloseTo(1, 0);
    expect((f.CplusL[NOP_SERIES] - truth.L) / truth.C).toBeCloseTo(1, 1);
  });

  it('NBL testjig: f(L) = dT(L)/dT(1) of seed 004 Table 1 design (L = 1, 2, 4, 6; S = 60 … 600)', () => {
    const f = { 1: 1, 2: 1.6, 4: 2.9, 6: 4.1 } as const;
    const lines: string[] = [];
    for (const L of [1, 2, 4, 6] as const) for (const S of [60, 120, 300, 600]) lines.push(line({ jig: 'nbl', L, S, seconds: noise(L * 50e-6 + f[L] * 1.5e-6 * S, 0.001), reps: 70, spread: 0.1 }));
    const fit = fitTestjig(parseJigOutput(lines.join('\n'), 'nbl'));
    for (const L of [2, 4, 6] as const) expect(fit.f[L] / f[L]).toBeCloseTo(1, 1);
    expect(fit.differences).toHaveLength(3);
  });
});

describe('jigs on the runtime (structure and sanity, not timing)', () => {
  it('ping-pong thread↔thread and over TCP: a record per size, positive α and β', async () => {
    const sizes = [0, 1024, 4 << 20];
    for (const nodes of [1, 2]) {
      const recs = await runJig('pingpong', { ranks: 2, nodes, timeoutMs: 60_000, config: { sizes, batches: 3, seconds: 0.03 } });
      expect(recs.map((r) => r.bytes)).toEqual(sizes);
      for (const r of recs) expect(r.seconds).toBeGreaterThan(0);
      const f = fitPingPong(recs.map((r) => ({ x: r.bytes, seconds: r.seconds })), { relative: true });
      expect(f.alpha).toBeGreaterThan(0);
      expect(f.beta).toBeGreaterThan(0);
    }
  }, 30_000);

  it('serial-reduction and NBL testjigs: one record per point of the plan', async () => {
    const serial = await runJig('serial', { ranks: 3, nodes: 1, timeoutMs: 60_000, config: { procs: [2, 3], series: [NOP_SERIES, 'sum/int32/2'], reps: 5 } });
    expect(serial.map((r) => `${r.P}:${r.series}`)).toEqual([`2:${NOP_SERIES}`, '2:sum/int32/2', `3:${NOP_SERIES}`, '3:sum/int32/2']);
    const nbl = await runJig('nbl', { ranks: 4, nodes: 1, timeoutMs: 60_000, config: { links: [1, 2, 4, 6], sizes: [60, 600], reps: 2, batch: 2 } });
    expect(nbl.map((r) => `${r.L}:${r.S}`)).toEqual(['1:60', '1:600', '2:60', '2:600', '4:60', '4:600', '6:60', '6:600']);
    for (const r of [...serial, ...nbl]) expect(r.seconds).toBeGreaterThan(0);
  }, 30_000);

  it('LogGP jig over TCP: a record per size with the time in send, in recv and the gap', async () => {
    const recs = await runJig('loggp', { ranks: 2, nodes: 2, timeoutMs: 60_000, config: { sizes: [0, 4096], reps: 5, burst: 4 } });
    expect(recs.map((r) => r.bytes)).toEqual([0, 4096]);
    for (const r of recs) {
      expect(r.oSend).toBeGreaterThan(0);
      expect(r.oRecv).toBeGreaterThan(0);
      // The gap is the burst's time less half the median round trip, clamped at 0: on a
      // loaded machine a burst of 4 small messages can beat half an inflated round trip.
      expect(r.seconds).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(r.seconds)).toBe(true);
      expect(r.rtt).toBeGreaterThan(0);
    }
  }, 30_000);

  it('a failing job is a JigError with the rank’s reason', async () => {
    await expect(runJig('pingpong', { ranks: 3, nodes: 1, timeoutMs: 60_000, config: { sizes: [0], batches: 1, seconds: 0.01 } })).rejects.toThrow(/pingpong jig failed .*needs exactly 2 ranks/);
  }, 30_000);
});
