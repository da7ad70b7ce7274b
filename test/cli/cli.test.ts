/** The `coll` CLI, run in-process through main(). */
import { describe, expect, it } from 'vitest';
import { captureConsole } from '../helpers/console.js';
import { main } from '../../src/cli/main.js';
import { listAlgorithms } from '../../src/algorithms/registry.js';
import { COLLECTIVES } from '../../src/schedule/types.js';
import { parseDuration } from '../../src/cli/commands/run.js';

const { out, err } = captureConsole();

describe('coll algorithms', () => {
  it('--json lists every registered algorithm with restrictions, params and cost', async () => {
    expect(await main(['algorithms', '--json'])).toBe(0);
    const list = JSON.parse(out.join('\n')) as { id: string; cost: string; restrictions: unknown[]; params: unknown[] }[];
    const catalogue = listAlgorithms().map((a) => `${a.collective}/${a.name}`);
    const flat = COLLECTIVES.filter((c) => c !== 'scan' && c !== 'exscan').map((c) => `${c}/shm_flat`);
    const direct = COLLECTIVES.filter((c) => c !== 'barrier' && c !== 'scan' && c !== 'exscan').map((c) => `${c}/shm_direct`);
    const mpi = COLLECTIVES.map((c) => `${c}/mpi`);
    expect([...list.map((a) => a.id)].sort()).toEqual([...catalogue, ...flat, ...direct, ...mpi].sort());
    for (const a of list) {
      expect(a.cost.length).toBeGreaterThan(0);
      expect(Array.isArray(a.restrictions)).toBe(true);
      expect(Array.isArray(a.params)).toBe(true);
    }
  });

  it('filters by collective and rejects unknown ones', async () => {
    expect(await main(['algorithms', '--collective', 'allreduce'])).toBe(0);
    expect(out.join('\n')).toContain('allreduce/recursive_doubling');
    expect(out.join('\n')).not.toContain('bcast/binomial');
    expect(await main(['algorithms', '--collective', 'allsum'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown collective 'allsum'/);
  });
});

describe('coll schedule', () => {
  it('renders rounds and statistics', async () => {
    expect(await main(['schedule', 'allreduce', 'recursive_doubling', '-n', '4', '--count', '2', '--stats'])).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/round 0 \(butterfly\): 0<->1\[2\] 2<->3\[2\]/);
    expect(text).toMatch(/messages: 8 \(128 bytes/);
  });

  it('reports unknown algorithms, bad parameters and bad options clearly', async () => {
    expect(await main(['schedule', 'allreduce', 'nope', '-n', '4'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown algorithm 'nope' for allreduce/);
    expect(await main(['schedule', 'reduce', 'fnomial', '-n', '4', '-p', 'f=1'])).toBe(2);
    expect(err.join('\n')).toMatch(/parameter 'f' of 'reduce\/fnomial' must be an integer in \[2/);
    expect(await main(['schedule', 'reduce', 'fnomial', '-n', '4', '-p', 'g=3'])).toBe(2);
    expect(err.join('\n')).toMatch(/has no parameter 'g'/);
    expect(await main(['schedule', 'reduce', 'fnomial', '--bogus'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown option '--bogus'/);
    expect(await main(['frobnicate'])).toBe(2);
  });
});

describe('coll run: checkpoint options', () => {
  it('durations take ms, s, m, h (plain numbers are seconds); bad ones and options without a directory are refused', async () => {
    expect(parseDuration('500ms', 'x')).toBe(500);
    expect(parseDuration('60s', 'x')).toBe(60_000);
    expect(parseDuration('2m', 'x')).toBe(120_000);
    expect(parseDuration('1.5', 'x')).toBe(1500);
    expect(() => parseDuration('soon', '--checkpoint-every')).toThrow(/--checkpoint-every 'soon' is not a positive duration/);
    expect(() => parseDuration('0s', '--checkpoint-every')).toThrow(/not a positive duration/);
    expect(await main(['run', '-n', '2', '--checkpoint-every', '1s', 'examples/allreduce.ts'])).toBe(2);
    expect(err.join('\n')).toMatch(/--checkpoint-every and --checkpoint-keep need --checkpoint-dir DIR/);
    expect(await main(['run', '-n', '2', '--max-restarts', '2', 'examples/allreduce.ts'])).toBe(2);
    expect(err.join('\n')).toMatch(/--max-restarts needs checkpoints to restart from/);
  });
});
