/** The one table helper (src/core/table.ts) the CLI, benchmarks, experiments and tuner print with. */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/core/table.js';

describe('formatTable', () => {
  it('pads every column to its widest cell, aligned per column, two spaces apart', () => {
    const rows = [
      ['algorithm', 'bytes', 'avg us'],
      ['binomial', '8', '12.50'],
      ['recursive_doubling', '1048576', '2345.68'],
    ];
    expect(formatTable(rows, { align: ['l'], others: 'r', rule: true })).toEqual([
      'algorithm             bytes   avg us',
      '------------------  -------  -------',
      'binomial                  8    12.50',
      'recursive_doubling  1048576  2345.68',
    ]);
  });

  it('left-aligns by default, trims the end of each line and reads short rows as ending in empty cells', () => {
    expect(formatTable([['a', 'bb', 'c'], ['aaa', ''], ['x']])).toEqual(['a    bb  c', 'aaa', 'x']);
    expect(formatTable([['a', ''], ['bbb', '']], { others: 'r' })).toEqual(['  a', 'bbb']);
  });

  it('counts code points, not UTF-16 units, and honours the gap', () => {
    expect(formatTable([['µs', '—'], ['ms', '12']], { align: ['l', 'r'], gap: 1 })).toEqual(['µs  —', 'ms 12']);
    expect(formatTable([['𝑥', 'y'], ['ab', 'c']], { gap: 1 })).toEqual(['𝑥  y', 'ab c']);
  });

  it('gives nothing for no rows', () => {
    expect(formatTable([])).toEqual([]);
    expect(formatTable([], { rule: true })).toEqual([]);
  });
});
