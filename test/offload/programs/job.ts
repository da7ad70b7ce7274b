/**
 * Test helper for the offload-engine jobs: launch a rank program (a path relative to
 * this directory, so test/runtime/programs/offload.ts is '../../runtime/programs/offload.ts')
 * and collect the REPORT lines of test/runtime/programs/cases.ts's `Report`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { launch } from '../../../src/runtime/launcher.js';
import type { JobResult } from '../../runtime/job.js';

export type { JobResult } from '../../runtime/job.js';

export interface JobOptions {
  ranks: number;
  nodes?: number;
  args?: string[];
  env?: Record<string, string>;
  /** Run offload engines (default: launch()'s default, true). */
  engine?: boolean;
  nodeArgs?: string[];
}

/** A maker of fresh temporary directories (for marker files), removed after the test file. */
export function markerDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), 'coll-offload-'));
    dirs.push(d);
    return d;
  };
}

/** A path inside test/offload/programs. */
export function programPath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

export async function runJob(program: string, o: JobOptions): Promise<JobResult> {
  const r = await launch({
    ranks: o.ranks,
    nodes: o.nodes ?? 1,
    program: programPath(program),
    args: o.args ?? [],
    env: { REPORT_MAX: '50', ...o.env },
    arenaMb: 64,
    jobTimeoutMs: 170_000,
    ...(o.engine !== undefined ? { engine: o.engine } : {}),
    ...(o.nodeArgs ? { nodeArgs: o.nodeArgs } : {}),
  });
  const reports = r.stdout
    .split('\n')
    .filter((l) => l.includes('REPORT '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as JobResult['reports'][number])
    .sort((a, b) => a.rank - b.rank);
  return { ...r, reports };
}

/** Whether a process id is gone (kill(pid, 0) fails with ESRCH). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
