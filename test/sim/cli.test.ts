/** `coll sim`, run in-process through main(). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';

let out: string[];
let err: string[];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => vi.restoreAllMocks());

describe('coll sim', () => {
  it('prints time, per-rank spread, critical path and the closed form', async () => {
    expect(await main(['sim', 'allreduce', '--machine', 'crescendo', '--procs', '64', '--ppn', '2', '--bytes', '8'])).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/allreduce\/recursive_doubling on crescendo: 64 processes \(32 nodes × 2\)/);
    expect(text).toMatch(/critical path {2}ends at rank \d+: /);
    expect(text).toMatch(/closed form ⌊lg P⌋/);
  });

  it('--json gives the report; repeated runs give a distribution', async () => {
    expect(await main(['sim', 'barrier', '-m', 'es40', '-n', '64', '-a', 'hw_barrier', '--traffic', 'uniform', '--runs', '4', '--json'])).toBe(0);
    const r = JSON.parse(out.join('\n')) as { runs: number; distribution: { n: number; mean: number }; first: { busy: { trafficPackets: number } } };
    expect(r.runs).toBe(4);
    expect(r.distribution.n).toBe(4);
    expect(r.distribution.mean).toBeGreaterThan(4e-6);
    expect(r.first.busy.trafficPackets).toBeGreaterThan(0);
  });

  it('writes a Chrome-trace timeline and reads a machine file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-sim-'));
    const machine = join(dir, 'm.json');
    writeFileSync(machine, JSON.stringify({ base: 'crescendo', name: 'mine', classes: { network: { alpha: '1us' } } }));
    const tl = join(dir, 'tl.json');
    expect(await main(['sim', 'reduce', '-m', machine, '-n', '8', '--mode', 'offload', '--timeline', tl, '--datatype', 'int32', '--bytes', '4'])).toBe(0);
    expect(out.join('\n')).toMatch(/reduce\/binomial on mine: .* offload mode/);
    const trace = JSON.parse(readFileSync(tl, 'utf8')) as { traceEvents: { tid: string; name: string }[] };
    expect(trace.traceEvents.some((e) => e.tid === 'nic' && e.name === 'reduce')).toBe(true);
  });

  it('bad input: exit code 2 and a message naming the problem', async () => {
    expect(await main(['sim', 'allreduce', '-m', 'crescendo', '-n', '100', '--ppn', '2'])).toBe(2);
    expect(err.join('\n')).toMatch(/cannot host 100 processes/);
    expect(await main(['sim', 'allreduce', '-m', 'nowhere', '-n', '4'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown machine 'nowhere'/);
    expect(await main(['sim', 'allreduce', '-m', 'crescendo', '-n', '4', '--noise', 'periodic:1ms'])).toBe(2);
    expect(err.join('\n')).toMatch(/needs <kind>:<interval>\/<duration>/);
    expect(await main(['sim', 'allreduce', '-m', 'delta', '-n', '4', '--mode', 'offload'])).toBe(2);
    expect(err.join('\n')).toMatch(/no 'nic' section/);
  });
});
