/**
 * `coll experiment <noise|skew|overlap> [options]`: issue 4's experiments with the
 * seeds' methodology, host vs offloaded execution (src/experiments/, method and
 * results in docs/offload-experiments.md):
 *
 * - noise: individually timed allreduce calls under injected OS noise, with the
 *   seed 000 Table 5.1 statistics and a histogram (Fig. 5.5);
 * - skew: host CPU time inside barrier/bcast when ranks enter with random skew
 *   (seed 003 Fig. 6.10);
 * - overlap: share of a computation that hides a nonblocking allreduce;
 * - startup and connections (seed 003 ch. 2 and 3): experiment-startup.ts and
 *   experiment-connections.ts;
 * - multicast (seed 003 ch. 5): the multicast broadcast measured, experiment-multicast.ts;
 * - io (seed 003 ch. 7): parallel I/O (pfs: servers, list I/O, rendezvous, against Open MPI's MPI-IO), experiment-io.ts.
 *
 * Progress goes to stderr; results as a table, JSON lines (--json) and SVG (--plot).
 */
import { writeFileSync } from 'node:fs';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import type { JobHooks, JobLayout } from '../../experiments/job.js';
import { noiseJson, noisePlot, noiseTable, runNoiseExperiment } from '../../experiments/noise.js';
import { overlapJson, overlapPlot, overlapTable, runOverlapExperiment } from '../../experiments/overlap.js';
import type { SkewCollective } from '../../experiments/skew-program.js';
import { runSkewExperiment, skewJson, skewPlot, skewTable } from '../../experiments/skew.js';
import { checkNoise, parseVariants, type NoiseOptions } from '../../experiments/variants.js';
import { helpText, opt, opts, parseArgs, type OptionSpec, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { CONNECTIONS_USAGE, connectionsExperimentCommand } from './experiment-connections.js';
import { MULTICAST_USAGE, multicastExperimentCommand } from './experiment-multicast.js';
import { IO_USAGE, ioExperimentCommand } from './experiment-io.js';
import { STARTUP_USAGE, startupExperimentCommand } from './experiment-startup.js';

const EXPERIMENTS = ['noise', 'skew', 'overlap'] as const;
type ExperimentName = (typeof EXPERIMENTS)[number];

const COMMON: OptionSpec[] = [
  { name: 'np', alias: 'n', type: 'number', description: 'number of ranks (default 2)' },
  { name: 'nodes', type: 'number', description: 'node processes (default 1; see docs/offload-experiments.md for why)' },
  { name: 'mode', type: 'string', repeat: true, description: 'host, offload, intermediate, or host-poll (host mode whose waits never park); repeatable' },
  { name: 'iterations', alias: 'i', type: 'number', description: 'timed iterations (per mode; per skew point and repetition for skew)' },
  { name: 'warmup', type: 'number', description: 'untimed warm-up iterations' },
  { name: 'noise-period-us', type: 'number', description: 'injected OS noise: mean time between events per rank thread (µs; noise experiment default 1000, others none)' },
  { name: 'noise-duration-us', type: 'number', description: 'injected OS noise: time an event takes from a running rank thread (µs; default 100)' },
  { name: 'poisson', type: 'boolean', description: 'noise events with exponential gaps instead of a fixed period' },
  { name: 'noise-seed', type: 'number', description: 'seed of the noise phases and gaps (default 1)' },
  { name: 'no-noise', type: 'boolean', description: 'no injected noise (noise experiment: a baseline run)' },
  { name: 'env', type: 'string', repeat: true, description: 'NAME=VALUE for every job (e.g. COLL_OFFLOAD_SPIN_US=0); repeatable' },
  { name: 'idle', type: 'number', description: 'before each job wait (up to 60 s) until the CPUs are at most this busy, e.g. 0.25 (shared machines)' },
  { name: 'arena-mb', type: 'number', description: 'shared arena per node (MiB, default 64)' },
  { name: 'json', type: 'boolean', description: 'print JSON lines instead of a table' },
  { name: 'save', type: 'string', description: 'also write the JSON lines to FILE (with the table on stdout)' },
  { name: 'plot', type: 'string', description: 'write an SVG plot to FILE' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const SPECIFIC: Record<ExperimentName, OptionSpec[]> = {
  noise: [
    { name: 'bytes', type: 'bytes', description: 'allreduce size per rank (float64 sum; default 8 = 1 element)' },
    { name: 'window-us', type: 'number', repeat: true, description: 'window widths for the share-inside-a-window statistic (default 4 and 20, the seed\'s)' },
    { name: 'trim', type: 'number', description: 'share of the largest samples dropped for the trimmed mean and σ (default 0.01)' },
    { name: 'repetitions', type: 'number', description: 'split the iterations over this many jobs per mode, run interleaved (default 5)' },
    { name: 'baseline', type: 'boolean', description: "also run each mode without noise and report the noise-induced σ = sqrt(σ² − σ²_quiet)" },
  ],
  skew: [
    { name: 'collective', type: 'string', repeat: true, description: 'barrier and/or bcast (default both)' },
    { name: 'skew-us', type: 'string', repeat: true, description: 'average skews in µs, comma-separated or repeated (default 0,40,100,200,400,800; max = 3 × average)' },
    { name: 'repetitions', type: 'number', description: 'repetitions per point; medians reported (default 3)' },
    { name: 'bytes', type: 'bytes', description: 'bcast message size (default 8)' },
    { name: 'seed', type: 'number', description: 'seed of the skew draws (default 1)' },
  ],
  overlap: [
    { name: 'bytes', type: 'string', repeat: true, description: 'allreduce sizes per rank, comma-separated or repeated (default 8,65536,1048576)' },
    { name: 'compute-us', type: 'number', description: 'computation phase, calibrated work of about this many µs alone (default 2000)' },
  ],
};

const USAGE: Record<ExperimentName, string> = {
  noise: 'coll experiment noise [-n N] [--nodes K] [--mode M]... [--iterations I] [--bytes B] [--noise-period-us P --noise-duration-us D [--poisson]] [--window-us W]... [--json] [--plot FILE]',
  skew: 'coll experiment skew [-n N] [--nodes K] [--mode M]... [--collective barrier|bcast]... [--skew-us 0,40,...] [--iterations I] [--repetitions R] [--json] [--plot FILE]',
  overlap: 'coll experiment overlap [-n N] [--nodes K] [--mode M]... [--bytes 8,65536,...] [--compute-us C] [--iterations I] [--json] [--plot FILE]',
};

function numberList(values: readonly string[], what: string): number[] {
  const out = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean).map(Number);
  for (const n of out) if (!Number.isFinite(n) || n < 0) throw new ArgumentError(`${what} needs non-negative numbers, got '${values.join(',')}'`);
  return out;
}

function envPairs(values: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new ArgumentError(`--env needs NAME=VALUE, got '${v}'`);
    env[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return env;
}

/** Noise options from the arguments; `byDefault` = the noise experiment's 1000 µs / 100 µs. */
function noiseOptions(args: ParsedArgs, byDefault: boolean): NoiseOptions | undefined {
  const period = opt<number>(args, 'noise-period-us');
  const duration = opt<number>(args, 'noise-duration-us');
  if (opt<boolean>(args, 'no-noise')) {
    if (period !== undefined || duration !== undefined) throw new ArgumentError('--no-noise excludes --noise-period-us and --noise-duration-us');
    return undefined;
  }
  if (period === undefined && duration === undefined && !byDefault) return undefined;
  const n: NoiseOptions = { periodUs: period ?? 1000, durationUs: duration ?? 100, poisson: opt<boolean>(args, 'poisson') ?? false, seed: opt<number>(args, 'noise-seed') ?? 1 };
  checkNoise(n);
  return n;
}

/** A line naming the machine's load around each job (the experiments share the machine with whatever else runs). */
function loadLine(loads: readonly (readonly [string, readonly [number, number] | undefined, readonly number[]])[]): string {
  const parts = loads.flatMap(([v, l, busy]) => {
    if (!l) return [];
    const b = busy.filter((x) => Number.isFinite(x));
    const idle = b.length > 0 ? ` (CPU ${b.map((x) => `${Math.round(x * 100)}%`).join('/')} busy before)` : '';
    return [`${v} ${l[0].toFixed(2)} -> ${l[1].toFixed(2)}${idle}`];
  });
  return `1-minute load average before -> after: ${parts.join(', ')}`;
}

function progressHooks(name: string): JobHooks & { onVariant(label: string, i: number, total: number): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let current = '';
  return {
    onVariant(label, i, total) {
      current = `${name} [${i + 1}/${total}] ${label}`;
      if (tty) process.stderr.write(`\r\x1b[K${current}: starting`); // progress on a terminal only
    },
    onProgress(done, total) {
      if (!tty) return;
      const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
      process.stderr.write(`\r\x1b[K${current}: ${done}/${total} (${pct}%)`);
    },
    onOutput(line) {
      process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`);
    },
    end() {
      if (tty) process.stderr.write('\r\x1b[K');
    },
  };
}

export const experimentCommand: Command = {
  name: 'experiment',
  summary: 'experiments: noise immunity, skew tolerance, overlap (host vs offload), job start-up, connection counts, the multicast broadcast and parallel I/O ([Moody-2003], [Yu-2006])',
  async run(argv) {
    const name = argv[0];
    if (name === undefined || name === '--help' || name === '-h') {
      console.log(['usage: coll experiment <noise|skew|overlap|startup|connections|multicast|io> [options]   (coll experiment <name> --help)', '', ...EXPERIMENTS.map((e) => `  ${USAGE[e]}`), `  ${STARTUP_USAGE}`, `  ${CONNECTIONS_USAGE}`, `  ${MULTICAST_USAGE}`, `  ${IO_USAGE}`].join('\n'));
      return name === undefined ? 2 : 0;
    }
    if (name === 'startup') return startupExperimentCommand(argv.slice(1));
    if (name === 'connections') return connectionsExperimentCommand(argv.slice(1));
    if (name === 'multicast') return multicastExperimentCommand(argv.slice(1));
    if (name === 'io') return ioExperimentCommand(argv.slice(1));
    if (!(EXPERIMENTS as readonly string[]).includes(name)) throw new ArgumentError(`unknown experiment '${name}'`, `use ${EXPERIMENTS.join(', ')}, startup, connections, multicast or io`);
    const exp = name as ExperimentName;
    const specs = [...COMMON, ...SPECIFIC[exp]];
    const args = parseArgs(argv.slice(1), specs);
    if (opt(args, 'help')) {
      console.log(helpText(USAGE[exp], specs));
      return 0;
    }
    if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
    const ranks = opt<number>(args, 'np') ?? 2;
    const nodes = opt<number>(args, 'nodes') ?? 1;
    checkIntRange('-n', ranks, 1, 4096);
    checkIntRange('--nodes', nodes, 1, ranks);
    const arenaMb = opt<number>(args, 'arena-mb');
    const userEnv = envPairs(opts<string>(args, 'env'));
    const idleBusy = opt<number>(args, 'idle');
    if (idleBusy !== undefined && !(idleBusy > 0 && idleBusy <= 1)) throw new ArgumentError(`--idle needs a busy fraction in (0, 1], got ${idleBusy}`);
    const layout: JobLayout = { ranks, nodes, arenaMb, env: userEnv, idleBusy };
    const json = opt<boolean>(args, 'json') ?? false;
    const plot = opt<string>(args, 'plot');
    const warmup = opt<number>(args, 'warmup');
    if (warmup !== undefined) checkIntRange('--warmup', warmup, 0, 1e9);
    const iterations = opt<number>(args, 'iterations');
    if (iterations !== undefined) checkIntRange('--iterations', iterations, 1, 1e9);
    const variantArgs = opts<string>(args, 'mode');
    let out: { table: string; json: object[]; svg: string };

    if (exp === 'noise') {
      const variants = parseVariants(variantArgs, ['host', 'offload']);
      const bytes = opt<number>(args, 'bytes') ?? 8;
      checkIntRange('--bytes', bytes, 1, 2 ** 30);
      const windowsUs = opts<number>(args, 'window-us');
      for (const w of windowsUs) if (!(w > 0)) throw new ArgumentError(`--window-us needs a positive width, got ${w}`);
      const trimFraction = opt<number>(args, 'trim') ?? 0.01;
      if (!(trimFraction >= 0 && trimFraction < 1)) throw new ArgumentError(`--trim must be in [0, 1), got ${trimFraction}`);
      const n = iterations ?? 100_000;
      const repetitions = opt<number>(args, 'repetitions') ?? Math.min(5, n);
      checkIntRange('--repetitions', repetitions, 1, n);
      const hooks = progressHooks('noise');
      const r = await runNoiseExperiment(
        { ...layout, variants, iterations: n, warmup: warmup ?? Math.min(1000, Math.ceil(n / 10)), bytes, noise: noiseOptions(args, true), windowsUs: windowsUs.length > 0 ? windowsUs : [4, 20], trimFraction, baseline: opt<boolean>(args, 'baseline') ?? false, repetitions },
        hooks,
      );
      hooks.end();
      const noise = r.experiment.noise;
      const head = `noise: allreduce float64 sum ${Math.max(1, Math.floor(bytes / 8)) * 8} B, ${ranks} rank(s) on ${nodes} node(s), ${n} timed calls per mode in ${repetitions} interleaved job(s), barrier between calls; ${noise ? `noise ${noise.durationUs} µs every ${noise.periodUs} µs${noise.poisson ? ' (Poisson)' : ''} per rank thread` : 'no injected noise'}; rank 0's samples (µs)`;
      out = { table: `${head}\n${noiseTable(r)}\n${loadLine(r.variants.map((v) => [v.label, v.load, v.busyBefore]))}`, json: noiseJson(r), svg: noisePlot(r) };
    } else if (exp === 'skew') {
      const variants = parseVariants(variantArgs, ['host', 'host-poll', 'offload']);
      const collectives = opts<string>(args, 'collective');
      for (const c of collectives) if (c !== 'barrier' && c !== 'bcast') throw new ArgumentError(`--collective must be barrier or bcast, got '${c}'`);
      const skewsUs = numberList(opts<string>(args, 'skew-us'), '--skew-us');
      const repetitions = opt<number>(args, 'repetitions') ?? 3;
      checkIntRange('--repetitions', repetitions, 1, 1000);
      const bytes = opt<number>(args, 'bytes') ?? 8;
      checkIntRange('--bytes', bytes, 1, 2 ** 30);
      const seed = opt<number>(args, 'seed') ?? 1;
      checkIntRange('--seed', seed, 0, 2 ** 32 - 1);
      const hooks = progressHooks('skew');
      const r = await runSkewExperiment(
        {
          ...layout,
          variants,
          collectives: collectives.length > 0 ? [...new Set(collectives as SkewCollective[])] : ['barrier', 'bcast'],
          skewsUs: skewsUs.length > 0 ? skewsUs : [0, 40, 100, 200, 400, 800],
          iterations: iterations ?? 2000,
          warmup: warmup ?? 100,
          repetitions,
          bytes,
          seed,
          noise: noiseOptions(args, false),
        },
        hooks,
      );
      hooks.end();
      const head = `skew: ${ranks} rank(s) on ${nodes} node(s), ${r.experiment.iterations} calls per point and repetition, median of ${repetitions} repetition(s); CPU and wall time per call (µs)`;
      out = { table: `${head}\n${skewTable(r)}\n${loadLine(variants.map((v) => [v, r.load[v], [r.busyBefore[v] ?? NaN]]))}`, json: skewJson(r), svg: skewPlot(r) };
    } else {
      const variants = parseVariants(variantArgs, ['host', 'offload']);
      const bytes = numberList(opts<string>(args, 'bytes'), '--bytes');
      for (const b of bytes) checkIntRange('--bytes', b, 1, 2 ** 30);
      const computeUs = opt<number>(args, 'compute-us') ?? 2000;
      if (!(computeUs > 0)) throw new ArgumentError(`--compute-us must be positive, got ${computeUs}`);
      const hooks = progressHooks('overlap');
      const r = await runOverlapExperiment(
        { ...layout, variants, bytes: bytes.length > 0 ? bytes : [8, 65536, 1048576], computeUs, iterations: iterations ?? 200, warmup: warmup ?? 20, noise: noiseOptions(args, false) },
        hooks,
      );
      hooks.end();
      const head = `overlap: iallreduce float64 sum from comm.alloc() buffers, ${ranks} rank(s) on ${nodes} node(s), computation ≈ ${computeUs} µs, ${r.experiment.iterations} iterations (µs)`;
      const loads = variants.map((v) => {
        const p = r.points.find((x) => x.variant === v);
        return [v, p?.load, [p?.busyBefore ?? NaN]] as const;
      });
      out = { table: `${head}\n${overlapTable(r)}\n${loadLine(loads)}`, json: overlapJson(r), svg: overlapPlot(r) };
    }

    if (json) for (const o of out.json) console.log(JSON.stringify(o));
    else console.log(out.table);
    const save = opt<string>(args, 'save');
    if (save) {
      writeFileSync(save, out.json.map((o) => `${JSON.stringify(o)}\n`).join(''));
      process.stderr.write(`wrote ${save}\n`);
    }
    if (plot) {
      writeFileSync(plot, out.svg);
      process.stderr.write(`wrote ${plot}\n`);
    }
    return 0;
  },
};
