/**
 * Seed 004 (Littlefield 1992, global combine on the DELTA mesh under the NBL
 * constraint) checked by simulation: Tree (mesh_tree), Snake and Fence run as
 * schedules on the `delta` preset's 2-D mesh with the NBL node channel, under the
 * standard (f = 1), nominal (f = L) and fitted f(L); the regime statements of
 * Figs. 5 and 7 and the Table 1 testjig. Plot: the regime maps from simulation.
 *
 * Nothing is calibrated here: α, β, c2 are the seed's DELTA values (α split between
 * sender and receiver, an assumption), the f(L) presets are the seed's. Block sizes
 * are the closed form's optimum for each model (the schedules take S as a parameter).
 */
import { littlefieldParams, littlefieldTimes } from '../../model/regime.js';
import { DELTA } from '../../model/machines/index.js';
import { TESTJIG_TABLE1 } from '../../model/nbl.js';
import { categoryMapSvg } from '../../plot/svg.js';
import type { FPresetName } from '../../model/nbl.js';
import type { MachineSpec } from '../machine.js';
import { getPreset } from '../presets.js';
import { simulate } from '../simulate.js';
import { testjigSchedule } from '../testjig.js';
import { info, numeric, verdict, type SeedReproduction, type SimCheck } from './check.js';

const S = 'seed 004';
const ALGS = ['Tree', 'Snake', 'Fence'] as const;
type Alg = (typeof ALGS)[number];

export interface Seed004Options {
  /** Meshes (W×H) of the simulated regime grid (default 4×4, 8×8, 16×16). */
  readonly meshes?: readonly (readonly [number, number])[];
  /** Vector lengths (default 10^2 … 10^5). */
  readonly lengths?: readonly number[];
  readonly plots?: boolean;
}

export function seed004(o: Seed004Options = {}): SeedReproduction {
  const meshes = o.meshes ?? [[4, 4], [8, 8], [16, 16]];
  const lengths = o.lengths ?? [1e2, 1e3, 1e4, 1e5];
  const delta = getPreset('delta');
  const withF = (f: FPresetName): MachineSpec => ({ ...delta, network: { ...delta.network, nodeChannelF: f } });
  const checks: SimCheck[] = [];
  const plots: { name: string; svg: string }[] = [];

  /** Simulated times of the three algorithms (best-S from the closed form of the same model). */
  const times = (f: FPresetName, W: number, H: number, N: number): Record<Alg, number> => {
    const cf = littlefieldTimes(littlefieldParams(DELTA, f), W, H, N);
    const m = withF(f);
    const run = (algorithm: string, params: Record<string, number>): number =>
      simulate({ collective: 'allreduce', algorithm, machine: m, procs: W * H, mesh: { width: W, height: H }, bytes: 8 * N, params }).first.time;
    return {
      Tree: run('mesh_tree', {}),
      Snake: cf.snakeS !== undefined ? run('snake', { block: cf.snakeS }) : Infinity,
      Fence: cf.fenceS !== undefined ? run('fence', { block: cf.fenceS }) : Infinity,
    };
  };
  const grid = (f: FPresetName) =>
    meshes.map(([W, H]) =>
      lengths.map((N) => {
        const t = times(f, W, H, N);
        const sorted = [...ALGS].sort((a, b) => t[a] - t[b]);
        return { W, H, N, P: W * H, t, best: sorted[0], margin: t[sorted[1]] / t[sorted[0]] - 1 };
      }),
    );
  const std = grid('standard');
  const nom = grid('nominal');
  const cells = (g: ReturnType<typeof grid>) => g.flat();
  const where = (c: { W: number; H: number; N: number }) => `${c.W}×${c.H}, N = ${c.N}`;

  const shortTree = [std, nom].every((g) => g.every((row) => row[0].best === 'Tree'));
  const notTree = [...std.map((row) => ({ m: 'standard', c: row[0] })), ...nom.map((row) => ({ m: 'nominal', c: row[0] }))].filter((x) => x.c.best !== 'Tree');
  checks.push(
    verdict(
      S,
      `Tree fastest for short vectors under both models (N = ${lengths[0]}, every simulated mesh)`,
      'Tree (Fig. 5)',
      shortTree ? 'Tree everywhere' : `not on ${notTree.map((x) => `${x.c.W}×${x.c.H} ${x.m} (${x.c.best} by ${(x.c.margin * 100).toFixed(0)}%)`).join(', ')}`,
      shortTree,
      'all meshes',
      'validation',
      shortTree ? undefined : 'the simulator charges α/2 at each end of a message where the seed charges α per link and step at the busiest node, which favours the many-link Fence on small meshes',
    ),
  );
  const sNonTree = cells(std).filter((c) => c.best !== 'Tree');
  const fenceShare = sNonTree.filter((c) => c.best === 'Fence').length / Math.max(1, sNonTree.length);
  checks.push(verdict(S, 'standard model (f = 1): Fence fastest almost everywhere else', 'almost everywhere', `Fence wins ${(fenceShare * 100).toFixed(0)}% of the non-Tree cells`, fenceShare >= 0.75, '≥ 75%', 'validation'));
  const snakeStd = cells(std).filter((c) => c.best === 'Snake');
  const snakeNom = cells(nom).filter((c) => c.best === 'Snake');
  checks.push(
    verdict(S, 'standard model: Snake wins only with very long vectors on just a few nodes', 'small regime', snakeStd.length === 0 ? 'never' : snakeStd.map(where).join('; '), snakeStd.every((c) => c.P <= 64 && c.N >= 1e4), 'P ≤ 64, N ≥ 10^4', 'validation'),
  );
  const bigSnake = snakeNom.filter((c) => c.P >= 64).length;
  checks.push(
    verdict(
      S,
      'nominal NBL (f = L): Snake fastest over a large regime incl. moderately long vectors and many nodes',
      'large regime',
      `Snake cells: ${snakeNom.length} (standard ${snakeStd.length}), ${bigSnake} at P ≥ 64: ${snakeNom.map(where).join('; ') || '—'}`,
      snakeNom.length > snakeStd.length && bigSnake > 0,
      'more than standard, some at P ≥ 64',
      'validation',
    ),
  );
  for (const a of ALGS) {
    const wins = cells(nom).filter((c) => c.best === a);
    const best = wins.sort((x, y) => y.margin - x.margin)[0];
    checks.push(
      verdict(
        S,
        `each algorithm ≥ 33% faster than the other two somewhere (nominal NBL): ${a}`,
        '≥ 33%',
        best ? `+${(best.margin * 100).toFixed(0)}% at ${where(best)}` : 'never fastest',
        !!best && best.margin >= 0.33,
        '≥ 33%',
        'validation',
      ),
    );
  }
  // Fig. 7, fitted f(L): P = 16, very long vectors: Snake up to 33% faster than Fence; Tree → Fence → Snake as N grows.
  const fit = [1e2, 1e3, 1e4, 1e5, 5e5].map((N) => ({ N, t: times('fitted', 4, 4, N) }));
  const last = fit[fit.length - 1].t;
  checks.push(numeric(S, 'Fig. 7: Snake faster than Fence for very long vectors, P = 16, N = 5·10^5 (fitted f; "up to 33%")', 33, (last.Fence / last.Snake - 1) * 100, 0.35, '%', 'validation'));
  const order = fit.map((x) => [...ALGS].sort((a, b) => x.t[a] - x.t[b])[0]);
  const seq = order.filter((a, i) => i === 0 || order[i - 1] !== a);
  checks.push(
    verdict(S, 'Fig. 7: as N grows the fastest is first Tree, then Fence, then Snake (P = 16, fitted f)', 'Tree → Fence → Snake', seq.join(' → '), seq.join(',') === 'Tree,Fence,Snake', 'same order', 'validation', `N = 10^2 … 5·10^5: ${order.join(', ')}`),
  );

  // Table 1 testjig: f(L) = dT(L)/dT(1) on the simulated 3×3 mesh.
  const jig = (f: FPresetName, L: number, Sd: number): number =>
    simulate({ collective: 'allgather', algorithm: 'testjig', schedule: testjigSchedule(L, Sd), machine: withF(f), procs: 9, mesh: { width: 3, height: 3 }, bytes: 8 * Sd }).first.time;
  const fSim = (f: FPresetName, L: number): number => (jig(f, L, 120) - jig(f, L, 60)) / (jig(f, 1, 120) - jig(f, 1, 60));
  const printed = TESTJIG_TABLE1[0].f;
  checks.push(
    info(
      S,
      'Table 1 testjig, S = 60 → 120: f(2), f(4), f(6) measured vs simulated with the nominal channel',
      `${printed[2]}, ${printed[4]}, ${printed[6]}`,
      [2, 4, 6].map((L) => fSim('nominal', L).toFixed(2)).join(', '),
      'the nominal model serialises completely (f = L); the testjig measured overlap for short messages, which is what the fitted/testjig presets carry',
    ),
  );
  checks.push(
    info(
      S,
      'Table 1 testjig f(6), S = 60 → 120, simulated with the testjig preset',
      '3.8 (230/65 = 3.54 from its T column)',
      fSim('testjig', 6).toFixed(2),
      'the preset applies f(L, S) to each message (as the models do), so dT mixes two rows: (120·f(6, 120) − 60·f(6, 60))/60 = 4.6',
    ),
  );

  if (o.plots !== false) {
    for (const [name, g] of [['standard', std], ['nominal', nom]] as const) {
      plots.push({
        name: `seed004-fig5-regimes-simulated-${name}`,
        svg: categoryMapSvg({
          title: `Seed 004 Fig. 5 (simulated on the DELTA mesh, ${name} f(L)): fastest global combine`,
          x: { label: 'vector length N (doubles)', log: true, values: [...lengths] },
          y: { label: 'processors P', log: true, values: meshes.map(([W, H]) => W * H) },
          cells: g.map((row) => row.map((c) => c.best)),
          notes: g.map((row) => row.map((c) => `+${(c.margin * 100).toFixed(0)}%`)),
          categories: [...ALGS],
        }),
      });
    }
  }
  return { seed: S, checks, plots, effort: `regime grid of ${meshes.length} meshes × ${lengths.length} lengths, one deterministic run per algorithm and model (the paper's 16×32 mesh and N = 5·10^5 only for P = 16, to keep the run short)` };
}
