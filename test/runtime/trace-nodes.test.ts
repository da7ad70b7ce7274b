/**
 * `coll run --trace` across two node processes (2 × 2 ranks over TCP), with one
 * offloaded allreduce: the spans of both nodes on one time axis, messages between
 * nodes paired, and the offload engines' steps on their nodes' 'nic' lanes.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/index.js';
import type { RunTraceFile } from '../../src/runtime/run-trace.js';
import { checkRunTrace } from './trace-check.js';

const program = fileURLToPath(new URL('./programs/trace.ts', import.meta.url));

describe('coll run --trace, two nodes', () => {
  it('pairs messages between nodes and puts the engines on nic lanes', async () => {
    const r = await launch({ ranks: 4, nodes: 2, program, args: ['offload'], arenaMb: 64, jobTimeoutMs: 60_000, trace: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const t = JSON.parse(JSON.stringify(r.trace)) as RunTraceFile;
    const spans = checkRunTrace(t, 4, 2);
    // Messages between the nodes (ranks 0, 1 on node 0; 2, 3 on node 1) are paired like the others.
    const cross = spans.filter((s) => s.cat === 'recv' && s.tid === 'host' && s.pid < 2 !== (s.args.peer as number) < 2);
    expect(cross.length).toBeGreaterThan(0);
    // The engines ran the offloaded call's inter-node schedule, drawn under each node's first rank.
    const nic = spans.filter((s) => s.tid === 'nic');
    expect(new Set(nic.map((s) => s.pid))).toEqual(new Set([0, 2]));
    expect(nic.filter((s) => s.cat === 'collective').map((s) => s.args.label)).toEqual(['allreduce offload allreduce/recursive_doubling', 'allreduce offload allreduce/recursive_doubling']);
    for (const s of nic.filter((x) => x.cat === 'send' || x.cat === 'recv')) expect(s.args).toMatchObject({ peerLane: 'nic', peer: s.pid === 0 ? 2 : 0 });
    // Every rank's call span of the offloaded allreduce holds its engine's work.
    for (const e of nic.filter((s) => s.cat === 'collective')) {
      const host = spans.find((s) => s.pid === e.pid && s.tid === 'host' && s.args.label === 'allreduce offload allreduce/recursive_doubling');
      expect(host).toBeDefined();
      if (host) expect(host.ts + host.dur).toBeGreaterThanOrEqual(e.ts + e.dur);
    }
    expect(r.report.trace).toMatchObject({ spans: t.otherData.spans, dropped: 0, threads: 6 });
    expect(r.report.nodes.map((n) => n.trace?.threads)).toEqual([3, 3]);
  }, 60_000);
});
