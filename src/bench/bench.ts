/**
 * Benchmark driver: launches bench-main.ts (bench-program.ts) as a job and collects its records
 * (used by `coll bench`), plus the table and latency-vs-size plot renderers.
 */
import { fileURLToPath } from 'node:url';
import { CollectivesError } from '../core/errors.js';
import { formatTable } from '../core/table.js';
import { lineChartSvg } from '../plot/svg.js';
import { launch } from '../runtime/launcher.js';
import { sizesFor, type BenchConfig, type BenchRecord } from './bench-program.js';

export interface BenchJob extends BenchConfig {
  readonly ranks: number;
  readonly nodes: number;
  readonly arenaMb?: number;
  /** Extra environment of the job (e.g. COLL_DECISION_TABLE='' for the built-in selection). */
  readonly env?: Readonly<Record<string, string>>;
  /** How the node processes talk (launcher.ts; default tcp). */
  readonly transport?: 'tcp' | 'mpi';
}

export interface BenchProgress {
  /** Measurements done (including skipped ones) and planned. */
  readonly done: number;
  readonly total: number;
  readonly last: string;
}

export interface BenchResult {
  readonly records: BenchRecord[];
  readonly skipped: { requested: string; bytes: number; reason: string }[];
}

/**
 * Arena for a benchmark job (MiB): every rank's slice must hold its send and receive
 * buffers from comm.alloc — P blocks of the largest size for allgather, gather and
 * alltoall — plus room for schedule scratch; at least the usual 256 MiB.
 */
export function benchArenaMb(job: Pick<BenchJob, 'ranks' | 'nodes'> & BenchConfig): number {
  const largest = Math.max(...sizesFor(job));
  const perNode = Math.ceil(job.ranks / job.nodes);
  const slice = 2 * (job.ranks + 1) * largest;
  return Math.max(256, Math.ceil(((perNode + 1) * slice) / (1 << 20)));
}

export async function runBenchJob(job: BenchJob, onProgress?: (p: BenchProgress) => void, onOutput?: (line: string) => void): Promise<BenchResult> {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./bench-main.${ext}`, import.meta.url));
  const config: BenchConfig = {
    collective: job.collective,
    algorithms: job.algorithms,
    minBytes: job.minBytes,
    maxBytes: job.maxBytes,
    iterations: job.iterations,
    warmup: job.warmup,
    shared: job.shared,
    datatype: job.datatype,
    op: job.op,
    modes: job.modes,
    sizes: job.sizes,
    nonblocking: job.nonblocking,
    communicator: job.communicator,
    cases: job.cases,
    repetitions: job.repetitions,
  };
  const records: BenchRecord[] = [];
  const skipped: BenchResult['skipped'] = [];
  let total = 0;
  let done = 0;
  const r = await launch({
    ranks: job.ranks,
    nodes: job.nodes,
    program,
    args: [JSON.stringify(config)],
    arenaMb: job.arenaMb ?? benchArenaMb(job),
    ...(job.env ? { env: job.env } : {}),
    ...(job.transport ? { transport: job.transport } : {}),
    onLine: (stream, line) => {
      const m = /^\[0\] (PLAN|BENCH|SKIP) (\{.*\})$/.exec(line);
      if (!m) {
        onOutput?.(line);
        return;
      }
      const data = JSON.parse(m[2]) as Record<string, unknown>;
      if (m[1] === 'PLAN') total = data.measurements as number;
      else {
        done++;
        if (m[1] === 'BENCH') records.push(data as unknown as BenchRecord);
        else skipped.push(data as unknown as BenchResult['skipped'][number]);
        onProgress?.({ done, total, last: `${String(data.requested)} ${String(data.bytes)} B` });
      }
    },
  });
  if (r.exitCode !== 0) {
    throw new CollectivesError('RANK_FAILED', `the benchmark job failed: ${r.failure ? `rank ${r.failure.rank}: ${r.failure.reason}` : `exit code ${r.exitCode}`}`);
  }
  return { records, skipped };
}

/** A fixed-width table, one row per measurement. */
export function benchTable(records: readonly BenchRecord[]): string {
  const head = ['algorithm', 'bytes', 'iters', 'min us', 'avg us', 'max us'];
  const rows = records.map((r) => [r.algorithm, String(r.bytes), String(r.iterations), r.min_us.toFixed(2), r.avg_us.toFixed(2), r.max_us.toFixed(2)]);
  return formatTable([head, ...rows], { align: ['l'], others: 'r', rule: true }).join('\n');
}

/** Latency (avg over ranks) vs message size, one line per algorithm, log-log. */
export function benchPlot(records: readonly BenchRecord[], title: string): string {
  const series = new Map<string, [number, number][]>();
  for (const r of records) {
    const name = r.mode !== 'host' || r.requested !== 'auto' ? r.algorithm : 'auto';
    if (!series.has(name)) series.set(name, []);
    (series.get(name) as [number, number][]).push([Math.max(1, r.bytes), r.avg_us]);
  }
  return lineChartSvg({
    title,
    x: { label: 'message size (bytes per rank)', log: true },
    y: { label: 'latency (µs, mean over ranks)', log: true },
    series: [...series].map(([name, points]) => ({ name, points })),
  });
}
