/**
 * The measured connection-policy experiment (`coll experiment connections --measure`,
 * src/experiments/connections-measure.ts): the program's output records, what the
 * job report says about a ping-pong's paths, the tables, JSON and plot from small fake
 * inputs, the CLI's option rules, and one small real run (2 nodes, on-demand and
 * static) whose connection must come after the pair's 16th message.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  initTable,
  latencyOf,
  latencyPlot,
  latencyTable,
  measureJson,
  measureTables,
  mixOf,
  mixTable,
  parseRecord,
  pingPongPaths,
  rotation,
  runConnectionsMeasure,
  summarize,
  type MeasureResult,
  type MeasureSample,
} from '../../src/experiments/connections-measure.js';
import { reproduceConnectionsMeasured } from '../../src/experiments/connections-reproduce.js';
import type { ConnectionPolicy } from '../../src/transport/connections.js';

type Report = Parameters<typeof pingPongPaths>[0];

/** A 2-node job report with what pingPongPaths reads. */
function report(policy: ConnectionPolicy, received: [number, number], datagrams: [number, number], connections: number): Report {
  const node = (i: number) => ({
    node: i,
    ranks: [i, i] as const,
    startMs: 1,
    wallMs: 2,
    connections: {
      policy,
      initialPeers: policy === 'on-demand' ? [] : [1 - i],
      datagramFramesSent: datagrams[i],
      traffic: [{ peer: 1 - i, messagesSent: 0, messagesReceived: received[i], bytesSent: 0, bytesReceived: 0 }],
    },
  });
  return { nodes: [node(0), node(1)], connections, connectionSetupUs: connections ? 6000 : 0 } as unknown as Report;
}

const rtts = (f: (i: number) => number): number[] => Array.from({ length: 40 }, (_, i) => f(i + 1));

function sample(policy: ConnectionPolicy, nodes: number, rep: number, x: Partial<MeasureSample> = {}): MeasureSample {
  return { policy, nodes, rep, initMs: 100, connectMs: 5, rssMb: 60, connections: 1, connectionSetupUs: 0, ...x };
}

function fakeResult(): MeasureResult {
  const samples: MeasureSample[] = [];
  const od = pingPongPaths(report('on-demand', [41, 41], [11, 12], 1), 40, 16);
  const st = pingPongPaths(report('static', [41, 41], [0, 0], 1), 40, 16);
  for (let rep = 0; rep < 3; rep++) {
    samples.push(sample('static', 2, rep, { initMs: 100 + rep, rssMb: 60, rttUs: rtts(() => 200 + rep), paths: st }));
    samples.push(sample('on-demand', 2, rep, { initMs: 90 + rep, connectMs: 0, rssMb: 59, rttUs: rtts((m) => (m < 12 ? 1000 : 150) + rep), paths: od }));
    samples.push(sample('static', 4, rep, { connections: 6, mixPassMs: [300 + rep, 200] }));
    samples.push(sample('on-demand', 4, rep, { connections: 4, mixPassMs: [330 + rep, 210] }));
  }
  const s = summarize(samples, { nodes: [2], policies: ['static', 'on-demand'], mixNodes: 4, latencyNodes: 2 });
  return {
    nodes: [2],
    reps: 3,
    policies: ['static', 'on-demand'],
    threshold: 16,
    byteThreshold: 65536,
    latency: { rounds: 40, bytes: 8 },
    mix: { small: 200, smallBytes: 8, large: 20, largeBytes: 65536, passes: 2, nodes: 4 },
    samples,
    ...s,
    seconds: 1,
  };
}

describe('connections program output', () => {
  it('parses rank 0’s EXP records and nothing else', () => {
    expect(parseRecord('[0] EXP LATENCY {"rttUs":[1.5,2]}')).toEqual({ kind: 'LATENCY', data: { rttUs: [1.5, 2] } });
    expect(parseRecord('[0] EXP MIX {"passMs":[3]}')?.kind).toBe('MIX');
    expect(parseRecord('[1] EXP LATENCY {"rttUs":[1]}')).toBeUndefined();
    expect(parseRecord('[0] warning: something')).toBeUndefined();
    expect(latencyOf({ rttUs: [1, 2, 3] })).toEqual([1, 2, 3]);
    expect(mixOf({ passMs: [4, 5] })).toEqual([4, 5]);
    expect(() => latencyOf({ rttUs: ['x'] })).toThrow(/malformed LATENCY/);
    expect(() => mixOf(undefined)).toThrow(/malformed MIX/);
  });

  it('finds from the job report where the pair crossed the threshold and switched', () => {
    // A barrier (1 message each way), then 40 ping-pongs: node 0 sent 10 pings as datagrams, node 1 11 pongs.
    const od = pingPongPaths(report('on-demand', [41, 41], [11, 12], 1), 40, 16);
    expect(od).toMatchObject({ before: [1, 1], pingsByDatagram: 10, pongsByDatagram: 11, crossingRound: 8, firstTcpRound: 12, connections: 1, setupUs: 6000 });
    // Static: connected from the start, nothing as datagrams.
    expect(pingPongPaths(report('static', [41, 41], [0, 0], 1), 40, 16)).toMatchObject({ crossingRound: 0, firstTcpRound: 1, pingsByDatagram: 0 });
    // Never connected (threshold out of reach).
    expect(pingPongPaths(report('on-demand', [41, 41], [41, 41], 0), 40, 1000)).toMatchObject({ crossingRound: 0, firstTcpRound: 0, pingsByDatagram: 40 });
  });

  it('rotates the policy order per repetition', () => {
    expect(rotation(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotation(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
  });
});

describe('tables, JSON and plot from fake samples', () => {
  const r = fakeResult();

  it('summarizes medians, spreads and ratios to static', () => {
    const od = r.init.find((p) => p.policy === 'on-demand');
    expect(od?.initMs).toEqual({ median: 91, min: 90, max: 92 });
    expect(od?.initVsStatic).toBeCloseTo(91 / 101, 3);
    expect(od?.rssVsStatic).toBeCloseTo(59 / 60, 3);
    const lat = r.latencySeries.find((x) => x.policy === 'on-demand');
    expect(lat?.rttUs).toHaveLength(40);
    expect(lat?.rttUs[0]).toBe(1001);
    expect(lat?.rttUs[39]).toBe(151);
    expect([lat?.crossingRound, lat?.firstTcpRound, lat?.datagramMessages]).toEqual([8, 12, 23]);
    const mix = r.mixPoints.find((x) => x.policy === 'on-demand');
    expect(mix?.vsStatic[0]).toBeCloseTo(331 / 301, 3);
    expect(mix?.passMs[1].median).toBe(210);
  });

  it('renders the tables', () => {
    const init = initTable(r);
    expect(init).toMatch(/2 {2}on-demand \(UD-OD\) +91\.0 \(90\.0–92\.0\)/);
    expect(init).toContain('−9.9%');
    expect(init).toMatch(/K=2 on-demand: init −9\.9% \(beyond both spreads\)/);
    const lat = latencyTable(r).split('\n');
    expect(lat.filter((l) => /^ {0,2}\d+ /.test(l))).toHaveLength(40);
    expect(lat.find((l) => l.startsWith('  8 '))).toContain('17th message');
    expect(lat.find((l) => l.startsWith(' 12 '))).toContain('first round trip over TCP');
    expect(latencyTable(r)).toContain('threshold passed in round trip 8, TCP both ways from round trip 12');
    expect(mixTable(r)).toMatch(/on-demand \(UD-OD\) .* 1\.100 /);
    const all = measureTables(r);
    expect(all).toContain('seed 003 claim 12');
    expect(all).toContain('12 jobs in 1 s');
  });

  it('writes JSON and the latency plot', () => {
    const j = JSON.parse(JSON.stringify(measureJson(r))) as { experiment: string; init: unknown[]; latencySeries: { rttUs: number[] }[]; mixPoints: unknown[]; samples: unknown[] };
    expect(j.experiment).toBe('connections-measure');
    expect(j.init).toHaveLength(2);
    expect(j.latencySeries.map((x) => x.rttUs.length)).toEqual([40, 40]);
    expect(j.mixPoints).toHaveLength(2);
    expect(j.samples).toHaveLength(12);
    const svg = latencyPlot(r);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('on-demand (UD-OD): threshold at 8, TCP from 12');
    expect(svg).toContain('static (Orig)');
  });

  it('gives reproduce rows from a result: exact counts need every policy, timing is information', async () => {
    const rows = await reproduceConnectionsMeasured({ result: r });
    const threshold = rows.find((c) => c.claim.startsWith('on-demand connects a pair only after'));
    expect(threshold?.status).toBe('pass');
    expect(threshold?.ours).toContain('23 messages as datagrams');
    expect(rows.find((c) => c.claim.startsWith('A3.11'))?.status).toBe('info');
    expect(await reproduceConnectionsMeasured({ quick: true })).toEqual([]);
  });
});

describe('coll experiment connections --measure', () => {
  it('keeps the count options and the measure options apart', async () => {
    await expect(main(['experiment', 'connections', '--measure', '--plot', 'x.svg'])).resolves.not.toBe(0);
    await expect(main(['experiment', 'connections', '--reps', '2'])).resolves.not.toBe(0);
    await expect(main(['experiment', 'connections', '--measure', '--nodes-list', '1'])).resolves.not.toBe(0);
  });

  it('real 2-node jobs: 40 round trips, and on-demand connects after the pair’s 16th message', async () => {
    const r = await runConnectionsMeasure({ nodes: [2], reps: 1, policies: ['static', 'on-demand'], mix: false });
    expect(r.samples).toHaveLength(2);
    const od = r.samples.find((s) => s.policy === 'on-demand');
    expect(od?.rttUs).toHaveLength(40);
    const p = od?.paths;
    expect(p?.connections).toBe(1);
    // More than 16 messages between the pair went as datagrams before the connection carried them.
    expect((p?.datagrams[0] ?? 0) + (p?.datagrams[1] ?? 0)).toBeGreaterThan(16);
    expect(p?.crossingRound).toBeGreaterThan(0);
    expect(p?.firstTcpRound).toBeGreaterThan(p?.crossingRound ?? Infinity);
    const st = r.samples.find((s) => s.policy === 'static');
    expect(st?.paths?.datagrams).toEqual([0, 0]);
    expect(r.latencySeries.map((x) => x.rttUs.length)).toEqual([40, 40]);
  }, 30_000);
});
