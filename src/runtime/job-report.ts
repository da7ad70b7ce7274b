/**
 * The job report (`coll run --report FILE`, `launch().report`): one JSON document per
 * job with the job's totals at top level and each node's figures in `nodes`, so that
 * anyone can check a claim about the runtime from the outside. Every runtime subsystem
 * adds its counters here: today the job's timing, the TCP connections and frames
 * between nodes, and the offload engines' collectives and NIC-protocol frames.
 *
 * Each node process fills a NodeReport at its end and sends it to the launcher with
 * its final message; the launcher adds the job-level figures (combineReports). Nodes
 * that died send none: `nodesReported` then falls short of `nodeCount`.
 */
import { median } from '../core/stats.js';
import type { TcpCounters } from '../transport/tcp/device.js';
import type { MpiLinkCounters } from '../transport/mpi/link.js';
import type { McastReport } from '../transport/mcast/agent.js';
import type { NodeCheckpointReport } from './checkpoint.js';
import type { JobIoReport } from './io-servers.js';
import type { ConnectionCounters, ConnectionPolicy } from '../transport/connections.js';
import type { NodeExchangeCounters } from '../launch/startup/node-exchange.js';
import { addPathCounters, zeroPaths, type PathCounters } from './path-counters.js';
import { expectedCounts, type ExchangeCounters, type StartupScheme } from '../launch/startup/schemes.js';

export type { TcpCounters };

/** Counters of one node's offload engine (offload/engine). */
export interface EngineCounters {
  readonly collectives: number;
  readonly framesSent: number;
  readonly framesDropped: number;
}

export interface NodeReport {
  readonly node: number;
  /** First and last world rank of the node. */
  readonly ranks: readonly [number, number];
  /** From the node process's start to every rank thread running, ms. */
  readonly startMs: number;
  /** The node process's resident memory when every rank thread was running, MiB (seed 003 Fig 3.5 measures memory at the end of MPI_Init). */
  readonly startRssMb?: number;
  /** From the node process's start to its end, ms. */
  readonly wallMs: number;
  /** Where the node's TCP server listened, host:port (absent on a one-node job). */
  readonly address?: string;
  /** Absent on a one-node job. */
  readonly tcp?: TcpCounters;
  /**
   * Adaptive connection management (transport/connections.ts): policy, requests,
   * replies, datagram and TCP traffic per path and per peer, and `connectMs`, what
   * making the policy's initial connections added to the start (absent on one node).
   */
  readonly connections?: ConnectionCounters & { readonly connectMs: number };
  /** The MPI transport's traffic and library (transport/mpi; absent on TCP). */
  readonly mpi?: MpiLinkCounters;
  /** The node's multicast agent (transport/mcast; absent on one node, with COLL_MCAST=off, or where multicast could not start). */
  readonly multicast?: McastReport;
  /** Checkpoints taken by the node's ranks (runtime/checkpoint.ts; absent when none was taken or restored). */
  readonly checkpoint?: NodeCheckpointReport;
  /** Why the node ran without its multicast agent although multicast was on. */
  readonly multicastUnavailable?: string;
  /** Absent when no rank of the node offloaded a call. */
  readonly engine?: EngineCounters;
  /** This node's side of the start-up exchange (absent on a one-node job). */
  readonly startup?: NodeExchangeCounters;
  /** Which path its ranks' collective calls took (path-counters.ts; absent from nodes that predate it). */
  readonly paths?: PathCounters;
  /** V8 helper threads of the node process lowered to `nice` before its ranks started (helper-priority.ts). */
  readonly helperThreads?: { readonly nice: number; readonly lowered: number };
  /** Spans its threads recorded (`coll run --trace`; absent when tracing was off): threads that sent spans, spans kept, spans dropped. */
  readonly trace?: { readonly threads: number; readonly spans: number; readonly dropped: number };
}

export interface JobReport {
  /** Format version of this document. */
  readonly version: 1;
  readonly ranks: number;
  readonly nodeCount: number;
  /** Nodes whose report arrived (fewer than `nodeCount` when a node died). */
  readonly nodesReported: number;
  readonly exitCode: number;
  /** From launch to every rank thread running on every node, ms. */
  readonly initMs: number;
  /** From launch to the last node's control channel (the nodes are started and reached), ms. */
  readonly connectedMs: number;
  /** From launch to the end of the job, ms. */
  readonly wallMs: number;
  /** Node pairs that were connected (each pair counted once). */
  readonly connections: number;
  /**
   * Median connection set-up time, µs (0: none): from an on-demand request to the
   * connection carrying frames where there were requests, else from dialling to an
   * authenticated connection.
   */
  readonly connectionSetupUs: number;
  /** The connection policy of a multi-node job (absent on one node). */
  readonly connectionPolicy?: ConnectionPolicy;
  /** The slowest node's time to make the policy's initial connections before its ranks ran, ms. */
  readonly connectMs: number;
  /** Datagram-path totals: datagrams sent and received, retransmitted, duplicates and foreign ones dropped, data frames. */
  readonly datagrams: {
    readonly sent: number;
    readonly received: number;
    readonly retransmissions: number;
    readonly duplicatesDropped: number;
    readonly foreignDropped: number;
    readonly framesSent: number;
  };
  /** Datagrams sent again after a timeout or a gap (datagrams.retransmissions). */
  readonly retransmissions: number;
  readonly tcp: { readonly framesSent: number; readonly bytesSent: number; readonly rejected: number };
  /** How the nodes talked: 'tcp' (with the datagram path) or 'mpi' (transport/mpi). */
  readonly transport: 'tcp' | 'mpi';
  /** The MPI transport's totals and library (absent on TCP). */
  readonly mpi?: { readonly flavour: string; readonly library: string; readonly framesSent: number; readonly bytesSent: number };
  /**
   * The multicast broadcast path's totals over the nodes (absent when no node ran it;
   * per node under nodes[i].multicast): fragments, the sync-ups that double as ACKs,
   * NACKs, rebroadcast fragments, resyncs, fail-overs to the point-to-point tree.
   */
  readonly multicast?: McastTotals;
  /** The job's I/O servers (runtime/io-servers.ts): addresses, their directory and each one's counters (absent without --io-servers/--io-server). */
  readonly io?: JobIoReport;
  readonly engine: EngineCounters;
  /**
   * Collective calls by the path they took, summed over ranks: `flat` (shared slots),
   * `direct` (the flat path's direct mode), `scheduled` (a schedule; `directFallbacks`
   * of them were direct calls a rank could not share a buffer for), `offloaded`; and
   * `stagedBytes`, what direct mode copied through the arena for buffers outside it.
   */
  readonly paths: PathCounters;
  /** How the node processes were started and where (absent for a job on this machine only). */
  readonly launch?: LaunchReport;
  /** The endpoint exchange at start-up (absent on a one-node job). */
  readonly startup?: StartupReport;
  /**
   * Checkpoints (runtime/checkpoint.ts; jobs with a checkpoint directory): the directory,
   * restarts made by --max-restarts and the epochs each run restarted from, checkpoints
   * taken, the last epoch, bytes written, and the phases (ms, slowest node).
   */
  readonly checkpoint?: JobCheckpointReport;
  /**
   * Span recording (`coll run --trace FILE`, `launch({ trace })`; absent when it was
   * off): spans kept and dropped over every thread, the bound per thread, and the file
   * the timeline was written to.
   */
  readonly trace?: JobTraceReport;
  /** Each node's figures, by node index. */
  readonly nodes: readonly NodeReport[];
}

export interface JobTraceReport {
  /** Spans recorded and kept, over every rank thread and offload engine. */
  readonly spans: number;
  /** Spans not kept because a thread's buffer was full. */
  readonly dropped: number;
  /** Spans kept per thread. */
  readonly limit: number;
  /** Threads that sent spans (rank threads and engines). */
  readonly threads: number;
  /** Where the Chrome trace was written (absent: not written, e.g. `launch({ trace: true })`). */
  readonly file?: string;
}

export interface JobCheckpointReport extends Partial<NodeCheckpointReport> {
  readonly dir: string;
  readonly restarts: number;
  readonly restartedFrom: readonly number[];
}

export interface McastTotals {
  readonly group: string;
  readonly reliable: boolean;
  readonly messages: number;
  readonly fragments: number;
  readonly fragmentsReceived: number;
  readonly acks: number;
  readonly nacks: number;
  readonly retransmissions: number;
  readonly resyncs: number;
  readonly polls: number;
  readonly failovers: number;
  readonly treeFrames: number;
  readonly duplicates: number;
  readonly corrupt: number;
  readonly stalls: number;
  readonly setsSynced: number;
  readonly foreignDropped: number;
}

function mcastTotals(reports: readonly NodeReport[]): McastTotals | undefined {
  const ms = reports.flatMap((r) => (r.multicast ? [r.multicast] : []));
  if (ms.length === 0) return undefined;
  const sum = (f: (m: McastReport) => number): number => ms.reduce((s, m) => s + f(m), 0);
  return {
    group: ms[0].group,
    reliable: ms[0].options.reliable,
    messages: sum((m) => m.messagesSent),
    fragments: sum((m) => m.fragmentsSent),
    fragmentsReceived: sum((m) => m.fragmentsReceived),
    acks: sum((m) => m.acks),
    nacks: sum((m) => m.nacksSent),
    retransmissions: sum((m) => m.retransmissions),
    resyncs: sum((m) => m.resyncs),
    polls: sum((m) => m.polls),
    failovers: sum((m) => m.failovers),
    treeFrames: sum((m) => m.treeFrames),
    duplicates: sum((m) => m.duplicates),
    corrupt: sum((m) => m.corrupt),
    stalls: sum((m) => m.stalls),
    setsSynced: sum((m) => m.setsSynced),
    foreignDropped: sum((m) => m.foreignDropped),
  };
}

/** Where a job's nodes ran and how they were started (`--hosts`, `--hostfile`, `--launch-agent`). */
export interface LaunchReport {
  /** The command that started remote nodes (ssh or the launch agent); local nodes start directly. */
  readonly agent: string;
  readonly hosts: readonly { readonly host: string; readonly node: number; readonly ranks: readonly [number, number]; readonly remote: boolean }[];
  /** From launch to each node's control connection, ms, by node. */
  readonly connectMs: readonly number[];
  /** Control connections refused for a wrong secret or a malformed handshake. */
  readonly controlRejected: number;
  /** Nodes started through a daemon ring (`coll run --ring`). */
  readonly ring?: RingLaunchReport;
}

/** A launch through a daemon ring: one request around the ring, every host starting its node as it passes. */
export interface RingLaunchReport {
  readonly id: string;
  /** From sending the request to its return around the ring, ms. */
  readonly requestMs: number;
  /** When the request reached each daemon, ms after it entered the ring, in ring order. */
  readonly reachedMs: readonly number[];
}

/**
 * The start-up exchange (launch/startup/schemes.ts): what went through the launcher,
 * what went around the bootstrap ring, and the seed's volumes for this N
 * (`expected`), which the counters must equal (claim 1 of seed 003).
 */
export interface StartupReport {
  readonly scheme: StartupScheme;
  /** Node processes that exchanged endpoints (the seed's N). */
  readonly processes: number;
  readonly launcher: ExchangeCounters;
  /** Sums over the nodes' ring traffic (bootstrap only; zero otherwise); each node has 2 ring connections. */
  readonly ring: { readonly messagesSent: number; readonly idBytesSent: number; readonly connections: number };
  /**
   * The exchange itself, ms: the shortest of the nodes' times from sending their
   * endpoints to knowing every peer's, i.e. that of the last node to arrive, which does
   * not wait for the others to start.
   */
  readonly ms: number;
  readonly expected: ReturnType<typeof expectedCounts>;
}

/** The job-level document from the nodes' reports (any order; missing nodes allowed). */
export function combineReports(o: {
  ranks: number;
  nodeCount: number;
  exitCode: number;
  initMs: number;
  /** Launch to the last node's control channel, ms (0: unknown). */
  connectedMs?: number;
  wallMs: number;
  reports: readonly NodeReport[];
  launch?: LaunchReport;
  /** The launcher's side of the start-up exchange (multi-node jobs). */
  startup?: { scheme: StartupScheme; launcher: ExchangeCounters };
}): JobReport {
  const reports = [...o.reports].sort((a, b) => a.node - b.node);
  const pairs = new Set<string>();
  for (const r of reports) for (const p of r.connections?.peers ?? r.tcp?.peers ?? []) pairs.add(r.node < p ? `${r.node}-${p}` : `${p}-${r.node}`);
  const requested = reports.map((r) => r.connections?.setupUs ?? 0).filter((x) => x > 0);
  const setups = requested.length > 0 ? requested : reports.map((r) => r.tcp?.connectionSetupUs ?? 0).filter((x) => x > 0);
  const sum = (f: (r: NodeReport) => number): number => reports.reduce((s, r) => s + f(r), 0);
  const dg = (k: 'datagramsSent' | 'datagramsReceived' | 'retransmissions' | 'duplicatesDropped' | 'foreignDropped' | 'framesSent'): number => sum((r) => r.connections?.datagram[k] ?? 0);
  const policy = reports.find((r) => r.connections)?.connections?.policy;
  const mpi = reports.find((r) => r.mpi)?.mpi;
  const multicast = mcastTotals(reports);
  const ck = reports.flatMap((r) => (r.checkpoint ? [r.checkpoint] : []));
  return {
    version: 1,
    ranks: o.ranks,
    nodeCount: o.nodeCount,
    nodesReported: reports.length,
    exitCode: o.exitCode,
    initMs: round(o.initMs),
    connectedMs: round(o.connectedMs ?? 0),
    wallMs: round(o.wallMs),
    connections: pairs.size,
    connectionSetupUs: setups.length > 0 ? round(median(setups)) : 0,
    ...(policy ? { connectionPolicy: policy } : {}),
    connectMs: round(Math.max(0, ...reports.map((r) => r.connections?.connectMs ?? 0))),
    datagrams: {
      sent: dg('datagramsSent'),
      received: dg('datagramsReceived'),
      retransmissions: dg('retransmissions'),
      duplicatesDropped: dg('duplicatesDropped'),
      foreignDropped: dg('foreignDropped'),
      framesSent: dg('framesSent'),
    },
    retransmissions: dg('retransmissions'),
    tcp: { framesSent: sum((r) => r.tcp?.framesSent ?? 0), bytesSent: sum((r) => r.tcp?.bytesSent ?? 0), rejected: sum((r) => r.tcp?.rejected ?? 0) },
    transport: mpi ? 'mpi' : 'tcp',
    ...(mpi ? { mpi: { flavour: mpi.flavour, library: mpi.library, framesSent: sum((r) => r.mpi?.framesSent ?? 0), bytesSent: sum((r) => r.mpi?.bytesSent ?? 0) } } : {}),
    ...(multicast ? { multicast } : {}),
    ...(ck.length > 0
      ? {
          checkpoint: {
            dir: '',
            restarts: 0,
            restartedFrom: [],
            count: Math.max(...ck.map((c) => c.count)),
            epoch: Math.max(...ck.map((c) => c.epoch)),
            restoredFrom: Math.max(...ck.map((c) => c.restoredFrom)),
            bytes: ck.reduce((s, c) => s + c.bytes, 0),
            drainMs: Math.max(...ck.map((c) => c.drainMs)),
            writeMs: Math.max(...ck.map((c) => c.writeMs)),
            commitMs: Math.max(...ck.map((c) => c.commitMs)),
            restoreMs: Math.max(...ck.map((c) => c.restoreMs)),
            messagesDrained: ck.reduce((s, c) => s + c.messagesDrained, 0),
          },
        }
      : {}),
    engine: {
      collectives: sum((r) => r.engine?.collectives ?? 0),
      framesSent: sum((r) => r.engine?.framesSent ?? 0),
      framesDropped: sum((r) => r.engine?.framesDropped ?? 0),
    },
    paths: reports.reduce((acc, r) => (r.paths ? addPathCounters(acc, r.paths) : acc), zeroPaths()),
    ...(o.launch ? { launch: o.launch } : {}),
    ...(o.startup && o.nodeCount > 1
      ? {
          startup: {
            scheme: o.startup.scheme,
            processes: o.nodeCount,
            launcher: o.startup.launcher,
            ring: {
              messagesSent: sum((r) => r.startup?.ring?.messagesSent ?? 0),
              idBytesSent: sum((r) => r.startup?.ring?.idBytesSent ?? 0),
              connections: sum((r) => r.startup?.ring?.connections ?? 0),
            },
            ms: minOr0(reports.flatMap((r) => (r.startup ? [r.startup.ms] : []))),
            expected: expectedCounts(o.startup.scheme, o.nodeCount),
          },
        }
      : {}),
    nodes: reports,
  };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

const minOr0 = (xs: readonly number[]): number => (xs.length ? Math.min(...xs) : 0);
