import { describe, expect, it } from 'vitest';
import { docsMarkers, geomean, matrixHeatMap, matrixJobs, matrixMarkdown, median, medianOf, peerTcpOnly, replaceSection, summarize, DOCS_BEGIN, DOCS_END, type MatrixJob, type MatrixRun, type MatrixSample } from '../../src/bench/matrix.js';
import { peerAvailable, runPeer } from '../../src/bench/peer.js';
import { runBenchJob } from '../../src/bench/bench.js';
import { ArgumentError } from '../../src/core/errors.js';
import { divergingColor } from '../../src/plot/svg.js';
import { addonPath } from '../../src/transport/mpi/binding.js';
import { existsSync } from 'node:fs';

/** A synthetic run: ours = peer × factor(job, bytes), several repetitions with noise. */
function syntheticRun(factor: (j: MatrixJob, bytes: number) => number): MatrixRun {
  const options = { collectives: ['barrier', 'allreduce'] as const, sizes: [8, 1 << 20], ranks: [2, 4], peers: ['openmpi' as const], reps: 3, iterations: 10, shared: true, extras: false, idle: 1 };
  const samples: MatrixSample[] = [];
  for (const job of matrixJobs(options)) {
    for (const bytes of job.sizes) {
      for (let rep = 0; rep < 3; rep++) {
        const peer = 10 + bytes / 1000;
        const noise = [1, 1.5, 0.9][rep]; // the median keeps the middle sample
        samples.push({ impl: 'openmpi', job, bytes, rep, avg_us: peer * noise });
        samples.push({ impl: 'collectives', job, bytes, rep, avg_us: peer * factor(job, bytes) * noise, algorithm: `${job.collective}/x` });
      }
    }
  }
  return { started: '2026-11-24T10:00:00.000Z', finished: '2026-11-24T10:05:00.000Z', machine: 'test', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0], options: { ...options, collectives: [...options.collectives] }, samples };
}

describe('benchmark matrix report', () => {
  it('median and geometric mean against brute force', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(Number.isNaN(median([]))).toBe(true);
    expect(geomean([1, 4, 16])).toBeCloseTo(4, 12);
    expect(geomean([2, 8, Number.NaN])).toBeCloseTo(4, 12);
  });

  it('jobs cover every collective × rank count once, barrier at size 0, plus spot checks and variants', () => {
    const jobs = matrixJobs({ peers: ['openmpi'] });
    const grid = jobs.filter((j) => j.kind === 'grid');
    expect(grid).toHaveLength(27);
    expect(grid.filter((j) => j.collective === 'barrier').every((j) => j.sizes.length === 1 && j.sizes[0] === 0)).toBe(true);
    expect(jobs.some((j) => j.kind === 'spot' && j.ranks === 3)).toBe(true);
    expect(jobs.some((j) => j.kind === 'spot' && j.datatype === 'int32' && j.op === 'max')).toBe(true);
    const variants = jobs.filter((j) => j.kind === 'variant');
    expect(variants.filter((j) => j.nonblocking)).toHaveLength(9);
    expect(variants.filter((j) => j.communicator === 'split')).toHaveLength(9);
    expect(matrixJobs({ peers: [], extras: false }).every((j) => j.kind === 'grid')).toBe(true);
  });

  it('ratios are medians of ours over medians of the peer; summaries per rank count', () => {
    const run = syntheticRun((j, b) => (j.ranks === 2 ? 2 : b >= 1 << 20 ? 0.5 : 8));
    const job = matrixJobs(run.options).find((j) => j.collective === 'allreduce' && j.ranks === 4) as MatrixJob;
    expect(medianOf(run, 'collectives', job, 8) / medianOf(run, 'openmpi', job, 8)).toBeCloseTo(8, 12);
    const s = summarize(run);
    expect(s).toHaveLength(2);
    expect(s[0]).toMatchObject({ ranks: 2, cells: 3, above3: 0 });
    expect(s[0].geomean).toBeCloseTo(2, 12);
    // 4 ranks: barrier 8×, allreduce 8 B 8×, allreduce 1 MiB 0.5× -> geomean (8·8·0.5)^(1/3) = 32^(1/3)
    expect(s[1].geomean).toBeCloseTo(32 ** (1 / 3), 12);
    expect(s[1].max).toBeCloseTo(8, 12);
    expect(s[1].above3).toBe(2);
    expect(s[1].maxLarge).toBeCloseTo(0.5, 12);
    const md = matrixMarkdown(run, 'img/x.svg');
    expect(md).toContain('| openmpi | 4 | 3 | **3.17×** | 8.00× | 2 | 0.50× |');
    expect(md).toContain('![ratio heat map](img/x.svg)');
    const svg = matrixHeatMap(run, 'openmpi');
    expect(svg).toContain('4 ranks · allreduce');
    expect(svg.startsWith('<svg')).toBe(true);
  });

  it('replaces the generated section of a document, keeping the rest', () => {
    const doc = `# T\n\nintro\n\n${DOCS_BEGIN}\nold\n${DOCS_END}\n\nanalysis\n`;
    const out = replaceSection(doc, 'new');
    expect(out).toBe(`# T\n\nintro\n\n${DOCS_BEGIN}\nnew\n${DOCS_END}\n\nanalysis\n`);
    expect(replaceSection('# T\n', 'x')).toBe(`# T\n\n${DOCS_BEGIN}\nx\n${DOCS_END}\n`);
  });

  it('across nodes: its own section in the docs, the run says so, the peer MPI held to TCP', () => {
    const one = syntheticRun(() => 2);
    const two: MatrixRun = { ...one, options: { ...one.options, nodes: 2 } };
    expect(matrixMarkdown(one)).toContain('; one node.');
    expect(matrixMarkdown(two)).toContain('2 node processes talking over TCP on loopback');
    expect(matrixHeatMap(two, 'openmpi')).toContain('2 nodes over TCP');
    // Both sections live in one document; replacing one leaves the other.
    const m = docsMarkers(2);
    expect(m.begin).not.toBe(DOCS_BEGIN);
    expect(docsMarkers(1)).toEqual({ begin: DOCS_BEGIN, end: DOCS_END });
    let doc = replaceSection('# B\n', 'intra', docsMarkers(1));
    doc = replaceSection(doc, 'inter', m);
    doc = replaceSection(doc, 'inter 2', m);
    expect(doc).toContain(`${DOCS_BEGIN}\nintra\n${DOCS_END}`);
    expect(doc).toContain(`${m.begin}\ninter 2\n${m.end}`);
    expect(doc).not.toContain('\ninter\n');
    // Over the MPI transport: a third section, and the run says how our nodes talked.
    const viaMpi: MatrixRun = { ...two, options: { ...two.options, transport: 'mpi' } };
    expect(matrixMarkdown(viaMpi)).toContain('talking through the MPI transport');
    expect(matrixHeatMap(viaMpi, 'openmpi')).toContain('2 nodes over the MPI transport');
    expect(docsMarkers(2, 'mpi').begin).not.toBe(m.begin);
    doc = replaceSection(doc, 'mpi', docsMarkers(2, 'mpi'));
    expect(doc).toContain(`${m.begin}\ninter 2\n${m.end}`);
    // Our side's algorithm named (MPI's own collectives): yet another section, and the run says so.
    const named: MatrixRun = { ...viaMpi, options: { ...viaMpi.options, algorithm: 'mpi' } };
    expect(matrixMarkdown(named)).toContain("our side runs `{ algorithm: 'mpi' }`");
    expect(docsMarkers(2, 'mpi', 'mpi').begin).toContain('bench-matrix-nodes-mpi-algorithm-mpi:begin');
    expect(peerTcpOnly('openmpi')).toEqual(['--mca', 'btl', 'tcp,self']);
    expect(peerTcpOnly('mpich').join(' ')).toContain('MPIR_CVAR_NOLOCAL 1');
  });

  it('colours: white at the neutral ratio, green faster, red slower, grey for no value', () => {
    expect(divergingColor(1, 1, 30)).toBe('rgb(255,255,255)');
    expect(divergingColor(1 / 30, 1, 30)).toBe('rgb(26,152,80)');
    expect(divergingColor(1000, 1, 30)).toBe('rgb(215,48,39)');
    expect(divergingColor(Number.NaN, 1, 30)).toBe('#d0d0d0');
  });
});

describe('benchmark jobs', () => {

  it('times exact sizes, nonblocking calls and a reversed split communicator', async () => {
    const base = { collective: 'allreduce' as const, algorithms: [null], minBytes: 1, maxBytes: 1, sizes: [8, 4096], iterations: 20, shared: true, datatype: 'float64' as const, op: 'sum', ranks: 3, nodes: 1 };
    const nb = await runBenchJob({ ...base, nonblocking: true });
    expect(nb.records.map((r) => [r.bytes, r.nonblocking, r.iterations])).toEqual([
      [8, true, 20],
      [4096, true, 20],
    ]);
    const split = await runBenchJob({ ...base, sizes: [64], communicator: 'split' });
    expect(split.records).toHaveLength(1);
    expect(split.records[0]).toMatchObject({ communicator: 'split', ranks: 3, bytes: 64 });
    expect(split.records[0].avg_us).toBeGreaterThan(0);
  });

  it.skipIf(!existsSync(addonPath('openmpi')) || !peerAvailable('openmpi'))('over the MPI transport: the job runs under mpirun, held to TCP like the peer', async () => {
    const r = await runBenchJob({ collective: 'allreduce', algorithms: [null], minBytes: 1, maxBytes: 1, sizes: [8], iterations: 20, shared: true, datatype: 'float64', op: 'sum', ranks: 2, nodes: 2, transport: 'mpi', env: { COLL_MPIRUN_ARGS: peerTcpOnly('openmpi').join(' ') } });
    expect(r.records.map((x) => [x.bytes, x.ranks, x.nodes])).toEqual([[8, 2, 2]]);
    expect(r.records[0].avg_us).toBeGreaterThan(0);
  });

  it('the MPI side runs the same sizes when an MPI is installed, or says which packages to install', async () => {
    if (!peerAvailable('openmpi')) {
      await expect(runPeer('openmpi', { collective: 'allreduce', ranks: 2, sizes: [8], iterations: 5 })).rejects.toThrow(ArgumentError);
      await expect(runPeer('openmpi', { collective: 'allreduce', ranks: 2, sizes: [8], iterations: 5 })).rejects.toThrow(/apt-get install -y openmpi-bin libopenmpi-dev/);
      return;
    }
    const recs = await runPeer('openmpi', { collective: 'reduce_scatter', ranks: 2, sizes: [8, 64], iterations: 5, datatype: 'int32', op: 'max' });
    expect(recs.map((r) => [r.collective, r.ranks, r.bytes, r.iterations])).toEqual([
      ['reduce_scatter', 2, 8, 5],
      ['reduce_scatter', 2, 64, 5],
    ]);
    expect(recs.every((r) => r.min_us > 0 && r.min_us <= r.avg_us && r.avg_us <= r.max_us)).toBe(true);
  });
});
