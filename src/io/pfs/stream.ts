/**
 * A stream cut into consecutive pieces (a request's memory parts on the client, its
 * datafile regions on the server): which pieces hold which stream bytes. Both sides
 * move a transfer chunk by chunk, each chunk a range of the stream, and copy or
 * write each piece's share of it in place.
 */
export class StreamPieces {
  /** Stream offset where each piece starts. */
  private readonly starts: number[] = [];
  readonly length: number;

  constructor(private readonly lengths: readonly number[]) {
    let at = 0;
    for (const n of lengths) {
      this.starts.push(at);
      at += n;
    }
    this.length = at;
  }

  /** f(i, from, to, into) for each piece i holding stream bytes [from, to) of [at, end), `into` bytes into the piece. */
  forEach(at: number, end: number, f: (i: number, from: number, to: number, into: number) => void): void {
    const s = this.starts;
    // The last piece starting at or before `at` (binary search), then on while pieces start before `end`.
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    for (let i = lo; i < s.length && s[i] < end; i++) {
      const from = Math.max(at, s[i]);
      const to = Math.min(end, s[i] + this.lengths[i]);
      if (to > from) f(i, from, to, from - s[i]);
    }
  }
}
