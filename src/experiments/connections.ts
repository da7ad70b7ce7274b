/**
 * Connections experiment (seed 003 ch. 3, Table 3.2), the computation behind
 * `coll experiment connections`: the average number of connections per process for
 * each NAS kernel's communication pattern (nas-patterns.ts) under each connection
 * policy of the transport (static, on-demand, partial: connectionsFor in
 * src/transport/connections.ts) as the number of processes grows. Pure computation,
 * no processes are started. Output as a table, JSON objects and an SVG line chart.
 */
import { formatTable } from '../core/table.js';
import { lineChartSvg, type Series } from '../plot/svg.js';
import { CONNECTION_POLICIES, connectionsFor, DEFAULT_THRESHOLD, type ConnectionPolicy } from '../transport/connections.js';
import { kernelPattern, kernelSupports, NAS_KERNELS, thresholdMessages, type NasKernel } from './nas-patterns.js';

export const DEFAULT_NODES: readonly number[] = [4, 8, 16, 32, 64, 128, 256, 1024];

/** The seed's names of the policies (Table 3.2 rows). */
export const SEED_NAMES: Readonly<Record<ConnectionPolicy, string>> = { static: 'Orig', 'on-demand': 'UD-OD', partial: 'UD-PS' };

/** Seed 003 Table 3.2: average connections per process, NAS class A ("—": SP/BT need square counts). */
export const TABLE_3_2: Readonly<Record<16 | 32, Partial<Record<NasKernel, Readonly<Record<ConnectionPolicy, number>>>>>> = {
  16: {
    SP: { static: 15, 'on-demand': 6, partial: 9.5 },
    BT: { static: 15, 'on-demand': 6, partial: 9.5 },
    MG: { static: 15, 'on-demand': 5, partial: 7 },
    LU: { static: 15, 'on-demand': 3.6, partial: 7 },
    IS: { static: 15, 'on-demand': 15, partial: 15 },
    EP: { static: 15, 'on-demand': 0, partial: 7 },
    CG: { static: 15, 'on-demand': 2.7, partial: 7.8 },
  },
  32: {
    MG: { static: 31, 'on-demand': 7, partial: 9.5 },
    LU: { static: 31, 'on-demand': 4.1, partial: 9 },
    IS: { static: 31, 'on-demand': 31, partial: 31 },
    EP: { static: 31, 'on-demand': 0, partial: 9 },
    CG: { static: 31, 'on-demand': 3.8, partial: 9.8 },
  },
};

export interface ConnectionsPoint {
  readonly kernel: NasKernel;
  readonly policy: ConnectionPolicy;
  readonly nodes: number;
  readonly average: number;
  readonly min: number;
  readonly max: number;
}

export interface ConnectionsOptions {
  readonly nodes?: readonly number[];
  readonly kernels?: readonly NasKernel[];
  readonly policies?: readonly ConnectionPolicy[];
  readonly threshold?: number;
  /** Called before each (kernel, N). */
  readonly onPoint?: (kernel: NasKernel, nodes: number) => void;
}

export interface ConnectionsResult {
  readonly nodes: readonly number[];
  readonly kernels: readonly NasKernel[];
  readonly policies: readonly ConnectionPolicy[];
  readonly threshold: number;
  /** Points for the (kernel, N) NPB runs on (SP, BT: squares; CG, MG, LU: powers of two). */
  readonly points: readonly ConnectionsPoint[];
  /** The collectives' algorithms the patterns used. */
  readonly algorithms: readonly string[];
}

/** Connections of one kernel on `nodes` processes under each policy. */
export function kernelConnections(kernel: NasKernel, nodes: number, policies: readonly ConnectionPolicy[] = CONNECTION_POLICIES, threshold = DEFAULT_THRESHOLD): { readonly points: ConnectionsPoint[]; readonly algorithms: readonly string[] } {
  const p = kernelPattern(kernel, nodes);
  const points = policies.map((policy): ConnectionsPoint => {
    const plan = connectionsFor(policy, nodes, thresholdMessages(p, threshold), threshold);
    return { kernel, policy, nodes, average: plan.average, min: Math.min(...plan.perNode), max: Math.max(...plan.perNode) };
  });
  return { points, algorithms: p.algorithms };
}

export function runConnectionsExperiment(o: ConnectionsOptions = {}): ConnectionsResult {
  const nodes = o.nodes ?? DEFAULT_NODES;
  const kernels = o.kernels ?? NAS_KERNELS;
  const policies = o.policies ?? CONNECTION_POLICIES;
  const threshold = o.threshold ?? DEFAULT_THRESHOLD;
  const points: ConnectionsPoint[] = [];
  const algorithms = new Set<string>();
  for (const n of nodes) {
    for (const k of kernels) {
      if (!kernelSupports(k, n)) continue;
      o.onPoint?.(k, n);
      const r = kernelConnections(k, n, policies, threshold);
      points.push(...r.points);
      for (const a of r.algorithms) algorithms.add(a);
    }
  }
  return { nodes, kernels, policies, threshold, points, algorithms: [...algorithms].sort() };
}

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** Rows kernel × policy, columns N; "—" where NPB does not run the kernel. */
export function connectionsTable(r: ConnectionsResult): string {
  const head = ['kernel', 'policy', ...r.nodes.map((n) => `N=${n}`)];
  const rows: string[][] = [head];
  for (const k of r.kernels) {
    for (const pol of r.policies) {
      rows.push([k, `${pol} (${SEED_NAMES[pol]})`, ...r.nodes.map((n) => {
        const p = r.points.find((x) => x.kernel === k && x.policy === pol && x.nodes === n);
        return p ? fmt(p.average) : '—';
      })]);
    }
  }
  return [
    `average connections per process, NAS class A patterns, threshold ${r.threshold} messages per pair (one process per node)`,
    ...formatTable(rows, { align: ['l', 'l'], others: 'r' }),
    `collectives as this runtime runs them: ${r.algorithms.join(', ')}`,
  ].join('\n');
}

export function connectionsJson(r: ConnectionsResult): object[] {
  return r.points.map((p) => ({ experiment: 'connections', threshold: r.threshold, ...p, seedName: SEED_NAMES[p.policy] }));
}

/**
 * Average connections against N on log–log axes: static once (it is N − 1 for every
 * kernel), on-demand and partial per kernel. Zeros (EP on-demand) cannot be drawn on
 * the log axis; the title says so.
 */
export function connectionsPlot(r: ConnectionsResult): string {
  const series: Series[] = [];
  const line = (k: NasKernel, pol: ConnectionPolicy): [number, number][] => r.points.filter((p) => p.kernel === k && p.policy === pol).map((p) => [p.nodes, p.average]);
  if (r.policies.includes('static') && r.kernels.length > 0) series.push({ name: 'static (Orig), every kernel: N − 1', points: line(r.kernels[0], 'static') });
  for (const pol of r.policies.filter((x) => x !== 'static')) {
    for (const k of r.kernels) {
      const pts = line(k, pol);
      if (pts.length > 0) series.push({ name: `${k} ${pol} (${SEED_NAMES[pol]})`, points: pts });
    }
  }
  return lineChartSvg({
    title: `Connections per process, NAS class A patterns (seed 003 Table 3.2), threshold ${r.threshold}; EP on-demand is 0 (off the log axis)`,
    x: { label: 'processes N', log: true },
    y: { label: 'average connections per process', log: true },
    series,
    height: 560,
  });
}
