/**
 * The benchmark's rank program is bench-main.ts: importing the package (which imports
 * bench-program.ts for the tuner's measured check) must never start a benchmark, even
 * in a rank program whose first argument is JSON (the jigs' programs are).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('bench-main', () => {
  it("importing the package never starts a benchmark, whatever the program's arguments", () => {
    const program = fileURLToPath(new URL('./programs/import-only.ts', import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', program, '{"collective":"allreduce"}'], { encoding: 'utf8', env: { ...process.env, COLL_RANK: '0' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('imported function');
  });
});
