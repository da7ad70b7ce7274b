/**
 * Hosts of a job and how its ranks are mapped onto them: `--hosts a:4,b:4`, Open MPI's
 * hostfile syntax (`host slots=K`, `#` comments, `localhost`), and by-slot mapping
 * (fill the first host's slots, then the next: ranks of one host are contiguous, and
 * each host runs one node process with its ranks as threads).
 */
import { hostname, networkInterfaces } from 'node:os';
import { ArgumentError } from '../core/errors.js';

export interface HostSlots {
  readonly host: string;
  /** Ranks this host accepts without oversubscription. */
  readonly slots: number;
}

export interface HostPlacement {
  readonly host: string;
  /** Ranks placed on the host (at least 1). */
  readonly ranks: number;
}

const HOST_NAME = /^[A-Za-z0-9_.:%[\]-]+$/;

function checkHostName(host: string, where: string): void {
  if (!HOST_NAME.test(host)) throw new ArgumentError(`${where}: '${host}' is not a host name or address`, 'use a name like node01, an IPv4 address or [IPv6]');
}

/** Add slots to a host already listed (Open MPI merges repeated hosts). */
function merge(list: HostSlots[], host: string, slots: number): void {
  const i = list.findIndex((h) => h.host === host);
  if (i >= 0) list[i] = { host, slots: list[i].slots + slots };
  else list.push({ host, slots });
}

/** `a:4,b,c:2` (a host without a count has one slot, as in mpirun --host). */
export function parseHostList(text: string): HostSlots[] {
  const out: HostSlots[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') throw new ArgumentError(`--hosts '${text}' has an empty entry`, 'write hosts as a:4,b:4');
    const m = /^(.*?)(?::(\d+))?$/.exec(item);
    const host = m?.[1] ?? item;
    checkHostName(host, '--hosts');
    const slots = m?.[2] !== undefined ? Number(m[2]) : 1;
    if (slots < 1) throw new ArgumentError(`--hosts: host '${host}' has ${slots} slots`, 'give each host at least 1 slot');
    merge(out, host, slots);
  }
  return out;
}

/**
 * Open MPI's hostfile: one host per line, optional `slots=K` (default 1) and
 * `max_slots=K` (read, and used as the slots when slots is absent), `#` starts a comment.
 */
export function parseHostfile(text: string, file = 'hostfile'): HostSlots[] {
  const out: HostSlots[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const [host, ...fields] = line.split(/\s+/);
    const where = `${file}:${i + 1}`;
    checkHostName(host, where);
    let slots: number | undefined;
    let maxSlots: number | undefined;
    for (const f of fields) {
      const m = /^(slots|max_slots|max-slots)\s*=\s*(\d+)$/.exec(f);
      if (!m) throw new ArgumentError(`${where}: cannot read '${f}'`, "a hostfile line is 'host [slots=K] [max_slots=K]'");
      if (m[1] === 'slots') slots = Number(m[2]);
      else maxSlots = Number(m[2]);
    }
    const n = slots ?? maxSlots ?? 1;
    if (n < 1) throw new ArgumentError(`${where}: host '${host}' has ${n} slots`, 'give each host at least 1 slot');
    merge(out, host, n);
  });
  if (out.length === 0) throw new ArgumentError(`${file} lists no hosts`, "write one host per line: 'node01 slots=4'");
  return out;
}

/**
 * By-slot mapping of `ranks` ranks: fill each host's slots in order. More ranks than
 * slots is refused unless `oversubscribe`, which then deals the extra ranks out
 * round-robin, one per host at a time (so no host carries more than one extra rank
 * more than another).
 */
export function mapRanks(hosts: readonly HostSlots[], ranks: number, oversubscribe = false): HostPlacement[] {
  const total = hosts.reduce((s, h) => s + h.slots, 0);
  if (ranks > total && !oversubscribe) {
    throw new ArgumentError(
      `${ranks} ranks do not fit in the ${total} slot(s) of ${hosts.map((h) => `${h.host}:${h.slots}`).join(',')}`,
      'give more slots (--hosts a:8 or slots=8 in the hostfile), fewer ranks, or --oversubscribe',
    );
  }
  const count = hosts.map(() => 0);
  let left = ranks;
  for (let i = 0; i < hosts.length && left > 0; i++) {
    count[i] = Math.min(hosts[i].slots, left);
    left -= count[i];
  }
  for (let i = 0; left > 0; i = (i + 1) % hosts.length, left--) count[i]++;
  return hosts.map((h, i) => ({ host: h.host, ranks: count[i] })).filter((p) => p.ranks > 0);
}

/** Whether `host` names this machine (started without ssh, as Open MPI does). */
export function isLocalHost(host: string): boolean {
  if (host === 'localhost' || host === '127.0.0.1' || host === '::1' || host === '[::1]') return true;
  if (host === hostname() || host === hostname().split('.')[0]) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address === bare));
}

/**
 * Addresses on which nodes may reach the launcher's control server, best first:
 * the machine's non-internal IPv4 addresses, then loopback (first when every host is
 * this machine, so a local job never leaves loopback).
 */
export function controlAddresses(allLocal: boolean): string[] {
  const external: string[] = [];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) external.push(a.address);
  return allLocal ? ['127.0.0.1', ...external] : [...external, '127.0.0.1'];
}
