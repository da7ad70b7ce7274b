/**
 * Striping of a `pfs:` file over I/O servers (seed 003 ch. 7, PVFS2's simple stripe):
 * the file is cut into stripes of `stripe` bytes dealt round-robin over `servers`
 * servers; server s keeps its stripes back to back in one datafile, so logical byte x
 * lives on server ⌊x/S⌋ mod N at datafile offset ⌊x/(S·N)⌋·S + x mod S.
 *
 * `split` turns a list of logical regions (in the order of a contiguous memory buffer)
 * into one list request per server: the datafile regions, merged where adjacent, and
 * where each piece sits in the buffer. This is the segment intersection of list I/O
 * (A18): no data moves here, only offsets.
 */
import type { Run } from '../view.js';

export interface Layout {
  /** Bytes per stripe. */
  readonly stripe: number;
  /** How many servers the file is striped over (servers 0..servers-1 of the job's list). */
  readonly servers: number;
}

/** One server's part of a list request: datafile regions and, piece by piece, where they sit in memory. */
export interface ServerPart {
  readonly server: number;
  /** Datafile regions [offset, bytes], in the order of `bufAt`. */
  readonly regions: [number, number][];
  /** Offset in the caller's buffer of each region's first byte. */
  readonly bufAt: number[];
  readonly bytes: number;
}

/** Logical regions (buffer order) → one part per server that holds any of their bytes. */
export function split(runs: readonly Run[], l: Layout): ServerPart[] {
  const parts = new Map<number, { regions: [number, number][]; bufAt: number[]; bytes: number }>();
  const { stripe: S, servers: N } = l;
  let at = 0;
  for (const r of runs) {
    let x = r.offset;
    const end = r.offset + r.bytes;
    while (x < end) {
      const k = Math.floor(x / S);
      const n = Math.min(end, (k + 1) * S) - x;
      const server = k % N;
      const local = Math.floor(k / N) * S + (x - k * S);
      let p = parts.get(server);
      if (p === undefined) parts.set(server, (p = { regions: [], bufAt: [], bytes: 0 }));
      const last = p.regions.length - 1;
      // Adjacent in the datafile and in memory: one region.
      if (last >= 0 && p.regions[last][0] + p.regions[last][1] === local && p.bufAt[last] + p.regions[last][1] === at) p.regions[last][1] += n;
      else {
        p.regions.push([local, n]);
        p.bufAt.push(at);
      }
      p.bytes += n;
      at += n;
      x += n;
    }
  }
  return [...parts.entries()].sort((a, b) => a[0] - b[0]).map(([server, p]) => ({ server, ...p }));
}

/** How many bytes of a `size`-byte logical file server `s` holds (its datafile's length after setSize). */
export function localSize(size: number, s: number, l: Layout): number {
  const round = l.stripe * l.servers;
  const full = Math.floor(size / round);
  const rest = size - full * round;
  return full * l.stripe + Math.min(l.stripe, Math.max(0, rest - s * l.stripe));
}

/** The logical end (one past the last byte) that a datafile of `local` bytes on server `s` implies. */
export function logicalEnd(local: number, s: number, l: Layout): number {
  if (local <= 0) return 0;
  const last = local - 1;
  const k = Math.floor(last / l.stripe);
  return (k * l.servers + s) * l.stripe + (last - k * l.stripe) + 1;
}
