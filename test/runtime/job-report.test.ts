/** The job report (`coll run --report`, launch().report): combining node reports, and real jobs' figures. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { combineReports, type NodeReport } from '../../src/runtime/job-report.js';
import { runJob } from './job.js';
import { captureConsole } from '../helpers/console.js';

const tcp = (peers: number[], framesSent: number, setup: number) => ({
  dialled: 1, accepted: 0, peers, framesSent, framesReceived: 0, bytesSent: framesSent * 8, bytesReceived: 0, rejected: 0, connectionSetupUs: setup,
});

describe('combineReports', () => {
  it('counts each connected pair once, sums frames, takes the median set-up time and notes missing nodes', () => {
    const nodes: NodeReport[] = [
      { node: 2, ranks: [4, 5], startMs: 1, wallMs: 2, tcp: tcp([0, 1], 3, 300) },
      { node: 0, ranks: [0, 1], startMs: 1, wallMs: 2, tcp: tcp([1, 2], 5, 100), engine: { collectives: 4, framesSent: 7, framesDropped: 1 } },
      { node: 1, ranks: [2, 3], startMs: 1, wallMs: 2, tcp: tcp([0, 2], 1, 200) },
    ];
    const r = combineReports({ ranks: 8, nodeCount: 4, exitCode: 1, initMs: 10, wallMs: 20, reports: nodes });
    expect(r.connections).toBe(3); // 0-1, 0-2, 1-2
    expect(r.tcp.framesSent).toBe(9);
    expect(r.connectionSetupUs).toBe(200);
    expect(r.engine).toEqual({ collectives: 4, framesSent: 7, framesDropped: 1 });
    expect(r.nodesReported).toBe(3);
    expect(r.nodeCount).toBe(4);
    expect(r.nodes.map((n) => n.node)).toEqual([0, 1, 2]);
  });
});

describe('a job report', () => {
  const con = captureConsole();
  it('one node: no connections, no TCP figures', async () => {
    const r = await runJob('report.ts', 3, 1, ['5']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.report.connections).toBe(0);
    expect(r.report.nodesReported).toBe(1);
    expect(r.report.nodes[0].tcp).toBeUndefined();
    expect(r.report.initMs).toBeGreaterThan(0);
    expect(r.report.wallMs).toBeGreaterThanOrEqual(r.report.initMs);
  });

  it('three nodes, static connections: every pair connected before the ranks run, frames both ways, and the engines\' collectives in offload mode', async () => {
    const r = await runJob('report.ts', 3, 3, ['6', 'offload'], { COLL_CONNECTIONS: 'static' });
    expect(r.exitCode, r.stderr).toBe(0);
    const rep = r.report;
    expect(rep.nodesReported).toBe(3);
    expect(rep.connectionPolicy).toBe('static');
    expect(rep.connections).toBe(3);
    expect(rep.datagrams.framesSent).toBe(0); // every data frame went over TCP
    for (const n of rep.nodes) {
      expect(n.connections?.peers).toEqual([0, 1, 2].filter((p) => p !== n.node));
      expect(n.connections?.requestsSent).toBe(0);
      expect(n.tcp?.framesSent).toBeGreaterThan(0);
      expect(n.tcp?.framesReceived).toBeGreaterThan(0);
      expect(n.engine?.collectives).toBe(6);
    }
    const frames = rep.nodes.reduce((s, n) => s + (n.tcp?.framesSent ?? 0), 0);
    expect(rep.tcp.framesSent).toBe(frames);
    expect(rep.nodes.reduce((s, n) => s + (n.tcp?.framesReceived ?? 0), 0)).toBe(frames);
    expect(rep.connectionSetupUs).toBeGreaterThan(0);
  });

  it('on demand: a few collectives travel as datagrams with no connection; past the threshold each talking pair connects once', async () => {
    const onDemand = { COLL_CONNECTIONS: 'on-demand' };
    // 3 allreduces of 1 KiB over 4 nodes (recursive doubling: 2 partners, 1 message each per call): 3 messages each way per pair.
    const few = await runJob('report.ts', 4, 4, ['3'], onDemand);
    expect(few.exitCode, few.stderr).toBe(0);
    expect(few.report.connectionPolicy).toBe('on-demand');
    const traffic = JSON.stringify(few.report.nodes.map((n) => [n.connections?.traffic, n.connections?.requestsSent]));
    expect(few.report.connections, traffic).toBe(0);
    expect(few.report.datagrams.framesSent).toBeGreaterThanOrEqual(4 * 2 * 3);
    expect(few.report.retransmissions).toBe(0);
    expect(few.report.tcp.framesSent, traffic).toBe(0);
    // 20 calls: 40 messages per talking pair > 16, while pairs that never talk stay unconnected.
    const many = await runJob('report.ts', 4, 4, ['20'], onDemand);
    expect(many.exitCode, many.stderr).toBe(0);
    const rep = many.report;
    expect(rep.connections).toBeGreaterThanOrEqual(2);
    expect(rep.connections).toBeLessThan(6);
    expect(rep.connectionSetupUs).toBeGreaterThan(0);
    for (const n of rep.nodes) {
      const c = n.connections;
      expect(c?.connections).toBeGreaterThan(0);
      // Before its connection a pair exchanged at most threshold + 1 messages as datagrams (plus those in flight while it connected).
      for (const t of c?.traffic ?? []) if (!c?.peers.includes(t.peer)) expect(t.messagesSent + t.messagesReceived).toBeLessThanOrEqual(16);
    }
    expect(rep.nodes.reduce((s, n) => s + (n.connections?.positiveReplies ?? 0), 0)).toBe(rep.connections);
  });

  it('partial (the default): the ±2^i peers connected at start (all three at 4 nodes: 1, 2, 3 = 4 − 1), connectMs reported; per-peer traffic counts what ranks wrote directly', async () => {
    const r = await runJob('report.ts', 4, 4, ['1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.report.connectionPolicy).toBe('partial');
    for (const n of r.report.nodes) expect(n.connections?.initialPeers.length).toBe(3);
    expect(r.report.connections).toBe(6);
    expect(r.report.connectMs).toBeGreaterThan(0);
    // One allreduce by recursive doubling: each node sends one message to each of its 2 partners.
    for (const n of r.report.nodes) expect(n.connections?.traffic.reduce((s, t) => s + t.messagesSent, 0)).toBeGreaterThanOrEqual(2);
  });

  it('coll run --report FILE writes it; --connections chooses the policy', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'coll-report-')), 'r.json');
    const prog = fileURLToPath(new URL('./programs/report.ts', import.meta.url));
    expect(await main(['run', '-n', '2', '--nodes', '2', '--connections', 'static', '--report', file, prog, '3'])).toBe(0);
    const rep = JSON.parse(readFileSync(file, 'utf8')) as { version: number; connections: number; connectionPolicy: string; nodes: unknown[] };
    expect(rep.version).toBe(1);
    expect(rep.connectionPolicy).toBe('static');
    expect(rep.connections).toBe(1);
    expect(rep.nodes.length).toBe(2);
    expect(await main(['run', '-n', '2', '--nodes', '2', '--connections', 'sometimes', prog])).toBe(2);
    expect(con.err.join('\n')).toMatch(/--connections 'sometimes' is not a connection policy.*on-demand/s);
  });
});
