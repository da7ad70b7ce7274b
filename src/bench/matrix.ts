/**
 * The benchmark matrix (`coll bench matrix`): every collective × message sizes × rank
 * counts on one node, timed by bench-program.ts and, in the same run, by the MPI
 * program of peer.ts (Open MPI, MPICH), alternating which goes first, repeated; the
 * report gives medians, the ratio collectives / MPI per cell, the geometric mean per
 * rank count, spot checks off the main grid (other datatypes and operators, 3 and 5
 * ranks), and the cost of nonblocking calls and sub-communicators relative to the
 * blocking call on the world communicator. Rendered as markdown (docs/benchmarks.md),
 * JSON and an SVG heat map.
 */
import { findMpiLauncher } from '../runtime/mpi-launch.js';
import { median } from '../core/stats.js';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import type { DatatypeName } from '../core/datatypes.js';
import type { CollectiveKind } from '../schedule/types.js';
import { heatMapSvg } from '../plot/svg.js';
import { runBenchJob } from './bench.js';
import type { BenchCommunicator } from './bench-program.js';
import { runPeer, type PeerMpi } from './peer.js';

export const MATRIX_COLLECTIVES: readonly CollectiveKind[] = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'reduce_scatter', 'gather', 'scatter', 'alltoall'];
export const MATRIX_SIZES: readonly number[] = [8, 64, 1024, 4096, 65536, 1 << 20, 4 << 20];
export const MATRIX_RANKS: readonly number[] = [2, 4, 8];

/** A group of measurements run as one job (one process launch per side and repetition). */
export interface MatrixJob {
  readonly collective: CollectiveKind;
  readonly ranks: number;
  readonly sizes: readonly number[];
  readonly datatype: DatatypeName;
  readonly op: string;
  /** Main grid, spot check (compared with MPI), or variant (compared with our blocking world call). */
  readonly kind: 'grid' | 'spot' | 'variant';
  readonly nonblocking?: boolean;
  readonly communicator?: BenchCommunicator;
}

export interface MatrixOptions {
  readonly collectives?: readonly CollectiveKind[];
  readonly sizes?: readonly number[];
  readonly ranks?: readonly number[];
  readonly peers: readonly PeerMpi[];
  /** Repetitions of every job (default 3). */
  readonly reps?: number;
  /** Iterations for messages up to 16 KiB (default 1000, OSU's). */
  readonly iterations?: number;
  /** Buffers from comm.alloc (default true). */
  readonly shared?: boolean;
  /** Include the spot checks and the nonblocking/sub-communicator variants (default true). */
  readonly extras?: boolean;
  /** Before each repetition wait (≤ 60 s) until the CPUs are at most this busy (default 0.25; 1 = never wait). */
  readonly idle?: number;
  /**
   * Node processes per job (default 1). Above 1 the ranks are spread over that many
   * node processes talking over TCP on loopback, and the peer MPI is held to TCP too
   * (Open MPI: `--mca btl tcp,self`; MPICH: `MPIR_CVAR_NOLOCAL=1`), the anchor of the
   * inter-node matrix.
   */
  readonly nodes?: number;
  /**
   * How our node processes talk (default tcp). 'mpi': through the installed MPI
   * (transport/mpi), started by its mpirun with the same options as the peer's, so that
   * both sides use the same fabric (TCP between node processes).
   */
  readonly transport?: 'tcp' | 'mpi';
  /** The algorithm our side runs (default: automatic selection), e.g. 'mpi' for MPI's own collectives over the MPI transport. */
  readonly algorithm?: string;
}

/** mpirun options that keep a peer MPI off shared memory (every message over TCP). */
export function peerTcpOnly(peer: PeerMpi): string[] {
  return peer === 'openmpi' ? ['--mca', 'btl', 'tcp,self'] : ['-genv', 'MPIR_CVAR_NOLOCAL', '1', '-genv', 'MPIR_CVAR_CH3_NOLOCAL', '1'];
}

export interface MatrixSample {
  readonly impl: 'collectives' | PeerMpi;
  readonly job: MatrixJob;
  readonly bytes: number;
  readonly rep: number;
  readonly avg_us: number;
  readonly algorithm?: string;
}

export interface MatrixProgress {
  readonly done: number;
  readonly total: number;
  readonly what: string;
}

/** `coll bench matrix --json`'s tags (docs/view-formats.md#bench-matrix); files written before them have none. */
export const MATRIX_FORMAT = 'collectives-bench-matrix';
export const MATRIX_VERSION = 1;

export interface MatrixRun {
  readonly format?: typeof MATRIX_FORMAT;
  readonly version?: typeof MATRIX_VERSION;
  readonly started: string;
  readonly finished: string;
  readonly machine: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly options: Required<Omit<MatrixOptions, 'idle' | 'nodes' | 'transport' | 'algorithm'>> & { idle: number; nodes?: number; transport?: 'tcp' | 'mpi'; algorithm?: string };
  readonly samples: MatrixSample[];
}

/** The jobs of a matrix: the grid, then spot checks and variants. */
export function matrixJobs(o: MatrixOptions): MatrixJob[] {
  const collectives = o.collectives ?? MATRIX_COLLECTIVES;
  const sizes = o.sizes ?? MATRIX_SIZES;
  const jobs: MatrixJob[] = [];
  for (const ranks of o.ranks ?? MATRIX_RANKS) {
    for (const collective of collectives) jobs.push({ collective, ranks, sizes: collective === 'barrier' ? [0] : sizes, datatype: 'float64', op: 'sum', kind: 'grid' });
  }
  if (o.extras === false) return jobs;
  // Off the grid: other types and operators, rank counts that are not powers of two.
  const spot = (collective: CollectiveKind, ranks: number, datatype: DatatypeName, op: string, s: number[]): MatrixJob => ({ collective, ranks, sizes: collective === 'barrier' ? [0] : s, datatype, op, kind: 'spot' });
  jobs.push(
    spot('allreduce', 2, 'int32', 'max', [8, 65536]),
    spot('allreduce', 3, 'float64', 'sum', [8, 65536, 1 << 20]),
    spot('allreduce', 5, 'float64', 'sum', [8, 65536]),
    spot('reduce', 3, 'int32', 'max', [8, 65536]),
    spot('bcast', 3, 'float64', 'sum', [8, 65536]),
    spot('allgather', 5, 'float64', 'sum', [8, 65536]),
    spot('barrier', 3, 'float64', 'sum', [0]),
  );
  // Nonblocking calls and sub-communicators, against our own blocking world call.
  for (const collective of collectives) {
    const s = collective === 'barrier' ? [0] : [8, 65536];
    jobs.push({ collective, ranks: 2, sizes: s, datatype: 'float64', op: 'sum', kind: 'variant', nonblocking: true });
    jobs.push({ collective, ranks: 2, sizes: s, datatype: 'float64', op: 'sum', kind: 'variant', communicator: 'dup' });
    jobs.push({ collective, ranks: 2, sizes: s, datatype: 'float64', op: 'sum', kind: 'variant', communicator: 'split' });
    jobs.push({ collective, ranks: 2, sizes: s, datatype: 'float64', op: 'sum', kind: 'variant' });
  }
  return jobs;
}

/** Busy fraction of the CPUs over `ms` (Linux /proc/stat; 0 elsewhere). */
async function busy(ms: number): Promise<number> {
  const read = (): number[] => {
    try {
      return readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return [];
    }
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  const d = b.map((v, i) => v - (a[i] ?? 0));
  const total = d.reduce((x, y) => x + y, 0);
  return total > 0 ? 1 - ((d[3] ?? 0) + (d[4] ?? 0)) / total : 0;
}

async function quiet(limit: number): Promise<void> {
  if (limit >= 1) return;
  const t0 = Date.now();
  while ((await busy(1000)) > limit && Date.now() - t0 < 60_000);
}

function machineLine(peers: readonly PeerMpi[]): string {
  const cpu = cpus();
  const mpi = peers.map((p) => {
    try {
      return execFileSync(p === 'openmpi' ? 'mpirun.openmpi' : 'mpirun.mpich', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').find((l) => l.trim() !== '')?.trim() ?? p;
    } catch {
      return p;
    }
  });
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}${mpi.length ? `, ${mpi.join(', ')}` : ''}`;
}

/** Run the matrix. Progress is reported after every job. */
export async function runMatrix(o: MatrixOptions, onProgress?: (p: MatrixProgress) => void): Promise<MatrixRun> {
  const reps = o.reps ?? 3;
  const iterations = o.iterations ?? 1000;
  const shared = o.shared ?? true;
  const idle = o.idle ?? 0.25;
  const nodes = o.nodes ?? 1;
  const transport = o.transport ?? 'tcp';
  // Our MPI is launched with the options that hold the peer to TCP between processes.
  const ourMpi = transport === 'mpi' ? findMpiLauncher().flavour : undefined;
  const env = ourMpi && nodes > 1 ? { COLL_MPIRUN_ARGS: peerTcpOnly(ourMpi).join(' ') } : undefined;
  const jobs = matrixJobs(o);
  const peersOf = (j: MatrixJob): readonly PeerMpi[] => (j.kind === 'variant' ? [] : o.peers);
  const total = reps * jobs.reduce((s, j) => s + 1 + peersOf(j).length, 0);
  const samples: MatrixSample[] = [];
  const started = new Date().toISOString();
  const loadBefore = loadavg();
  let done = 0;
  for (let rep = 0; rep < reps; rep++) {
    await quiet(idle);
    for (const job of jobs) {
      const sides: ('collectives' | PeerMpi)[] = ['collectives', ...peersOf(job)];
      if ((rep + jobs.indexOf(job)) % 2 === 1) sides.reverse(); // alternate who goes first
      for (const impl of sides) {
        const what = `${impl} ${job.collective} ${job.ranks} ranks${job.kind !== 'grid' ? ` (${job.kind}${job.nonblocking ? ' nonblocking' : ''}${job.communicator ? ` ${job.communicator}` : ''}${job.datatype !== 'float64' || job.op !== 'sum' ? ` ${job.datatype} ${job.op}` : ''})` : ''}, repetition ${rep + 1}/${reps}`;
        onProgress?.({ done, total, what });
        if (impl === 'collectives') {
          const r = await runBenchJob({
            collective: job.collective,
            algorithms: [o.algorithm ?? null],
            minBytes: 1,
            maxBytes: 1,
            sizes: job.sizes,
            iterations,
            shared,
            datatype: job.datatype,
            op: job.op,
            ranks: job.ranks,
            nodes,
            nonblocking: job.nonblocking,
            communicator: job.communicator,
            ...(transport === 'mpi' ? { transport } : {}),
            ...(env ? { env } : {}),
          });
          for (const rec of r.records) samples.push({ impl, job, bytes: rec.bytes, rep, avg_us: rec.avg_us, algorithm: rec.algorithm });
        } else {
          const recs = await runPeer(impl, { collective: job.collective, ranks: job.ranks, sizes: job.sizes, iterations, datatype: job.datatype, op: job.op, mpirunArgs: nodes > 1 ? peerTcpOnly(impl) : [] });
          for (const rec of recs) samples.push({ impl, job, bytes: rec.bytes, rep, avg_us: rec.avg_us });
        }
        done++;
      }
    }
  }
  onProgress?.({ done, total, what: 'done' });
  return {
    format: MATRIX_FORMAT,
    version: MATRIX_VERSION,
    started,
    finished: new Date().toISOString(),
    machine: machineLine(o.peers),
    loadBefore,
    loadAfter: loadavg(),
    options: {
      collectives: o.collectives ?? MATRIX_COLLECTIVES,
      sizes: o.sizes ?? MATRIX_SIZES,
      ranks: o.ranks ?? MATRIX_RANKS,
      peers: o.peers,
      reps,
      iterations,
      shared,
      extras: o.extras ?? true,
      idle,
      nodes,
      ...(transport === 'mpi' ? { transport } : {}),
      ...(o.algorithm !== undefined ? { algorithm: o.algorithm } : {}),
    },
    samples,
  };
}

// ------------------------------------------------------------------ report

export { median };

/** A run as the --json file holds it: the tags first (a run read from an older, untagged file gets them). */
export function taggedRun(run: MatrixRun): MatrixRun {
  const { format: _f, version: _v, ...rest } = run;
  return { format: MATRIX_FORMAT, version: MATRIX_VERSION, ...rest };
}

export function geomean(xs: readonly number[]): number {
  const v = xs.filter((x) => Number.isFinite(x) && x > 0);
  return v.length === 0 ? Number.NaN : Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length);
}

function sameJob(a: MatrixJob, b: MatrixJob): boolean {
  return a.collective === b.collective && a.ranks === b.ranks && a.datatype === b.datatype && a.op === b.op && a.kind === b.kind && !!a.nonblocking === !!b.nonblocking && a.communicator === b.communicator;
}

/** Median latency of one implementation for one job and size (NaN when not measured). */
export function medianOf(run: MatrixRun, impl: MatrixSample['impl'], job: MatrixJob, bytes: number): number {
  return median(run.samples.filter((s) => s.impl === impl && s.bytes === bytes && sameJob(s.job, job)).map((s) => s.avg_us));
}

function algorithmsOf(run: MatrixRun, job: MatrixJob, bytes: number): string {
  return [...new Set(run.samples.filter((s) => s.impl === 'collectives' && s.bytes === bytes && sameJob(s.job, job)).map((s) => s.algorithm ?? ''))].join('/');
}

function caseLabel(j: MatrixJob): string {
  const reduces = j.collective === 'reduce' || j.collective === 'allreduce' || j.collective === 'reduce_scatter';
  return `${j.collective}, ${j.ranks} ranks${j.collective === 'barrier' ? '' : `, ${j.datatype}${reduces ? ` ${j.op}` : ''}`}`;
}

export function sizeLabel(b: number): string {
  if (b >= 1 << 20 && b % (1 << 20) === 0) return `${b / (1 << 20)} MiB`;
  if (b >= 1024 && b % 1024 === 0) return `${b / 1024} KiB`;
  return `${b} B`;
}

const fmtRatio = (r: number): string => (Number.isFinite(r) ? (r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`) : '–');
const fmtUs = (v: number): string => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) : '–');

export interface RatioSummary {
  readonly peer: PeerMpi;
  readonly ranks: number;
  readonly cells: number;
  readonly geomean: number;
  readonly max: number;
  readonly above3: number;
  /** Largest ratio among sizes ≥ 1 MiB. */
  readonly maxLarge: number;
}

/** Ratio summaries of the main grid, per peer and rank count. */
export function summarize(run: MatrixRun): RatioSummary[] {
  const out: RatioSummary[] = [];
  for (const peer of run.options.peers) {
    for (const ranks of run.options.ranks) {
      const ratios: number[] = [];
      const large: number[] = [];
      for (const job of matrixJobs(run.options).filter((j) => j.kind === 'grid' && j.ranks === ranks)) {
        for (const b of job.sizes) {
          const r = medianOf(run, 'collectives', job, b) / medianOf(run, peer, job, b);
          if (!Number.isFinite(r)) continue;
          ratios.push(r);
          if (b >= 1 << 20) large.push(r);
        }
      }
      out.push({ peer, ranks, cells: ratios.length, geomean: geomean(ratios), max: Math.max(...ratios), above3: ratios.filter((r) => r > 3).length, maxLarge: large.length ? Math.max(...large) : Number.NaN });
    }
  }
  return out;
}

function nodesText(nodes: number, transport: 'tcp' | 'mpi' = 'tcp'): string {
  if (nodes <= 1) return 'one node';
  const ours = transport === 'mpi' ? 'talking through the MPI transport (Open MPI started by its mpirun, held to TCP like the peer)' : 'talking over TCP on loopback';
  return `the ranks spread over ${nodes} node processes ${ours}, the peer MPI held to TCP (Open MPI \`--mca btl tcp,self\`, MPICH \`MPIR_CVAR_NOLOCAL=1\`)`;
}

/** The markdown report (the generated section of docs/benchmarks.md). */
export function matrixMarkdown(run: MatrixRun, plotPath?: string): string {
  const o = run.options;
  const jobs = matrixJobs(o);
  const lines: string[] = [];
  lines.push(
    `Run ${run.started.replace('T', ' ').slice(0, 16)}–${run.finished.slice(11, 16)} UTC on ${run.machine}; load average ${run.loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${run.loadAfter.map((l) => l.toFixed(2)).join(' ')} after. ` +
      `${o.reps} repetition${o.reps === 1 ? '' : 's'}, alternating; medians; ${o.iterations === 1000 ? 'OSU iteration counts' : 'iteration counts'} (${o.iterations} up to 16 KiB, ${Math.max(20, Math.floor(o.iterations / 20))} to 1 MiB, 20 above; warm-up a tenth); ${o.shared ? 'buffers from `comm.alloc`' : 'private buffers'}; float64 sum unless said; ${nodesText(o.nodes ?? 1, o.transport)}${o.algorithm !== undefined ? `; our side runs \`{ algorithm: '${o.algorithm}' }\`` : ''}.`,
    '',
    '| peer | ranks | cells | geometric mean | max | cells > 3× | max at ≥ 1 MiB |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of summarize(run)) lines.push(`| ${s.peer} | ${s.ranks} | ${s.cells} | **${fmtRatio(s.geomean)}** | ${fmtRatio(s.max)} | ${s.above3} | ${fmtRatio(s.maxLarge)} |`);
  if (plotPath) lines.push('', `![ratio heat map](${plotPath})`);
  for (const peer of o.peers) {
    for (const ranks of o.ranks) {
      const grid = jobs.filter((j) => j.kind === 'grid' && j.ranks === ranks);
      lines.push('', `**${ranks} ranks: collectives / ${peer}** (time ratio; below 1 = faster; µs in brackets: ours / ${peer})`, '');
      lines.push(`| collective | ${o.sizes.map(sizeLabel).join(' | ')} |`, `|---|${o.sizes.map(() => '---:').join('|')}|`);
      for (const job of grid) {
        const cells = o.sizes.map((b) => {
          const bytes = job.collective === 'barrier' ? 0 : b;
          if (job.collective === 'barrier' && b !== o.sizes[0]) return '';
          const ours = medianOf(run, 'collectives', job, bytes);
          const theirs = medianOf(run, peer, job, bytes);
          return `${fmtRatio(ours / theirs)} (${fmtUs(ours)} / ${fmtUs(theirs)})`;
        });
        lines.push(`| ${job.collective} | ${cells.join(' | ')} |`);
      }
    }
  }
  const spots = jobs.filter((j) => j.kind === 'spot');
  if (spots.length > 0) {
    lines.push('', '**Spot checks off the grid**', '', `| case | size | collectives µs (algorithm) | ${o.peers.map((p) => `${p} µs | ratio`).join(' | ')} |`, `|---|---:|---:|${o.peers.map(() => '---:|---:').join('|')}|`);
    for (const job of spots) {
      for (const b of job.sizes) {
        const ours = medianOf(run, 'collectives', job, b);
        const peers = o.peers.map((p) => {
          const t = medianOf(run, p, job, b);
          return `${fmtUs(t)} | ${fmtRatio(ours / t)}`;
        });
        lines.push(`| ${caseLabel(job)} | ${sizeLabel(b)} | ${fmtUs(ours)} (${algorithmsOf(run, job, b)}) | ${peers.join(' | ')} |`);
      }
    }
  }
  const variants = jobs.filter((j) => j.kind === 'variant');
  if (variants.length > 0) {
    lines.push('', '**Nonblocking calls and sub-communicators** (2 ranks; time ratio to the blocking call on the world communicator, same run)', '', '| collective | size | blocking µs | nonblocking | dup() | split() |', '|---|---:|---:|---:|---:|---:|');
    for (const base of variants.filter((j) => !j.nonblocking && j.communicator === undefined)) {
      for (const b of base.sizes) {
        const t0 = medianOf(run, 'collectives', base, b);
        const r = (v: Partial<MatrixJob>): string => fmtRatio(medianOf(run, 'collectives', { ...base, ...v }, b) / t0);
        lines.push(`| ${base.collective} | ${sizeLabel(b)} | ${fmtUs(t0)} | ${r({ nonblocking: true })} | ${r({ communicator: 'dup' })} | ${r({ communicator: 'split' })} |`);
      }
    }
  }
  return lines.join('\n');
}

/** The heat map of the grid's ratios: one row per (rank count, collective), one column per size. */
export function matrixHeatMap(run: MatrixRun, peer: PeerMpi): string {
  const o = run.options;
  const rows: string[] = [];
  const values: number[][] = [];
  for (const job of matrixJobs(o).filter((j) => j.kind === 'grid')) {
    rows.push(`${job.ranks} ranks · ${job.collective}`);
    values.push(o.sizes.map((b, i) => (job.collective === 'barrier' ? (i === 0 ? medianOf(run, 'collectives', job, 0) / medianOf(run, peer, job, 0) : Number.NaN) : medianOf(run, 'collectives', job, b) / medianOf(run, peer, job, b))));
  }
  return heatMapSvg({
    title: `collectives / ${peer}: time ratio per call (below 1 = faster)${(o.nodes ?? 1) > 1 ? `, ${o.nodes} nodes over ${o.transport === 'mpi' ? 'the MPI transport' : 'TCP'}` : ''}, ${run.started.slice(0, 10)}`,
    columns: o.sizes.map(sizeLabel),
    rows,
    values,
    neutral: 1,
    span: 30,
    format: (v) => (v >= 10 ? v.toFixed(0) : v.toFixed(2)),
    legend: 'ratio (log scale)',
  });
}

export const DOCS_BEGIN = '<!-- bench-matrix:begin (generated by `coll bench matrix --docs`; edits inside are overwritten) -->';
export const DOCS_END = '<!-- bench-matrix:end -->';

/** The markers of a matrix's generated section: one section for one node, another for several, a third for several over the MPI transport. */
export function docsMarkers(nodes = 1, transport: 'tcp' | 'mpi' = 'tcp', algorithm?: string): { begin: string; end: string } {
  if (algorithm !== undefined) {
    const name = `bench-matrix${nodes > 1 ? '-nodes' : ''}${transport === 'mpi' ? '-mpi' : ''}-algorithm-${algorithm}`;
    return { begin: `<!-- ${name}:begin (generated by \`coll bench matrix … --algorithm ${algorithm} --docs\`; edits inside are overwritten) -->`, end: `<!-- ${name}:end -->` };
  }
  if (nodes <= 1) return { begin: DOCS_BEGIN, end: DOCS_END };
  if (transport === 'mpi') return { begin: '<!-- bench-matrix-mpi:begin (generated by `coll bench matrix --nodes K --transport mpi --docs`; edits inside are overwritten) -->', end: '<!-- bench-matrix-mpi:end -->' };
  return { begin: '<!-- bench-matrix-nodes:begin (generated by `coll bench matrix --nodes K --docs`; edits inside are overwritten) -->', end: '<!-- bench-matrix-nodes:end -->' };
}

/** Replace (or append) the generated section between the markers. */
export function replaceSection(doc: string, section: string, markers = docsMarkers()): string {
  const { begin, end } = markers;
  const block = `${begin}\n${section}\n${end}`;
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  if (a >= 0 && b > a) return doc.slice(0, a) + block + doc.slice(b + end.length);
  return `${doc.trimEnd()}\n\n${block}\n`;
}
