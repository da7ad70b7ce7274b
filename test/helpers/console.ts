/**
 * Test helper: what the CLI prints, captured per test. `out` collects console.log and
 * process.stdout writes, `err` console.error (and process.stderr writes are dropped
 * with `{ quietStderr: true }`); both are emptied before each test (clear() empties
 * them in the middle of one).
 */
import { afterEach, beforeEach, vi } from 'vitest';

export interface Captured {
  readonly out: string[];
  readonly err: string[];
  clear(): void;
}

export function captureConsole(o: { quietStderr?: boolean } = {}): Captured {
  const c: Captured = {
    out: [],
    err: [],
    clear() {
      c.out.length = 0;
      c.err.length = 0;
    },
  };
  beforeEach(() => {
    c.clear();
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void c.out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void c.err.push(a.join(' ')));
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
      c.out.push(String(s));
      return true;
    });
    if (o.quietStderr) vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());
  return c;
}
