/**
 * The `coll …` commands of docs/*.md (issue 17: every command in the docs is run by a
 * test that checks that the output says what the text says it shows).
 *
 * Every command in a code block of a docs file is either in RUN, run here in-process
 * through the CLI's main() (files it writes go to a temporary directory) with a check of
 * the claim the text makes about its output, or in NOT_RUN, with the reason it is not run
 * here and the tests that cover it. A command that is long at the documented size runs
 * here with smaller parameters (`instead`, and `why`). The guard at the top fails when a
 * docs code block gains a command that is in neither, or when an entry names a command
 * the docs no longer have.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadMachineFile } from '../../src/model/machines/load.js';
import { codeBlockCommands, inTmp } from './helpers.js';

const DOCS_DIR = new URL('../../docs/', import.meta.url);
const doc = (name: string): string => readFileSync(new URL(name, DOCS_DIR), 'utf8');

/** Every docs/*.md file (new files are guarded too). */
const DOC_FILES = readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md')).sort();

interface Result {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** The temporary directory the command's files went to. */
  readonly dir: string;
}

interface Run {
  /** The docs file that shows the command. */
  readonly doc: string;
  /** What the text says the command shows (checked by `check`). */
  readonly claim: string;
  /** A faster equivalent run instead of the documented command (same claim), and why. */
  readonly instead?: { readonly cmd: string; readonly why: string };
  /** Files the command reads that a user would have (written into the temporary directory). */
  readonly setup?: (dir: string) => void;
  /** Accepted exit codes (default 0). */
  readonly exit?: readonly number[];
  readonly check: (r: Result) => void | Promise<void>;
}

interface NotRun {
  readonly doc: string;
  /** Why it is not run here: needs Open MPI, takes minutes, a user program, … */
  readonly why: string;
  /** Test files (repository paths) that cover what the command does. */
  readonly coveredBy: readonly string[];
}

/** Numbers printed as `12.3 µs`, `45 ns`, `1.2 ms`, in seconds. */
function seconds(text: string): number {
  const m = /(-?[\d.]+) (ns|µs|ms|s)\b/.exec(text);
  if (!m) throw new Error(`no time in '${text}'`);
  return Number(m[1]) * { ns: 1e-9, µs: 1e-6, ms: 1e-3, s: 1 }[m[2] as 'ns' | 'µs' | 'ms' | 's'];
}

/** `coll sim`'s `runs N: mean … std …` and `without the top 1%: mean … std …` lines, in µs. */
function simRuns(out: string): { mean: number; std: number; min: number; trimmedMean: number; trimmedStd: number } {
  const runs = /^runs\s+\d+: mean (.+?)\s+std (.+?)\s+min (.+?)\s+p50/m.exec(out);
  const trimmed = /without the top 1%: mean (.+?)\s+std (.+)$/m.exec(out);
  expect(runs, out).not.toBeNull();
  expect(trimmed, out).not.toBeNull();
  const us = (s: string): number => seconds(s) * 1e6;
  return { mean: us(runs![1]), std: us(runs![2]), min: us(runs![3]), trimmedMean: us(trimmed![1]), trimmedStd: us(trimmed![2]) };
}

/** The first simulated time of `coll sim`'s table, in µs. */
const simTime = (out: string): number => seconds(/^time\s+(.+)$/m.exec(out)?.[1] ?? '') * 1e6;

/** JSON lines written by `--save`. */
function jsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

const expectSvg = (path: string): void => expect(readFileSync(path, 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);

/** Lines of the first code block of `markdown` whose first line matches `first`. */
function outputBlock(markdown: string, first: RegExp): string[] {
  for (const m of markdown.matchAll(/```[\w-]*\n([\s\S]*?)```/g)) {
    const lines = m[1].trimEnd().split('\n');
    if (first.test(lines[0])) return lines;
  }
  throw new Error(`no code block starting with ${first}`);
}

/** elan3-cluster.json with exactly the four problems the invalid-file example of machines.md lists. */
function writeBadMachine(path: string): void {
  const d = JSON.parse(readFileSync('examples/machines/elan3-cluster.json', 'utf8')) as { nodes: number; links: Record<string, Record<string, unknown>>; host: Record<string, unknown> };
  d.nodes = 0;
  d.links.node.alpah = 1;
  d.links.network.alpha = -0.000003;
  delete d.host.oRecv;
  writeFileSync(path, JSON.stringify(d, null, 2));
}

// ---------------------------------------------------------------------------------------

/** Commands run here, by the command as the docs print it (after `coll `). */
const RUN: Record<string, Run> = {
  // docs/machines.md ----------------------------------------------------------------------
  'machine validate examples/machines/elan3-cluster.json': {
    doc: 'machines.md',
    claim: 'the example validates; a bad file gets every problem at once, each by field path and allowed range, as the invalid-file block shows',
    check: async ({ out, dir }) => {
      expect(out).toMatch(/elan3-cluster\.json: valid machine description 'elan3-cluster'/);
      // The block "coll sim: bad.json: invalid machine description: - nodes: … - host.oRecv: missing".
      const block = outputBlock(doc('machines.md'), /^coll sim: bad\.json: invalid machine description:$/);
      const bad = join(dir, 'bad.json');
      writeBadMachine(bad);
      for (const [argv, prefix] of [
        [['sim', 'barrier', '--machine', bad, '--procs', '2'], 'coll sim'],
        [['machine', 'validate', bad], 'coll machine'],
      ] as const) {
        const r = await coll(argv);
        expect(r.code).toBe(2);
        const got = r.err.replaceAll(bad, 'bad.json').split('\n');
        expect(got.slice(0, block.length), r.err).toEqual([block[0].replace('coll sim', prefix), ...block.slice(1)]);
        expect(got.filter((l) => /^\s+- /.test(l))).toHaveLength(block.length - 1); // every problem, none more
      }
    },
  },
  'machine convert old-machine.json --out machine.json': {
    doc: 'machines.md',
    claim: "writes an older file as a machine description (schema collectives/machine v1); reading the older 'coll fit' shape warns as the older-shapes block shows",
    setup: (dir) => {
      // An older file: what `coll fit` wrote before the machine description.
      const m = loadMachineFile('examples/machines/fitted-vm.json');
      writeFileSync(join(dir, 'old-machine.json'), JSON.stringify({ format: 'collectives-machine/1', ...m }));
    },
    check: ({ out, err, dir }) => {
      expect(out).toMatch(/wrote .*machine\.json: machine description '.+' \(schema collectives\/machine v1\)/);
      const written = JSON.parse(readFileSync(join(dir, 'machine.json'), 'utf8')) as Record<string, unknown>;
      expect(written).toMatchObject({ schema: 'collectives/machine', version: 1 });
      // The block "coll: warning: old.json is in the older 'coll fit' shape …", one line on stderr.
      const block = outputBlock(doc('machines.md'), /^coll: warning: /).join(' ').replace(/\s+/g, ' ');
      const warnings = err.split('\n').filter((l) => /warning/.test(l));
      expect(warnings).toHaveLength(1);
      expect(warnings[0].replaceAll(join(dir, 'old-machine.json'), 'old.json')).toBe(block);
    },
  },
  'machine show alc': {
    doc: 'machines.md',
    claim: 'a preset as a description (the alc machine of simulator.md: 960 × 2-CPU nodes, 4-ary 5-tree)',
    check: ({ out }) => {
      const d = JSON.parse(out) as Record<string, unknown>;
      expect(d).toMatchObject({ schema: 'collectives/machine', version: 1, name: 'alc', nodes: 960, coresPerNode: 2 });
      expect(d.network).toMatchObject({ topology: 'fattree', arity: 4, levels: 5 });
    },
  },

  // docs/simulator.md ---------------------------------------------------------------------
  'sim allreduce --machine alc --procs 1024 --ppn 2 --bytes 8': {
    doc: 'simulator.md',
    claim: '1024 processes as 512 nodes × 2 on alc; an uncontended message costs what the closed form says, so the time is near it (tens of µs)',
    check: ({ out }) => {
      expect(out).toMatch(/^allreduce\/\w+ on alc: 1024 processes \(512 nodes × 2\), 8 B float64 sum, host mode, contention on/m);
      const closed = seconds(/= (.+?) with network/.exec(out)?.[1] ?? '') * 1e6;
      expect(simTime(out)).toBeGreaterThan(10);
      expect(Math.abs(simTime(out) / closed - 1)).toBeLessThan(0.25);
    },
  },
  'sim reduce --machine crescendo --procs 32 --mode offload --datatype int32 --bytes 4': {
    doc: 'simulator.md',
    claim: "binomial int32 on crescendo, P = 32, NIC: 23.04 µs simulated against the published 23.05 µs (the table's first row)",
    check: ({ out }) => {
      expect(out).toMatch(/^reduce\/binomial on crescendo: 32 processes .* 4 B int32 sum, offload mode/m);
      expect(simTime(out)).toBeCloseTo(23.04, 1);
      expect(Math.abs(simTime(out) / 23.05 - 1)).toBeLessThan(0.02);
    },
  },
  'sim barrier --machine es40 --procs 64 --algorithm hw_barrier --traffic uniform --runs 100': {
    doc: 'simulator.md',
    claim: 'the hardware barrier (elan_hgsync) under uniform traffic on the es40 (wormhole flow control): about 18 µs, above the published 13–14.8 µs (R14)',
    check: ({ out }) => {
      expect(out).toMatch(/^barrier\/hw_barrier on es40: 64 processes .*contention on \(wormhole\)/m);
      expect(Number(/; (\d+) background packets/.exec(out)?.[1])).toBeGreaterThan(0);
      const { mean } = simRuns(out);
      expect(mean).toBeGreaterThan(14.8);
      expect(mean).toBeLessThan(25);
    },
  },
  'sim reduce --machine alc --procs 1800 --ppn 2 -a fnomial -p f=4 --noise seed000-alc --runs 1000': {
    doc: 'simulator.md',
    claim: "Table 5.1's host reduction under the seed000-alc noise: mean 89.30 µs published, 88.8 ours; σ 65.26 published, 66.8 ours; best host sample near 26.7 µs, the noiseless host time",
    instead: {
      cmd: 'sim reduce --machine alc --procs 1800 --ppn 2 -a fnomial -p f=4 --noise seed000-alc --runs 400',
      why: "400 runs, as `coll reproduce 000` for Table 5.1 (1000 take 3–5 s here); the runs are seeded, so the numbers are the same every time",
    },
    check: ({ out }) => {
      expect(out).toMatch(/^reduce\/fnomial on alc: 1800 processes \(900 nodes × 2\), 8 B float64 sum, host mode/m);
      const r = simRuns(out);
      expect(Math.abs(r.trimmedMean / 89.3 - 1)).toBeLessThan(0.1);
      expect(Math.abs(r.trimmedStd / 65.26 - 1)).toBeLessThan(0.2);
      expect(r.min).toBeCloseTo(26.7, 0);
    },
  },
  'sim bcast --machine my-machine.json --procs 32 --bytes 1M --timeline trace.json': {
    doc: 'simulator.md',
    claim: "reads a machine file (the page's crescendo-800 example, a preset with an override) and writes the first run as a Chrome trace",
    setup: (dir) => {
      const example = /```json\n([\s\S]*?)```/.exec(doc('simulator.md'))?.[1] ?? '';
      expect(example).toContain('"base": "crescendo"');
      writeFileSync(join(dir, 'my-machine.json'), example);
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/^bcast\/\w+ on crescendo-800: 32 processes .*1048576 B/m);
      const trace = JSON.parse(readFileSync(join(dir, 'trace.json'), 'utf8')) as { traceEvents: { ph: string; name: string }[] };
      expect(trace.traceEvents.filter((e) => e.ph === 'X').length).toBeGreaterThan(31);
    },
  },
  'reproduce 004': {
    doc: 'simulator.md',
    claim: "one seed: the models' and the simulator's rows together, each with published, ours, tolerance and status; the table's Fig. 7 rows with the seed's semantics: Snake +33.5% over Fence at N = 5·10^5 (published up to 33%), the order Tree → Fence → Snake (pass), the defaults' 49.7% beside them as information",
    instead: {
      cmd: 'reproduce 004 --quick',
      why: 'a smaller regime grid, extended by the cells the regime rows need (a few seconds of simulation instead of 7–10); the Fig. 7 rows are the same',
    },
    check: ({ out }) => {
      expect(out).toMatch(/^seed 004$/m);
      expect(out).toMatch(/\[(PASS|INFO|NOT-MATCHABLE)\] \(model\) /);
      expect(out).toMatch(/\[(PASS|INFO|NOT-MATCHABLE)\] \(sim, /);
      expect(out).toMatch(/published .* \| ours .* \| tolerance/);
      expect(out).not.toMatch(/\[FAIL\]/);
      const ours = (row: RegExp): string => {
        const m = new RegExp(`${row.source}.*\\n\\s+published .*? \\| ours (.*?)(?:  err .*)? \\| tolerance`).exec(out);
        expect(m, `${String(row)}\n${out}`).not.toBeNull();
        return m![1];
      };
      expect(Number(/[\d.]+/.exec(ours(/\[PASS\] \(sim, validation\) Fig\. 7: Snake faster than Fence/))?.[0])).toBeCloseTo(33.5, 0);
      expect(ours(/\[PASS\] \(sim, validation\) Fig\. 7: as N grows the fastest/)).toBe('Tree → Fence → Snake');
    },
  },

  // docs/offload-experiments.md -----------------------------------------------------------
  'experiment noise --baseline --idle 0.25 --plot docs/img/offload-noise.svg --save docs/data/offload-noise.jsonl': {
    doc: 'offload-experiments.md',
    claim: 'default layout 2 ranks on 1 node, noise 100 µs every 1000 µs; the four runs (host and offload, with and without noise), σ_host / σ_offload and the noise-induced σ; the histogram and the JSON lines are written',
    instead: {
      cmd: 'experiment noise --baseline --iterations 200 --repetitions 1 --warmup 10 --plot docs/img/offload-noise.svg --save docs/data/offload-noise.jsonl',
      why: '100,000 calls per run take minutes; --idle waits up to 60 s per job for idle CPUs, which this shared machine seldom has',
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/2 rank\(s\) on 1 node\(s\).*noise 100 µs every 1000 µs/);
      for (const run of ['host, no noise', 'host', 'offload, no noise', 'offload']) expect(out).toMatch(new RegExp(`^${run}\\s+200\\s`, 'm'));
      expect(out).toMatch(/sd\(host\)\/sd\(offload\) under noise, top 1% dropped: [\d.]+/);
      expect(out).toMatch(/noise-induced sd = sqrt\(sd\^2 - sd_quiet\^2\): host [\d.]+, offload [\d.]+/);
      const recs = jsonl(join(dir, 'offload-noise.jsonl'));
      expect(recs.map((r) => `${String(r.variant)}${r.noisy ? '' : ', no noise'}`).sort()).toEqual(['host', 'host, no noise', 'offload', 'offload, no noise']);
      expectSvg(join(dir, 'offload-noise.svg'));
    },
  },
  'experiment skew --idle 0.25 --plot docs/img/offload-skew.svg --save docs/data/offload-skew.jsonl': {
    doc: 'offload-experiments.md',
    claim: 'barrier and bcast × host, host-poll, offload: CPU and wall time in the call per average skew, with the host-poll / offload ratio; the plot and the JSON lines are written',
    instead: {
      cmd: 'experiment skew --skew-us 0,400 --iterations 10 --warmup 2 --repetitions 1 --plot docs/img/offload-skew.svg --save docs/data/offload-skew.jsonl',
      why: '6 skews × 3 repetitions × 2000 calls take about a minute on an idle machine; the table is read at 400 µs; no --idle (see the noise command)',
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/^skew: 2 rank\(s\) on 1 node\(s\)/m);
      for (const c of ['barrier', 'bcast'])
        for (const m of ['host', 'host-poll', 'offload']) expect(out).toMatch(new RegExp(`^${c}\\s+${m}\\s+400\\s+-?[\\d.]+\\s`, 'm'));
      expect(out).toMatch(/^barrier\s+offload\s+400\s.*\s[\d.]+x\s+[\d.]+x$/m); // host / offload and host-poll / offload
      const recs = jsonl(join(dir, 'offload-skew.jsonl'));
      expect(recs).toHaveLength(2 * 3 * 2);
      expectSvg(join(dir, 'offload-skew.svg'));
    },
  },
  'experiment overlap --idle 0.25 --plot docs/img/offload-overlap.svg --save docs/data/offload-overlap.jsonl': {
    doc: 'offload-experiments.md',
    claim: 'host and offload at 8 B, 64 KiB and 1 MiB: t_comm, t_compute, t_total, post, wait and the overlap share; the plot and the JSON lines are written',
    instead: {
      cmd: 'experiment overlap --iterations 3 --warmup 1 --compute-us 200 --plot docs/img/offload-overlap.svg --save docs/data/offload-overlap.jsonl',
      why: '200 iterations of 2 ms computation per mode and size take tens of seconds; no --idle (see the noise command)',
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/2 rank\(s\) on 1 node\(s\)/);
      for (const m of ['host', 'offload'])
        for (const b of [8, 65536, 1048576]) expect(out).toMatch(new RegExp(`^${m}\\s+${b}\\s.*\\s-?[\\d.]+%\\s+-?[\\d.]+%$`, 'm'));
      expect(jsonl(join(dir, 'offload-overlap.jsonl'))).toHaveLength(6);
      expectSvg(join(dir, 'offload-overlap.svg'));
    },
  },
  'experiment overlap -n 1 --idle 0.25 --save docs/data/offload-overlap-1rank.jsonl': {
    doc: 'offload-experiments.md',
    claim: 'the 1 rank, 1 node rows of the overlap table (host and offload, 8 B / 64 KiB / 1 MiB)',
    instead: {
      cmd: 'experiment overlap -n 1 --iterations 3 --warmup 1 --compute-us 200 --save docs/data/offload-overlap-1rank.jsonl',
      why: 'as the 2-rank overlap command',
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/1 rank\(s\) on 1 node\(s\)/);
      const recs = jsonl(join(dir, 'offload-overlap-1rank.jsonl'));
      expect(recs.map((r) => `${String(r.variant)} ${String(r.bytes)}`).sort()).toEqual(['host 1048576', 'host 65536', 'host 8', 'offload 1048576', 'offload 65536', 'offload 8']);
    },
  },
  'experiment overlap -n 4 --nodes 2 --iterations 100 --idle 0.25 --save docs/data/offload-overlap-2nodes.jsonl': {
    doc: 'offload-experiments.md',
    claim: 'the 4 ranks, 2 nodes rows of the overlap table (host and offload)',
    instead: {
      cmd: 'experiment overlap -n 4 --nodes 2 --iterations 2 --warmup 1 --compute-us 200 --bytes 8 --save docs/data/offload-overlap-2nodes.jsonl',
      why: 'two node processes per job; one size and 2 iterations keep it to a few seconds (the three sizes run in the 1-node commands)',
    },
    check: ({ out, dir }) => {
      expect(out).toMatch(/4 rank\(s\) on 2 node\(s\)/);
      for (const m of ['host', 'offload']) expect(out).toMatch(new RegExp(`^${m}\\s+8\\s.*%$`, 'm'));
      expect(jsonl(join(dir, 'offload-overlap-2nodes.jsonl')).map((r) => r.nodes)).toEqual([2, 2]);
    },
  },
  // docs/view.md -----------------------------------------------------------------------
  'sim allreduce --machine crescendo --procs 16 --ppn 2 --bytes 64KiB --algorithm recursive_doubling --noise periodic:50us/10us --trace allreduce.json': {
    doc: 'view.md',
    claim: 'writes the timeline coll view reads: a tagged Chrome trace of 16 ranks with noise',
    check: async ({ dir }) => {
      const { loadViewFile } = await import('../../src/view/load.js');
      const v = loadViewFile(join(dir, 'allreduce.json'));
      expect(v.kind).toBe('timeline');
      if (v.kind !== 'timeline') return;
      expect(v.ranks).toBe(16);
      expect(v.marks.lane.length).toBeGreaterThan(0); // the noise detours
      expect(v.source).toBe('sim');
    },
  },
  'view --export view.html allreduce.json': {
    doc: 'view.md',
    claim: 'the same page as one HTML file: the document embedded, the script inlined',
    setup: (dir) => writeFileSync(join(dir, 'allreduce.json'), readFileSync('test/view/fixtures/timeline-sim-allreduce-16.json')),
    check: ({ out, dir }) => {
      expect(out).toMatch(/wrote .*view\.html \(allreduce\.json: timeline; \d+ KiB\)/);
      const html = readFileSync(join(dir, 'view.html'), 'utf8');
      expect(html).toContain('<script type="application/json" id="coll-view-data">');
      expect(html).not.toContain('<script src=');
    },
  },
};

/** Commands not run here, with the reason and the tests that cover them. */
const NOT_RUN: Record<string, NotRun> = {
  'reproduce sim --plot out/': {
    doc: 'simulator.md',
    why: 'every seed by simulation: about 40 s on the loaded 2-core machine (seed 001, 32,768-rank runs, 26 s of it), more than this file may take',
    coveredBy: ['test/sim/reproduce.test.ts', 'test/sim/seeds.test.ts', 'test/docs/docs-commands.test.ts (coll reproduce 004, the same command for one seed)'],
  },
  'reproduce all --quick': {
    doc: 'simulator.md',
    why: 'models and simulation of every seed, with real start-up jobs for seed 003: minutes',
    coveredBy: ['test/sim/reproduce.test.ts (coll reproduce 003 --quick)', 'test/cli/model-cli.test.ts (coll reproduce models --quick)', 'test/docs/readme.test.ts (coll reproduce 000)'],
  },
  'experiment noise -n 4 --nodes 2 --mode host --mode offload --mode intermediate --idle 0.25 --plot docs/img/offload-noise-2nodes.svg --save docs/data/offload-noise-2nodes.jsonl': {
    doc: 'offload-experiments.md',
    why: '10 minutes at the documented size; three jobs of two node processes take 15–20 s even at 100 calls on a loaded 2-core machine',
    coveredBy: ['test/experiments/cli.test.ts (the noise program, records and plot)', 'test/docs/docs-commands.test.ts (the 1-node noise command; the 2-node launch in the 2-node overlap command)'],
  },
  'experiment noise -n 4 --nodes 2 --mode host --mode offload --mode intermediate --baseline --iterations 20000 --idle 0.25 --save docs/data/offload-noise-2nodes-baseline.jsonl': {
    doc: 'offload-experiments.md',
    why: '5 minutes at the documented size; six jobs of two node processes',
    coveredBy: ['test/experiments/cli.test.ts', 'test/docs/docs-commands.test.ts (--baseline in the 1-node noise command)'],
  },
  'experiment skew -n 4 --nodes 2 --iterations 500 --idle 0.25 --plot docs/img/offload-skew-2nodes.svg --save docs/data/offload-skew-2nodes.jsonl': {
    doc: 'offload-experiments.md',
    why: '5 minutes at the documented size; three jobs of two node processes even at a few calls',
    coveredBy: ['test/experiments/cli.test.ts (the skew program, records and plot)', 'test/docs/docs-commands.test.ts (the 1-node skew command; the 2-node launch in the 2-node overlap command)'],
  },
  'experiment connections --plot connections.svg': {
    doc: 'runtime.md',
    why: 'docs/runtime.md is being revised elsewhere: listed until it settles (seven NAS patterns up to N = 1024, about 10 s on a loaded machine)',
    coveredBy: ['test/experiments/nas-patterns.test.ts (the kernels, the table against N and the plot)'],
  },
  'experiment connections --measure --json m.json --latency-plot latency.svg': {
    doc: 'runtime.md',
    why: '27 real jobs of up to 8 node processes: 30–90 s',
    coveredBy: ['test/experiments/connections-measure.test.ts (real 2-node jobs, tables, JSON and plot from samples)'],
  },
  'experiment multicast --reps 3 --idle 0.3 --plot docs/img --docs docs/multicast.md': {
    doc: 'multicast.md',
    why: 'about 150 real jobs of 2 to 16 node processes, 3 repetitions: 10 minutes or more on 2 shared cores (the run the page shows)',
    coveredBy: ['test/experiments/multicast.test.ts (a real run on 3 node processes; the tables, docs section, plots and reproduce rows from synthetic jobs)'],
  },
  'experiment multicast --quick': {
    doc: 'multicast.md',
    why: 'every part with fewer points and calls: still about 20 real jobs, a minute or more',
    coveredBy: ['test/experiments/multicast.test.ts (a real run on 3 node processes, the CLI options)'],
  },
  'bench matrix --compare openmpi --reps 3 --docs docs/benchmarks.md --plot docs/img/bench-matrix.svg --json docs/data/bench-matrix.json': {
    doc: 'benchmarks.md',
    why: 'needs Open MPI (mpicc, mpirun); 9 collectives × 7 sizes × 3 rank counts, 3 repetitions alternating with it: minutes (3 on an idle machine, the run the page shows)',
    coveredBy: ['test/bench/matrix.test.ts (the jobs, ratios, docs section and heat map; the MPI side when an MPI is installed)'],
  },
  'bench matrix --nodes 2 --ranks 2,4 --json m.json --docs docs/benchmarks.md --plot docs/img/bench-matrix-nodes.svg': {
    doc: 'benchmarks.md',
    why: 'needs Open MPI; the matrix across 2 node processes, 3 repetitions alternating with it: minutes',
    coveredBy: ['test/bench/matrix.test.ts (across nodes: its own docs section, the peer MPI held to TCP)'],
  },
  'bench matrix --nodes 2 --ranks 2,4 --collectives allreduce,bcast,allgather,barrier --sizes 8,65536,1048576 --transport mpi --docs docs/benchmarks.md': {
    doc: 'benchmarks.md',
    why: 'needs Open MPI and the MPI binding; both sides under mpirun, 3 repetitions alternating: a minute or two',
    coveredBy: ['test/bench/matrix.test.ts (over the MPI transport: a job under mpirun, its own docs section)', 'test/transport/mpi-transport.test.ts'],
  },
  'bench matrix --nodes 2 --ranks 2 --collectives allreduce,bcast,allgather,barrier --sizes 8,65536,1048576 --transport mpi --algorithm mpi --docs docs/benchmarks.md': {
    doc: 'benchmarks.md',
    why: "needs Open MPI and the MPI binding; MPI's own collectives against Open MPI from C, 3 repetitions alternating: under a minute",
    coveredBy: ['test/bench/matrix.test.ts (the named algorithm: its own docs section)', "test/transport/mpi-transport.test.ts ({ algorithm: 'mpi' } for every collective)"],
  },
  'bench allreduce -n 2 --all-algorithms --min-bytes 8 --max-bytes 8MiB --plot allreduce.svg': {
    doc: 'benchmarks.md',
    why: 'docs/benchmarks.md is being revised elsewhere: listed until it settles (the command takes about 3 s; then move it to RUN)',
    coveredBy: ['test/runtime/cli.test.ts (coll bench allreduce with two algorithms, JSON and plot)'],
  },
  'view allreduce.json --open': {
    doc: 'view.md',
    why: 'serves the page until Ctrl-C, and opens a browser',
    coveredBy: ['test/view/server.test.ts (coll view in-process on a free port, the page over HTTP in chromium, stopped by SIGINT)', 'test/view/cli.test.ts (a port in use)'],
  },
};

// ---------------------------------------------------------------------------------------

/** Run the CLI in-process; what it printed on stdout and stderr. */
async function coll(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' '))),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' '))),
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true)),
  ];
  try {
    const code = await main(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

interface Found {
  readonly doc: string;
  readonly line: number;
  readonly key: string;
}

/** Every `coll …` command in a code block of a docs file. */
const found: Found[] = DOC_FILES.flatMap((f) => codeBlockCommands(doc(f)).map((c) => ({ doc: f, line: c.line, key: c.env + c.cmd })));

describe('the coll commands of docs/*.md are run here or listed with a reason (guard)', () => {
  it('finds commands in any code block and leaves output lines alone', () => {
    const md = [
      'text `coll inline --not-a-block`',
      '```sh',
      'npx coll sim reduce --procs 4   # a comment',
      '$ coll machine show alc',
      'COLL_X=1 coll run -n 2 prog.mjs',
      '```',
      '```',
      'coll sim: bad.json: invalid machine description:',
      'coll: warning: old.json is in the older shape; convert it with: coll machine convert old.json',
      '  coll   reproduce 004',
      '```',
      '```ts',
      '// run with: npx coll run -n 4 examples/allreduce.ts',
      '```',
    ].join('\n');
    expect(codeBlockCommands(md).map((c) => [c.line, c.env + c.cmd])).toEqual([
      [3, 'sim reduce --procs 4'],
      [4, 'machine show alc'],
      [5, 'COLL_X=1 run -n 2 prog.mjs'],
      [10, 'reproduce 004'],
    ]);
    expect(codeBlockCommands(md, { npxOnly: true, langs: ['sh'] }).map((c) => c.cmd)).toEqual(['sim reduce --procs 4']);
  });

  it('are found in the docs that show commands', () => {
    for (const f of ['machines.md', 'simulator.md', 'offload-experiments.md', 'runtime.md', 'benchmarks.md']) expect(found.some((c) => c.doc === f), f).toBe(true);
  });

  it('every command of a docs code block is in RUN or NOT_RUN', () => {
    const missing = found.filter((c) => !RUN[c.key] && !NOT_RUN[c.key]).map((c) => `docs/${c.doc}:${c.line}: coll ${c.key}`);
    expect(missing, 'add these to RUN (with a check of what the text says) or to NOT_RUN (with the reason and the covering tests)').toEqual([]);
  });

  it('every entry is still in its docs file, and in one list only', () => {
    for (const [key, e] of [...Object.entries(RUN), ...Object.entries(NOT_RUN)]) {
      expect(found.filter((c) => c.key === key).map((c) => c.doc), `'coll ${key}' is no longer in docs/${e.doc}`).toContain(e.doc);
    }
    expect(Object.keys(RUN).filter((k) => NOT_RUN[k])).toEqual([]);
  });

  it('the tests named in NOT_RUN exist', () => {
    for (const e of Object.values(NOT_RUN)) {
      expect(e.coveredBy.length).toBeGreaterThan(0);
      for (const t of e.coveredBy) expect(existsSync(t.split(' ')[0]), t).toBe(true);
    }
  });
});

describe('the coll commands of docs/*.md, run', () => {
  const root = mkdtempSync(join(tmpdir(), 'coll-docs-'));
  let n = 0;
  beforeEach(() => void n++);
  afterEach(() => vi.restoreAllMocks());
  for (const [key, r] of Object.entries(RUN)) {
    it(`docs/${r.doc}: coll ${key}${r.instead ? ` (run as: coll ${r.instead.cmd})` : ''}`, async () => {
      const dir = join(root, String(n));
      mkdirSync(dir);
      r.setup?.(dir);
      const res = await coll(inTmp(r.instead?.cmd ?? key, dir));
      expect(r.exit ?? [0], `exit ${res.code}\n${res.err}\n${res.out}`).toContain(res.code);
      await r.check({ ...res, dir });
    }, 120_000);
  }
});
