/**
 * The file API (src/io): views against a brute-force element map; seeded plans of
 * independent and collective writes under random views, offsets and counts (empty
 * ranks included), on 1–5 ranks in 1–2 node processes, whose file must equal the
 * sequential reference byte for byte and read back the same through readAtAll, readAt
 * and ireadAt; bad input refused with errors that say what to do.
 */
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { launch } from '../../src/runtime/launcher.js';
import { FileView, type FilePattern } from '../../src/io/view.js';
import { expectedFile, filePlan } from './plan.js';

const program = fileURLToPath(new URL('./programs/file-io.ts', import.meta.url));
const errorsProgram = fileURLToPath(new URL('./programs/file-errors.ts', import.meta.url));

/** Byte offsets of elements [offset, offset + count) of a view, by walking the pattern element by element. */
function bruteForce(disp: number, esize: number, f: FilePattern, offset: number, count: number): number[] {
  const holes: boolean[] = [];
  let extent = 1;
  if (f.kind === 'contiguous') holes.push(false);
  else if (f.kind === 'vector') {
    extent = f.stride;
    for (let i = 0; i < extent; i++) holes.push(i >= f.blocklength);
  } else {
    const [R, C] = f.sizes;
    extent = R * C;
    for (let i = 0; i < extent; i++) {
      const r = Math.floor(i / C);
      const c = i % C;
      holes.push(!(r >= f.starts[0] && r < f.starts[0] + f.subsizes[0] && c >= f.starts[1] && c < f.starts[1] + f.subsizes[1]));
    }
  }
  const out: number[] = [];
  let seen = 0;
  for (let e = 0; out.length < count; e++) {
    if (holes[e % extent]) continue;
    if (seen++ >= offset) out.push(disp + e * esize);
  }
  return out;
}

const pattern = fc.oneof(
  fc.constant<FilePattern>({ kind: 'contiguous' }),
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 6 })).map(([b, extra]): FilePattern => ({ kind: 'vector', blocklength: b, stride: b + extra })),
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), fc.nat(3), fc.nat(4))
    .map(([R, C, a, b]): FilePattern => {
      const r0 = a % R;
      const c0 = b % C;
      return { kind: 'subarray', sizes: [R, C], subsizes: [1 + ((a + b) % (R - r0)), 1 + (b % (C - c0))], starts: [r0, c0] };
    }),
);

describe('file views', () => {
  it('map view offsets to the file bytes a brute-force walk of the pattern gives (property)', () => {
    fc.assert(
      fc.property(pattern, fc.nat(64), fc.nat(40), fc.nat(50), fc.constantFrom(1, 4, 8), (f, disp, offset, count, esize) => {
        const v = new FileView({ disp, etype: esize === 1 ? 'uint8' : esize === 4 ? 'float32' : 'float64', filetype: f });
        const bytes = v.runs(offset, count).flatMap((r) => Array.from({ length: r.bytes / esize }, (_, i) => r.offset + i * esize));
        expect(bytes).toEqual(bruteForce(disp, esize, f, offset, count));
      }),
      { numRuns: 300 },
    );
  });

  it('refuse patterns that make no sense', () => {
    expect(() => new FileView({ filetype: { kind: 'vector', blocklength: 4, stride: 2 } })).toThrow(/1 ≤ blocklength ≤ stride/);
    expect(() => new FileView({ filetype: { kind: 'subarray', sizes: [2, 2], subsizes: [2, 2], starts: [1, 0] } })).toThrow(/tile inside the array/);
    expect(() => new FileView({ disp: -1 })).toThrow(/view displacement/);
  });
});

describe('openFile on real ranks', () => {
  // Seeds 11, 13, 14: collective buffering never, always, never (the program picks by seed mod 3; auto in pfs.test.ts), with 2, 2, 1 aggregators per node.
  const cases: [number, number, number][] = [
    [1, 1, 11],
    [4, 2, 13],
    [5, 2, 14],
  ];
  for (const [ranks, nodes, seed] of cases) {
    it(`${ranks} rank(s) on ${nodes} node(s), seed ${seed}: the file is the sequential reference, read back alike by every call`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'coll-io-'));
      const path = join(dir, 'f.bin');
      const r = await launch({ ranks, nodes, program, args: [String(seed), path, '8'], jobTimeoutMs: 120_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      const reports = r.stdout.split('\n').filter((l) => l.includes('REPORT '));
      expect(reports).toHaveLength(ranks);
      expect(reports.every((l) => l.includes('"failures":[]')), reports.join('\n')).toBe(true);
      expect(new Uint8Array(readFileSync(path))).toEqual(expectedFile(filePlan(seed, ranks, 8), ranks));
      rmSync(dir, { recursive: true, force: true });
    }, 120_000);
  }

  it("bad input: a missing file, a directory, a read past the end, a negative offset, a read-only write, a partial element (and 'w' reads what it wrote)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-io-'));
    mkdirSync(join(dir, 'sub'));
    const r = await launch({ ranks: 2, nodes: 1, program: errorsProgram, args: [dir], jobTimeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // Each rank's lines in order (ranks' lines may interleave in the job's output).
    const rank = (k: number): string => r.stdout.split('\n').filter((l) => l.startsWith(`[${k}] `)).join('\n');
    const out = `${rank(0)}\n${rank(1)}`;
    expect(out).toMatch(/\[0\] missing: FileError: cannot open .*nope\.bin \(r\): ENOENT[^\n]*\n\[0\]\s+hint: the file must exist for modes r and rw/);
    expect(out).toMatch(/\[1\] directory: FileError: cannot open .*sub \(rw\): .*sub is a directory\n\[1\]\s+hint: give the path of a file/);
    expect(out).toMatch(/\[0\] past end: ArgumentError: read of bytes 8–24 past the end of .*small\.bin \(16 bytes\)/);
    expect(out).toMatch(/\[1\] past end all: ArgumentError: readAtAll on .*small\.bin: rank 1 reads bytes 8–24 of a 16-byte file/);
    expect(out).toMatch(/\[0\] past end all: ArgumentError: readAtAll on .*small\.bin: rank 1 reads/);
    expect(out).toMatch(/\[0\] read in w mode: ok/);
    expect(out).toMatch(/\[0\] negative: ArgumentError: file offset must be a non-negative integer, got -1/);
    expect(out).toMatch(/\[0\] read-only: ArgumentError: .*small\.bin was opened read-only/);
    expect(out).toMatch(/\[0\] partial: ArgumentError: a buffer of 12 bytes is not a whole number of float64 elements/);
    rmSync(dir, { recursive: true, force: true });
  });
});
