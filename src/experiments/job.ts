/**
 * Driver side of the experiments: launch one of the rank programs of this folder as
 * a job (the same way `coll bench` does) and hand its records to the caller.
 *
 * Rank 0 of an experiment program prints `EXP <KIND> {json}` lines (see
 * program-io.ts); `EXP PROGRESS {"done":d,"total":t}` lines drive the progress
 * indicator; other lines are passed through as output.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CollectivesError } from '../core/errors.js';
import { launch } from '../runtime/launcher.js';

export interface JobLayout {
  readonly ranks: number;
  readonly nodes: number;
  /** Shared arena per node (MiB); default 64. */
  readonly arenaMb?: number;
  /** Kill the job after this long (ms). */
  readonly jobTimeoutMs?: number;
  /** Extra environment of every job (overrides the experiment's own variables). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Before each job, wait (up to `idleWaitMs`, default 60 s) until the machine's CPUs
   * are at most this busy over one second (0..1; /proc/stat): the experiments share
   * the machine with other work. Undefined = start at once.
   */
  readonly idleBusy?: number;
  readonly idleWaitMs?: number;
}

export interface JobHooks {
  /** Progress of the running job. */
  onProgress?(done: number, total: number): void;
  /** Lines of the job that are not experiment records (warnings, errors). */
  onOutput?(line: string): void;
}

export type ProgramName = 'noise-program' | 'skew-program' | 'overlap-program';

const LINE = /^\[0\] EXP ([A-Z]+) (\{.*\})$/;

export interface ProgramRun {
  /** Records by kind (SAMPLES, SKEW, ...), in output order. */
  readonly records: Map<string, unknown[]>;
  /** The machine's 1-minute load average before and after the job (other work on a shared machine). */
  readonly load: readonly [number, number];
  /** CPU busy fraction over the second before the job (NaN when not waited for idle). */
  readonly busyBefore: number;
}

/** The CPU busy fraction of the machine over `ms` (Linux /proc/stat; NaN elsewhere). */
export async function cpuBusy(ms = 1000): Promise<number> {
  const read = (): number[] | undefined => {
    try {
      return readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return undefined;
    }
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  if (!a || !b) return NaN;
  const d = b.map((v, i) => v - (a[i] ?? 0));
  const total = d.reduce((x, y) => x + y, 0);
  const idle = (d[3] ?? 0) + (d[4] ?? 0); // idle + iowait
  return total > 0 ? 1 - idle / total : NaN;
}

/** Wait until the machine is at most `maxBusy` busy (checked every second), up to `timeoutMs`; the last reading. */
export async function waitForIdle(maxBusy: number, timeoutMs = 60_000): Promise<number> {
  const t0 = Date.now();
  let b = await cpuBusy();
  while (b > maxBusy && Date.now() - t0 < timeoutMs) b = await cpuBusy();
  return b;
}

/** Run a rank program of src/experiments with a JSON config; resolves with its records by kind. */
export async function runProgram(
  name: ProgramName,
  config: object,
  layout: JobLayout,
  env: Readonly<Record<string, string>>,
  hooks: JobHooks = {},
): Promise<ProgramRun> {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./${name}.${ext}`, import.meta.url));
  const records = new Map<string, unknown[]>();
  const busyBefore = layout.idleBusy !== undefined ? await waitForIdle(layout.idleBusy, layout.idleWaitMs) : NaN;
  const before = loadavg()[0];
  const jobEnv = { ...env, ...layout.env };
  const running = launch({
    ranks: layout.ranks,
    nodes: layout.nodes,
    program,
    args: [JSON.stringify(config)],
    arenaMb: layout.arenaMb ?? 64,
    env: jobEnv,
    jobTimeoutMs: layout.jobTimeoutMs,
    onLine: (_stream, line) => {
      const m = LINE.exec(line);
      if (!m) {
        hooks.onOutput?.(line);
        return;
      }
      const data = JSON.parse(m[2]) as unknown;
      if (m[1] === 'PROGRESS') {
        const p = data as { done: number; total: number };
        hooks.onProgress?.(p.done, p.total);
        return;
      }
      const list = records.get(m[1]) ?? [];
      list.push(data);
      records.set(m[1], list);
    },
  });
  const r = await running;
  if (r.exitCode !== 0) {
    throw new CollectivesError('RANK_FAILED', `the ${name.replace('-program', '')} experiment job failed: ${r.failure ? `rank ${r.failure.rank}: ${r.failure.reason}` : `exit code ${r.exitCode}`}`);
  }
  return { records, load: [before, loadavg()[0]], busyBefore };
}

/** Float32 samples as base64 (compact transport of 10^5 samples on one output line). */
export function encodeSamples(xs: ArrayLike<number>): string {
  return Buffer.from(Float32Array.from(xs).buffer).toString('base64');
}

export function decodeSamples(text: string): Float64Array {
  const b = Buffer.from(text, 'base64');
  const f = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return Float64Array.from(f);
}
