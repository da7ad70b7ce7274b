import { describe, expect, it } from 'vitest';
import { DELTA } from '../../src/model/machines/index.js';
import { BLUE_WATERS } from '../../src/model/machines/index.js';
import { bienzCharts, littlefieldRegime, regimeSvg } from '../../src/model/regime.js';
import { reproduceModels } from '../../src/model/reproduce.js';

describe('coll reproduce models', () => {
  const r = reproduceModels({ largeSchedules: false });
  const find = (re: RegExp) => r.checks.filter((c) => re.test(c.claim));

  it('no check fails; unmatched numbers are marked not-matchable with the reason', () => {
    expect(r.checks.filter((c) => c.status === 'fail')).toEqual([]);
    for (const c of r.checks.filter((x) => x.status === 'not-matchable')) expect(c.note ?? '').not.toBe('');
    expect(find(/2048 bytes/)[0].status).toBe('not-matchable');
  });

  it('seed 000: optimal degrees 4, 2, 2, 2 at 31 nodes and the c < L_host − L_NIC rule', () => {
    expect(find(/optimal f-nomial degree/).map((c) => c.ours)).toEqual(['f = 4', 'f = 2', 'f = 2', 'f = 2']);
    expect(find(/iff c < L_host/).every((c) => c.status === 'pass')).toBe(true);
  });

  it('seed 003: 22.13 and 38.94 µs at 1024 nodes, closed form and DAG of the schedule', () => {
    const b = find(/1024/);
    expect(b.length).toBe(4);
    for (const c of b) expect(c.relError).toBeLessThan(1e-9);
  });

  it('seed 004 regime statements and ≥ 33% margins pass', () => {
    expect(find(/≥ 33% faster/).map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
    expect(find(/Tree is fastest for short vectors/)[0].status).toBe('pass');
  });

  it('seed 001: NAP step counts from the formula and from schedules', () => {
    expect(find(/NAP inter-node steps/).map((c) => c.ours)).toEqual(['1', '3', '3']);
    const s = find(/max inter-node messages per process/);
    if (s.length) expect(s[0].ours).toBe('8 / 8 / 2');
  });

  it('regime maps render as SVG with the winners in the legend', () => {
    const svg = regimeSvg(littlefieldRegime(DELTA, 'nominal', { meshes: [{ W: 4, H: 4 }], lengths: [100, 5e5] }));
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Tree');
    expect(svg).toContain('Snake');
    expect(r.maps.map((m) => m.name)).toContain('seed001-allreduce-16ppn');
    const c = bienzCharts(BLUE_WATERS);
    for (const svg of [c.fig10, c.fig11]) {
      expect(svg).toMatch(/^<svg/);
      for (const a of ['RD', 'SMP', 'NAP']) expect(svg).toContain(`>${a}</text>`);
    }
  });
});
