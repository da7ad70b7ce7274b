/**
 * Start-up experiment (seed 003 ch. 2, Table 2.1 and §2.7), the driver behind
 * `coll experiment startup`: whole jobs of N node processes (one rank each) started
 * with every combination of
 *
 * - initiation: `direct` (the launcher spawns the nodes on this machine), `agent`
 *   (through a launch agent as on other hosts: `coll run --hosts`, ssh or a stand-in),
 *   `ring` (through a daemon ring, `coll ring up` once per N, then `coll run --ring`);
 * - exchange scheme: original, reassembly, bootstrap (launch/startup/schemes.ts);
 *
 * repeated and interleaved, medians reported: the job's start-up (launch to every
 * rank running), the initiation (launch to the last node's control connection), the
 * exchange, the daemon ring's request trip, and the launcher's id bytes.
 *
 * The model is the seed's §2.7 form T(N) = a + b·N + V(N)/B: a fixed cost and a
 * per-process cost (T_init), fitted to each curve by least squares, plus the scheme's
 * volume V through its busiest party (the launcher for original and reassembly, one
 * node for the ring) over the management network's bandwidth B. B is not fitted: the
 * ids of N ≤ 16 processes (16 KB at most) move in microseconds on one machine, far
 * below the noise of starting processes, so their term cannot be identified from these
 * runs; it is an input (default 100 MB/s, the extract's reading of the seed's W_x), and
 * the extrapolation to the seed's 1024 and 2048 processes shows where it takes over.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ringRequest, ringUp } from '../launch/daemon/ring.js';
import type { RingFile } from '../launch/daemon/protocol.js';
import { expectedCounts, type StartupScheme } from '../launch/startup/schemes.js';
import { launch } from '../runtime/launcher.js';
import { lineChartSvg, type Series } from '../plot/svg.js';
import { leastSquares } from '../tune/lsq.js';
import { startupTime as seedStartupTime } from '../model/closed/yu.js';
import { median, round } from './stats.js';
import { ArgumentError, CollectivesError } from '../core/errors.js';
import { formatTable } from '../core/table.js';

export const INITIATIONS = ['direct', 'agent', 'ring'] as const;
export type Initiation = (typeof INITIATIONS)[number];

export interface StartupExperiment {
  /** Node process counts (the seed's N). */
  readonly processes: readonly number[];
  readonly schemes: readonly StartupScheme[];
  readonly initiations: readonly Initiation[];
  readonly repetitions: number;
  /**
   * For `agent` and `ring`: the launch agent (called as ssh) and the hosts, one per
   * node process (at least max N). Default: a stand-in agent that runs the command on
   * this machine, and host names h0, h1, …
   */
  readonly agent?: string;
  readonly hosts?: readonly string[];
  /** The management network's bandwidth for the model's volume term, bytes/s (default 1e8). */
  readonly bandwidth?: number;
}

export interface StartupPoint {
  readonly initiation: Initiation;
  readonly scheme: StartupScheme;
  readonly processes: number;
  /** Launch to every rank running, ms (median over repetitions). */
  readonly startupMs: number;
  /** Launch to the last node's control connection, ms (median). */
  readonly initiationMs: number;
  /** The exchange itself (JobReport.startup.ms), ms (median). */
  readonly exchangeMs: number;
  /** ring: when the launch request reached the last daemon, ms after it entered the ring (median); 0 otherwise. */
  readonly ringMs: number;
  /** Id bytes through the launcher (received + sent) and sent by each node around the ring. */
  readonly launcherBytes: number;
  readonly ringBytesPerNode: number;
  readonly runs: number;
}

export interface StartupFit {
  readonly initiation: Initiation;
  readonly scheme: StartupScheme;
  /** T_init(N) = a + b·N, seconds, fitted. */
  readonly a: number;
  readonly b: number;
  readonly r2: number;
  /** The volume term's bandwidth B, bytes/s (an input). */
  readonly bandwidth: number;
  /** T(N) = a + b·N + V(N)/B at the seed's sizes, seconds, and the volume term's share of it. */
  readonly at1024: number;
  readonly at2048: number;
  readonly volumeAt2048: number;
}

export interface StartupResult {
  readonly experiment: StartupExperiment;
  readonly points: StartupPoint[];
  readonly fits: StartupFit[];
}

/** The volume through the scheme's busiest party, bytes: the launcher (original, reassembly) or one node on the ring (bootstrap). */
export function schemeVolume(scheme: StartupScheme, n: number): number {
  const e = expectedCounts(scheme, n);
  return scheme === 'bootstrap' ? e.perNodeRing.idBytesSent : e.launcher.idBytesReceived + e.launcher.idBytesSent;
}

/** A launch agent that runs the command on this machine (for hosts that are names only). */
export function localAgent(dir: string): string {
  const file = join(dir, 'local-agent.sh');
  writeFileSync(file, '#!/bin/sh\n# Called as ssh is (AGENT HOST COMMAND...): run the command here.\nshift\nexec sh -c "$*"\n', { mode: 0o755 });
  return file;
}

export async function runStartupExperiment(x: StartupExperiment, onProgress?: (done: number, total: number, what: string) => void): Promise<StartupResult> {
  const dir = mkdtempSync(join(tmpdir(), 'coll-startup-'));
  const agent = x.agent ?? localAgent(dir);
  const maxN = Math.max(...x.processes);
  const hosts = x.hosts ?? Array.from({ length: maxN }, (_, i) => `h${i}`);
  if (hosts.length < maxN && x.initiations.some((i) => i !== 'direct')) throw new ArgumentError(`${maxN} node processes need ${maxN} hosts, got ${hosts.length}`);
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./startup-program.${ext}`, import.meta.url));
  const samples = new Map<string, { startup: number[]; initiation: number[]; exchange: number[]; reached: number[]; launcher: number; ring: number }>();
  const total = x.processes.length * x.repetitions * x.initiations.length * x.schemes.length;
  let done = 0;
  try {
    for (const n of x.processes) {
      let ring: RingFile | undefined;
      if (x.initiations.includes('ring')) ring = await ringUp({ hosts: hosts.slice(0, n).map((host) => ({ host, slots: 1 })), agent });
      try {
        for (let rep = 0; rep < x.repetitions; rep++)
          for (const initiation of x.initiations)
            for (const scheme of x.schemes) {
              onProgress?.(done, total, `N=${n} ${initiation} ${scheme}`);
              const r = await launch({
                ranks: n,
                program,
                startup: scheme,
                arenaMb: 8,
                engine: false,
                jobTimeoutMs: 120_000,
                ...(initiation === 'direct' ? { nodes: n } : initiation === 'agent' ? { hosts: hosts.slice(0, n).map((host) => ({ host, slots: 1 })), launchAgent: agent } : { ring }),
              });
              if (r.exitCode !== 0) throw new CollectivesError('RANK_FAILED', `start-up job (N=${n}, ${initiation}, ${scheme}) failed: ${r.failure?.reason ?? `exit code ${r.exitCode}`}`);
              const key = `${initiation}|${scheme}|${n}`;
              const s = samples.get(key) ?? { startup: [], initiation: [], exchange: [], reached: [], launcher: 0, ring: 0 };
              const rep0 = r.report;
              s.startup.push(rep0.initMs);
              s.initiation.push(rep0.connectedMs);
              s.exchange.push(rep0.startup?.ms ?? 0);
              s.reached.push(Math.max(0, ...(rep0.launch?.ring?.reachedMs ?? [])));
              s.launcher = (rep0.startup?.launcher.idBytesReceived ?? 0) + (rep0.startup?.launcher.idBytesSent ?? 0);
              s.ring = n > 0 ? (rep0.startup?.ring.idBytesSent ?? 0) / n : 0;
              samples.set(key, s);
              done++;
            }
      } finally {
        if (ring) await ringRequest(ring, { type: 'exit' }).catch(() => undefined);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  onProgress?.(total, total, 'done');
  const points: StartupPoint[] = [...samples.entries()].map(([key, s]) => {
    const [initiation, scheme, n] = key.split('|');
    return {
      initiation: initiation as Initiation,
      scheme: scheme as StartupScheme,
      processes: Number(n),
      startupMs: round(median(s.startup), 1),
      initiationMs: round(median(s.initiation), 1),
      exchangeMs: round(median(s.exchange), 1),
      ringMs: round(median(s.reached), 1),
      launcherBytes: s.launcher,
      ringBytesPerNode: s.ring,
      runs: s.startup.length,
    };
  });
  return { experiment: x, points, fits: fitStartup(points, x.bandwidth) };
}

/** Fit T_init(N) = a + b·N per initiation and scheme and add V(N)/B (seconds); see the header. */
export function fitStartup(points: readonly StartupPoint[], bandwidth = 1e8): StartupFit[] {
  const out: StartupFit[] = [];
  const groups = new Map<string, StartupPoint[]>();
  for (const p of points) groups.set(`${p.initiation}|${p.scheme}`, [...(groups.get(`${p.initiation}|${p.scheme}`) ?? []), p]);
  for (const [key, ps] of groups) {
    const [initiation, scheme] = key.split('|') as [Initiation, StartupScheme];
    if (ps.length < 2) continue;
    const fit = leastSquares(
      ps.map((p) => [1, p.processes]),
      ps.map((p) => p.startupMs / 1000),
    );
    const [a, b] = fit.coef;
    const at = (n: number): number => a + b * n + schemeVolume(scheme, n) / bandwidth;
    out.push({ initiation, scheme, a, b, r2: fit.r2, bandwidth, at1024: at(1024), at2048: at(2048), volumeAt2048: schemeVolume(scheme, 2048) / bandwidth });
  }
  return out;
}

export function startupTable(r: StartupResult): string {
  const head = ['initiation', 'scheme', 'N', 'start-up ms', 'initiation ms', 'exchange ms', 'ring request ms', 'launcher B', 'ring B/node'];
  const rows = [...r.points]
    .sort((a, b) => a.initiation.localeCompare(b.initiation) || a.scheme.localeCompare(b.scheme) || a.processes - b.processes)
    .map((p) => [
      p.initiation,
      p.scheme,
      String(p.processes),
      p.startupMs.toFixed(1),
      p.initiationMs.toFixed(1),
      p.exchangeMs.toFixed(1),
      p.initiation === 'ring' ? p.ringMs.toFixed(1) : '—',
      String(p.launcherBytes),
      String(p.ringBytesPerNode),
    ]);
  const mbs = (r.fits[0]?.bandwidth ?? 1e8) / 1e6;
  const fits = r.fits.map((f) => [
    f.initiation,
    f.scheme,
    `a ${f.a.toFixed(3)} s  b ${(f.b * 1000).toFixed(1)} ms/process  R² ${f.r2.toFixed(3)}  → N=1024 ${f.at1024.toFixed(1)} s, N=2048 ${f.at2048.toFixed(1)} s (volume ${f.volumeAt2048.toFixed(2)} s of it)`,
  ]);
  return [
    ...formatTable([head, ...rows], { align: ['l', 'l'], others: 'r' }),
    '',
    `model T(N) = a + b·N (fitted) + V(N)/B (V: id bytes through the busiest party; B = ${mbs} MB/s, an input)`,
    ...formatTable(fits),
  ].join('\n');
}

export function startupJson(r: StartupResult): object[] {
  return [...r.points.map((p) => ({ kind: 'point', ...p })), ...r.fits.map((f) => ({ kind: 'fit', ...f }))];
}

/** Start-up time against N per initiation and scheme: measured points and fitted lines. */
export function startupPlot(r: StartupResult): string {
  const series: Series[] = [];
  for (const f of r.fits) {
    const ps = r.points.filter((p) => p.initiation === f.initiation && p.scheme === f.scheme).sort((a, b) => a.processes - b.processes);
    series.push({ name: `${f.initiation} ${f.scheme} (measured)`, points: ps.map((p) => [p.processes, p.startupMs]) });
  }
  return lineChartSvg({ title: 'Job start-up against node processes (seed 003 Table 2.1 / §2.7)', x: { label: 'node processes N' }, y: { label: 'start-up, ms (median)' }, series });
}

/**
 * The fitted model extrapolated to the seed's sizes (log-log) for the seed's four rows
 * (Original, SSH-DR and SSH-BC through the launch agent, MPD-BC through the daemon
 * ring; every fit when those were not run), beside the seed's own §2.7 models with the
 * extract's W_x (closed/yu.ts).
 */
export function startupModelPlot(r: StartupResult): string {
  const ns = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
  // The seed's rows: Original, SSH-DR and SSH-BC through a launch agent, MPD-BC through the daemon ring.
  const rows = [
    ['agent', 'original'],
    ['agent', 'reassembly'],
    ['agent', 'bootstrap'],
    ['ring', 'bootstrap'],
  ];
  const shown = r.fits.filter((f) => rows.some(([i, sc]) => f.initiation === i && f.scheme === sc));
  const series: Series[] = (shown.length > 0 ? shown : r.fits).map((f) => ({
    name: `${f.initiation} ${f.scheme} (fit + V/B)`,
    points: ns.map((n) => [n, f.a + f.b * n + schemeVolume(f.scheme, n) / f.bandwidth] as [number, number]),
  }));
  for (const [scheme, label] of [['original', 'Original'], ['ssh-dr', 'SSH-DR'], ['mpd-bc', 'MPD-BC']] as const)
    series.push({ name: `seed §2.7 ${label}`, points: ns.filter((n) => n >= 4).map((n) => [n, seedStartupTime(scheme, n)] as [number, number]) });
  return lineChartSvg({ title: 'Start-up model extrapolated (seconds): this machine’s fit + id volume over B, and the seed’s §2.7 models', x: { label: 'processes N', log: true }, y: { label: 'start-up, s', log: true }, series });
}
