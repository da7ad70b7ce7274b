/** The CLI's argument habits: sizes with units, -np, suggestions, --version, bare `coll bench`. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseArgs, parseSize, type OptionSpec } from '../../src/cli/args.js';
import { main } from '../../src/cli/main.js';
import { ArgumentError } from '../../src/core/errors.js';

const SPECS: OptionSpec[] = [
  { name: 'np', alias: 'n', type: 'number', description: 'ranks' },
  { name: 'max-bytes', type: 'bytes', description: 'size' },
  { name: 'json', type: 'boolean', description: 'json' },
];

describe('parseSize', () => {
  it('reads units in every spelling, binary', () => {
    const cases: [string, number][] = [
      ['8', 8], ['8B', 8], ['1k', 1024], ['1K', 1024], ['4KB', 4096], ['64KiB', 65536], ['1M', 1 << 20],
      ['1MB', 1 << 20], ['4MiB', 4 << 20], ['1G', 1 << 30], ['1.5K', 1536], ['0', 0], [' 2 KiB ', 2048],
    ];
    for (const [s, v] of cases) expect(parseSize('max-bytes', s), s).toBe(v);
  });

  it('rejects what is not a whole number of bytes, naming the option', () => {
    for (const s of ['', 'abc', '-1', '1.3', '1KX', '1T', '0x10']) expect(() => parseSize('max-bytes', s), s).toThrow(/--max-bytes needs a size in bytes/);
  });
});

describe('parseArgs', () => {
  it('takes sizes with units for bytes options', () => {
    expect(parseArgs(['--max-bytes', '1M'], SPECS).values.get('max-bytes')).toEqual([1 << 20]);
    expect(parseArgs(['--max-bytes=64KiB'], SPECS).values.get('max-bytes')).toEqual([65536]);
  });

  it('accepts -np as --np, as mpirun does, next to -n', () => {
    expect(parseArgs(['-np', '4', 'prog.js'], SPECS).values.get('np')).toEqual([4]);
    expect(parseArgs(['-n', '3'], SPECS).values.get('np')).toEqual([3]);
  });

  it('suggests the closest option for a misspelt one', () => {
    expect(() => parseArgs(['--max-byte', '1'], SPECS)).toThrow(/unknown option '--max-byte'; did you mean --max-bytes\?/);
    expect(() => parseArgs(['--jsno'], SPECS)).toThrow(/did you mean --json\?/);
    try {
      parseArgs(['--frobnicate'], SPECS);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ArgumentError);
      expect((e as Error).message.split('\n')[0]).toBe("unknown option '--frobnicate'");
    }
  });
});

describe('coll', () => {
  let out: string[];
  let err: string[];
  beforeEach(() => {
    out = [];
    err = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());

  it('--version and -V print the package version', async () => {
    expect(await main(['--version'])).toBe(0);
    expect(await main(['-V'])).toBe(0);
    expect(out[0]).toMatch(/^coll \d+\.\d+\.\d+ \(Node\.js \d+/);
    expect(out[1]).toBe(out[0]);
  });

  it('suggests the closest command', async () => {
    expect(await main(['bnech'])).toBe(2);
    expect(err.join('\n')).toContain("unknown command 'bnech'; did you mean 'bench'?");
  });

  it('bench without a collective prints its usage (exit 2)', async () => {
    expect(await main(['bench'])).toBe(2);
    expect(err.join('\n')).toMatch(/^usage: coll bench matrix/);
    expect(err.join('\n')).toContain('--max-bytes <size>');
  });

  it('bench rejects a misspelt size unit with the accepted forms', async () => {
    expect(await main(['bench', 'allreduce', '--max-bytes', '1Q'])).toBe(2);
    expect(err.join('\n')).toContain('--max-bytes needs a size in bytes (a whole number, optionally with a unit: 64K, 64KiB, 1M, 4MiB)');
  });
});
