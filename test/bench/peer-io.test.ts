/**
 * The MPI-IO peer (src/bench/peer/mpi_io_bench.c through peer-io.ts): two ranks
 * write, read back and verify a shared file in both patterns, one record per
 * repetition, and leave nothing behind. Skipped without Open MPI.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/core/errors.js';
import { peerAvailable } from '../../src/bench/peer.js';
import { runPeerIo, type PeerIoPattern } from '../../src/bench/peer-io.js';

const dir = mkdtempSync(join(tmpdir(), 'collectives-peer-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('peer-io', () => {
  if (!peerAvailable('openmpi')) {
    it.skip('Open MPI (mpicc.openmpi, mpirun.openmpi) is not installed: apt-get install -y openmpi-bin libopenmpi-dev', () => {});
    return;
  }

  it.each<PeerIoPattern>(['contiguous', 'tile'])('%s: 2 ranks x 64 KiB, 2 repetitions, verified, file deleted', async (pattern) => {
    const recs = await runPeerIo('openmpi', { ranks: 2, pattern, bytesPerRank: 65536, reps: 2, dir, elemBytes: pattern === 'tile' ? 32 : undefined });
    expect(recs.map((r) => [r.pattern, r.ranks, r.bytesPerRank, r.collective, r.rep])).toEqual([
      [pattern, 2, 65536, true, 0],
      [pattern, 2, 65536, true, 1],
    ]);
    for (const r of recs) {
      for (const v of [r.write_s, r.write_sync_s, r.read_s, r.write_MBps, r.read_MBps]) {
        expect(Number.isFinite(v) && v > 0, JSON.stringify(r)).toBe(true);
      }
      expect(r.write_sync_s).toBeGreaterThanOrEqual(r.write_s);
      expect(r.write_MBps).toBeCloseTo((2 * 65536) / r.write_s / 1e6, 0);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('independent I/O reports collective: false; a bad tile shape or directory is a clear error', async () => {
    const recs = await runPeerIo('openmpi', { ranks: 2, pattern: 'contiguous', bytesPerRank: 4096, reps: 1, dir, collective: false });
    expect(recs.map((r) => [r.collective, r.rep])).toEqual([[false, 0]]);
    await expect(runPeerIo('openmpi', { ranks: 2, pattern: 'tile', bytesPerRank: 65536 + 32, reps: 1, dir })).rejects.toThrow(/multiple of ELEM_BYTES \* 256/);
    expect(() => runPeerIo('openmpi', { ranks: 2, pattern: 'tile', bytesPerRank: 65536, reps: 1, dir: join(dir, 'missing') })).toThrow(ArgumentError);
    expect(readdirSync(dir)).toEqual([]);
  });
});
