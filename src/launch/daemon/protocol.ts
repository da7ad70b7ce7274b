/**
 * The daemon ring (seed 003 S2.5, MPD): one long-lived `coll daemon` per host, joined
 * in a ring of authenticated TCP connections, started once by `coll ring up` and used
 * by every `coll run --ring` after it. A launch request enters the ring at daemon 0 and
 * travels clockwise; each daemon passes it on *before* it starts its own node
 * processes, so the hosts start their nodes in parallel and the launcher sends one
 * message however many hosts there are (the seed's near-constant initiation time).
 *
 * This module holds the messages, the ring file (where `coll ring up` writes the
 * members and the ring's secret, mode 0600) and the derivation of a job's secret from
 * the ring's: a launcher that can read the ring file and the daemons agree on it
 * without sending it anywhere.
 */
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import type { PeerAddress } from '../../transport/tcp/device.js';

/** The control-channel job id the daemons and their clients use. */
export const ringJobId = (ringId: string): string => `ring-${ringId}`;
/** Node number with which clients (launchers, `coll ring status|down`) connect to a daemon. */
export const CLIENT = 1_000_000;

export interface RingMember {
  /** The host as the user named it (ssh destination). */
  readonly host: string;
  /** Where its daemon listens. */
  readonly address: PeerAddress;
  readonly pid: number;
  /** Ranks the host accepts without oversubscription. */
  readonly slots: number;
}

export interface RingFile {
  readonly id: string;
  /** hex; never leaves this file except as HMAC keys. */
  readonly secret: string;
  readonly created: string;
  readonly members: readonly RingMember[];
}

/** A node process a daemon starts for a job. */
export interface NodeLaunch {
  readonly member: number;
  readonly node: number;
}

export interface LaunchRequest {
  readonly jobId: string;
  /** Where the nodes connect back: the launcher's control server, host:port candidates. */
  readonly control: readonly string[];
  readonly cwd: string;
  /** Environment for the node processes, over the daemon's own. */
  readonly env: Readonly<Record<string, string>>;
  /** The node process command (Node.js, its flags, node-main); the daemon adds --control/--node/--job. */
  readonly argv: readonly string[];
  readonly nodes: readonly NodeLaunch[];
}

/** A launch request's passage through one daemon. */
export interface LaunchOutcome {
  readonly member: number;
  /** The daemon's host name. */
  readonly host: string;
  /** When the request reached this daemon, ms after it entered the ring (by the hosts' clocks). */
  readonly atMs: number;
}

/** Messages on a daemon's connections (ring links and clients). */
export type DaemonMessage =
  | { readonly type: 'hello'; readonly member: number; readonly address: PeerAddress; readonly pid: number }
  | { readonly type: 'ring'; readonly members: readonly PeerAddress[] }
  | { readonly type: 'joined'; readonly member: number }
  | { readonly type: 'launch'; readonly request: LaunchRequest; readonly t0?: number; readonly outcomes?: readonly LaunchOutcome[] }
  | { readonly type: 'launched'; readonly outcomes: readonly LaunchOutcome[] }
  | { readonly type: 'status'; readonly members?: readonly { readonly member: number; readonly host: string; readonly pid: number; readonly jobs: number; readonly upS: number }[] }
  | { readonly type: 'exit' };

/** The secret of job `jobId` on this ring: what nodes started by the daemons authenticate with. */
export function jobSecret(ring: Pick<RingFile, 'secret'>, jobId: string): string {
  return createHmac('sha256', Buffer.from(ring.secret, 'hex')).update(`job|${jobId}`).digest('hex');
}

export function defaultRingFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.COLL_RING_FILE || join(homedir(), '.coll-ring.json');
}

export function writeRingFile(file: string, ring: RingFile): void {
  writeFileSync(file, `${JSON.stringify(ring, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readRingFile(file: string): RingFile {
  if (!existsSync(file)) throw new ArgumentError(`no daemon ring: '${file}' does not exist`, "start one with 'coll ring up --hosts a:4,b:4' (or point COLL_RING_FILE at its file)");
  const r = JSON.parse(readFileSync(file, 'utf8')) as RingFile;
  if (typeof r.id !== 'string' || typeof r.secret !== 'string' || !Array.isArray(r.members) || r.members.length === 0) throw new ArgumentError(`'${file}' is not a ring file written by coll ring up`);
  return r;
}
