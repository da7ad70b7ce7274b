/**
 * NAS communication patterns (src/experiments/nas-patterns.ts), the connections
 * experiment and its CLI, and seed 003's Table 3.2 rows in `coll reproduce`: message
 * counts against hand-computed values for small N, the connection counts, the
 * threshold-capped stream giving the same connections as the full run, the statuses.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { connectionsPlot, connectionsTable, runConnectionsExperiment } from '../../src/experiments/connections.js';
import { reproduceConnections } from '../../src/experiments/connections-reproduce.js';
import {
  cgGrid,
  cgPartners,
  epPattern,
  isPattern,
  kernelPattern,
  kernelSupports,
  luGrid,
  luNeighbours,
  messageCount,
  messages,
  mgGrid,
  mgPattern,
  mgSetup,
  multipartitionNeighbours,
  NAS_KERNELS,
  thresholdMessages,
  type KernelPattern,
} from '../../src/experiments/nas-patterns.js';
import { CONNECTION_POLICIES, connectionsFor } from '../../src/transport/connections.js';

/** Messages between a and b (both directions) in the point-to-point phases only. */
function p2pPair(p: KernelPattern, a: number, b: number): number {
  let n = 0;
  for (const ph of p.phases) {
    if (ph.collective) continue;
    for (const [s, d] of ph.messages) if ((s === a && d === b) || (s === b && d === a)) n += ph.times;
  }
  return n;
}

const od = (p: KernelPattern): number => connectionsFor('on-demand', p.nodes, messages(p)).average;

describe('NAS patterns', () => {
  it('runs kernels only where NPB does', () => {
    expect(kernelSupports('SP', 16)).toBe(true);
    expect(kernelSupports('SP', 32)).toBe(false);
    expect(kernelSupports('CG', 24)).toBe(false);
    expect(kernelSupports('IS', 24)).toBe(true);
    expect(() => kernelPattern('BT', 8)).toThrow(/square/);
  });

  it('MG at 8: a 2×2×2 grid, 119 comm3 calls, 4 messages per neighbour pair each', () => {
    expect(mgGrid(8)).toEqual([2, 2, 2]);
    expect(mgGrid(16)).toEqual([2, 2, 4]);
    expect(mgGrid(32)).toEqual([2, 4, 4]);
    const s = mgSetup(0, 8);
    for (let k = 1; k <= 8; k++) expect(s.nbr[k]).toEqual([[1, 1], [2, 2], [4, 4]]);
    const p = mgPattern(8);
    // comm3: level 1 twice and levels 2..7 three times per V-cycle (5 cycles), the finest 2·5 + 7 resid + 2 zran3.
    expect(p2pPair(p, 0, 1)).toBe((2 * 5 + 6 * 3 * 5 + 19) * 4);
    expect(p2pPair(p, 0, 3)).toBe(0);
    expect(od(p)).toBe(3);
  });

  it('MG at 16: the axis of 4 processes has a coarse level at distance 2', () => {
    const s = mgSetup(4, 16); // idi = (0, 0, 1)
    expect(s.nbr[8][2]).toEqual([8, 0]);
    expect(s.nbr[1][2]).toEqual([12, 12]); // distance 2 on the coarsest level
    expect(s.dead[1]).toBe(false);
    expect(mgSetup(0, 16).dead[1]).toBe(true); // idi3 = 0 holds no point of level 1
  });

  it('CG at 16: a 4×4 grid, 2 row partners and the transpose partner', () => {
    expect(cgGrid(16)).toEqual({ npcols: 4, nprows: 4 });
    expect(cgGrid(32)).toEqual({ npcols: 8, nprows: 4 });
    expect(cgPartners(1, 16)).toEqual({ row: [3, 0], transpose: 4 });
    expect(cgPartners(5, 16)).toEqual({ row: [7, 4], transpose: 5 });
    const p = kernelPattern('CG', 16);
    // 16 conj_grad calls × (1 + 3·25 + 2 + 1) row exchanges, each way.
    expect(p2pPair(p, 1, 3)).toBe(2 * 16 * 79);
    expect(p2pPair(p, 1, 4)).toBe(2 * 16 * 26);
    expect(od(p)).toBe(2 + 12 / 16);
  });

  it('LU: the 2-D grid without wrap, 3 neighbours on average at 16', () => {
    expect(luGrid(16)).toEqual({ xdim: 4, ydim: 4 });
    expect(luGrid(32)).toEqual({ xdim: 8, ydim: 4 });
    expect(luNeighbours(0, 16)).toEqual({ south: 1, east: 4 });
    expect(luNeighbours(5, 16)).toEqual({ north: 4, south: 6, west: 1, east: 9 });
    expect(p2pPair(kernelPattern('LU', 16), 5, 6)).toBe(251 * (62 * 2 + 2));
  });

  it('SP/BT: the multipartition neighbours, 6 at 16', () => {
    const nb = multipartitionNeighbours(0, 16);
    expect(new Set([...nb.predecessor, ...nb.successor])).toEqual(new Set([1, 3, 4, 7, 12, 13]));
    expect(od(kernelPattern('SP', 16))).toBe(6);
    expect(od(kernelPattern('BT', 16))).toBe(6);
  });

  it('EP: only the collectives, as the runtime runs them', () => {
    const p = epPattern(16);
    expect(p.phases.every((ph) => ph.collective !== undefined)).toBe(true);
    expect(p.algorithms).toEqual(expect.arrayContaining(['barrier dissemination', 'allreduce recursive_doubling', 'bcast binomial']));
    // dissemination 16·4, 4 recursive-doubling allreduces 4·16·4, a binomial bcast 15.
    expect(messageCount(p)).toBe(64 + 4 * 64 + 15);
    expect(od(p)).toBe(0);
  });

  it('IS: every pair exchanges 22 keys messages (11 alltoallv)', () => {
    const p = isPattern(4);
    const direct = p.phases.find((ph) => ph.what.startsWith('alltoallv'));
    expect(direct?.messages.length).toBe(12);
    expect(direct?.times).toBe(11);
    expect(od(p)).toBe(3);
  });

  it('the threshold-capped stream gives the same connections as the whole run', () => {
    for (const k of NAS_KERNELS) {
      for (const n of [4, 8, 9, 16]) {
        if (!kernelSupports(k, n)) continue;
        const p = kernelPattern(k, n);
        for (const pol of CONNECTION_POLICIES) {
          for (const t of [4, 16]) expect(connectionsFor(pol, n, thresholdMessages(p, t), t).peers, `${k} ${n} ${pol} ${t}`).toEqual(connectionsFor(pol, n, messages(p), t).peers);
        }
      }
    }
  });
});

describe('connections experiment', () => {
  it('tabulates kernel × policy against N and plots on log axes', () => {
    const r = runConnectionsExperiment({ nodes: [4, 16], kernels: ['EP', 'CG', 'SP'] });
    expect(r.points.find((p) => p.kernel === 'CG' && p.policy === 'on-demand' && p.nodes === 16)?.average).toBe(2.75);
    const t = connectionsTable(r);
    expect(t).toMatch(/CG\s+on-demand \(UD-OD\)\s+1\.50\s+2\.75/);
    const svg = connectionsPlot(r);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('CG on-demand (UD-OD)');
  });
});

describe('coll experiment connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coll-connections-'));
  afterEach(() => vi.restoreAllMocks());

  it('prints the table and writes JSON and SVG', async () => {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const json = join(dir, 'c.json');
    const svg = join(dir, 'c.svg');
    expect(await main(['experiment', 'connections', '-n', '8,16', '--kernel', 'mg', '--json', json, '--plot', svg])).toBe(0);
    expect(out.join('\n')).toMatch(/MG\s+on-demand \(UD-OD\)\s+3\s+5/);
    const j = JSON.parse(readFileSync(json, 'utf8')) as { points: { kernel: string; policy: string; nodes: number; average: number }[] };
    expect(j.points.find((p) => p.policy === 'partial' && p.nodes === 16)?.average).toBe(7);
    expect(readFileSync(svg, 'utf8')).toContain('<svg');
    expect(await main(['experiment', 'connections', '--kernel', 'XX'])).not.toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('coll reproduce 003: Table 3.2 and claims 6–8', () => {
  it('passes every exact and one-decimal row; LU on-demand is information', () => {
    const rows = reproduceConnections();
    const info = rows.filter((r) => r.status === 'info').map((r) => r.claim);
    expect(info).toEqual(['Table 3.2, LU at 16 processes: UD-OD', 'Table 3.2, LU at 32 processes: UD-OD']);
    expect(rows.filter((r) => r.status !== 'pass' && r.status !== 'info')).toEqual([]);
    expect(rows.filter((r) => r.claim.startsWith('Table 3.2')).length).toBe(14);
    expect(rows.some((r) => r.claim.startsWith('claim 8'))).toBe(true);
    const cg = rows.find((r) => r.claim === 'Table 3.2, CG at 16 processes: Orig / UD-OD / UD-PS');
    expect(cg?.published).toBe('15 / 2.7 / 7.8');
    expect(cg?.ours).toBe('15 / 2.75 / 7.75');
  });
});
