/**
 * Conversions between the machine description (schema.ts) and the two in-memory
 * forms the code computes with: the models' Machine (src/model/machine.ts: intra /
 * inter α, β and one set of CPU costs) and the simulator's MachineSpec
 * (src/sim/machine.ts: nodes, network, message classes, host and NIC costs). The
 * same conversions read the two older file shapes (`coll fit`'s
 * "collectives-machine/1" and `coll sim`'s MachineSpec JSON).
 *
 * Field correspondence (description ↔ model ↔ simulator):
 *   links.node / links.network ↔ intra / inter ↔ classes.node / classes.network
 *   host.oSend, oRecv, copyPerByte ↔ oSend, oRecv, copyPerByte ↔ host.*
 *   host.gamma.default ↔ gamma ↔ host.gamma.default;  host.gamma["op/dtype"] ↔ gammaBy["op/dtype"] ↔ host.gamma["op:dtype"]
 *   host.callOverhead ↔ startup ↔ host.callOverhead;   ppn ↔ ppn ↔ defaultPpn
 *   nbl.f ↔ nbl.f ↔ network.nodeChannelShared + nodeChannelF;  nbl.alphaPer ↔ — ↔ network.alphaPer
 * Source paths are renamed the same way; a value without any source gets
 * "not stated in <origin>" (the models require a source for every value).
 */
import type { Machine } from '../model/machine.js';
import { numericPaths, sourceOf } from '../model/machine.js';
import type { FSpec } from '../model/nbl.js';
import type { MachineSpec, NetworkSpec } from '../sim/machine.js';
import type { MachineDescription } from './schema.js';
import { MACHINE_SCHEMA, MACHINE_SCHEMA_VERSION } from './schema.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Without nodes, the simulator's machine has this many (a crossbar grows with the job). */
export const UNBOUNDED_NODES = 1 << 20;

const MODEL_TO_DESC: readonly [string, string][] = [
  ['intra', 'links.node'],
  ['inter', 'links.network'],
  ['oSend', 'host.oSend'],
  ['oRecv', 'host.oRecv'],
  ['copyPerByte', 'host.copyPerByte'],
  ['gamma', 'host.gamma.default'],
  ['gammaBy', 'host.gamma'],
  ['startup', 'host.callOverhead'],
];

const SIM_TO_DESC: readonly [string, string][] = [
  ['classes', 'links'],
  ['defaultPpn', 'ppn'],
  ['network.nodeChannelF', 'nbl.f'],
  ['network.alphaPer', 'nbl.alphaPer'],
  ['network.nodeChannelShared', 'nbl'],
];

/** Rename a dotted path by the first matching prefix pair (from → to). */
function rename(path: string, pairs: readonly [string, string][], reverse: boolean): string {
  for (const [a, b] of pairs) {
    const [from, to] = reverse ? [b, a] : [a, b];
    if (path === from) return to;
    if (path.startsWith(`${from}.`)) return to + path.slice(from.length);
  }
  return path;
}

function renameSources(s: Readonly<Record<string, string>> | undefined, pairs: readonly [string, string][], reverse: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s ?? {})) out[rename(k, pairs, reverse)] = v;
  return out;
}

/** gamma keys: the description uses "op/dtype", the simulator "op:dtype". */
const toSlash = (k: string): string => k.replace(':', '/');
const toColon = (k: string): string => k.replace('/', ':');

function mapKeys<V>(r: Readonly<Record<string, V>>, f: (k: string) => string): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of Object.entries(r)) out[f(k)] = v;
  return out;
}

/** The source of a description path: exact, "x.*", a parent, or "*". */
export function descriptionSourceOf(sources: Readonly<Record<string, string>>, path: string): string | undefined {
  let p = path;
  while (p) {
    const s = sources[p] ?? sources[`${p}.*`];
    if (s !== undefined) return s;
    const i = p.lastIndexOf('.');
    p = i < 0 ? '' : p.slice(0, i);
  }
  return sources['*'];
}

function dropUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

// ---------------------------------------------------------------------------
// Description → model Machine

export function toModelMachine(d: MachineDescription, origin = d.name): Machine {
  const gammaAll = d.host.gamma;
  const { default: gammaDefault, ...gammaBy } = gammaAll;
  const sources = renameSources(d.sources, MODEL_TO_DESC, true);
  const m: Mutable<Machine> = dropUndefined({
    name: d.name,
    description: d.description ?? '',
    source: d.source ?? `${origin}`,
    sources,
    intra: { ...d.links.node },
    inter: { ...d.links.network },
    oSend: d.host.oSend,
    oRecv: d.host.oRecv,
    gamma: gammaDefault ?? 0,
    gammaBy: Object.keys(gammaBy).length > 0 ? gammaBy : undefined,
    reduceTable: d.reduceTable ? { counts: [...d.reduceTable.counts], rows: { ...d.reduceTable.rows } } : undefined,
    copyPerByte: d.host.copyPerByte,
    startup: d.host.callOverhead,
    injection: d.injection ? { ...d.injection } : undefined,
    nbl: d.nbl ? { f: fOf(d.nbl.f) } : undefined,
    combine: d.combine ? mapKeys(d.combine, (k) => k) : undefined,
    lrc: d.lrc ? { ...d.lrc } : undefined,
    loggp: d.loggp ? { ...d.loggp } : undefined,
    barrier: d.barrier ? { ...d.barrier } : undefined,
    ppn: d.ppn,
  });
  // Every numeric value needs a source: the renamed entry, or the description's own
  // (parents and "x.*" patterns), or a plain statement that the file gives none.
  for (const p of numericPaths(m)) {
    if (sourceOf(m, p) !== undefined) continue;
    sources[p] = descriptionSourceOf(d.sources ?? {}, rename(p, MODEL_TO_DESC, false)) ?? `not stated in ${origin}`;
  }
  return m;
}

function fOf(f: MachineDescription extends { nbl?: { f: infer F } } ? F : never): FSpec {
  if (typeof f === 'string') return f as FSpec;
  const table: Record<number, number> = {};
  for (const [k, v] of Object.entries(f.table)) table[Number(k)] = v;
  return { table, source: f.source };
}

// ---------------------------------------------------------------------------
// Description → simulator MachineSpec

export function toSimMachine(d: MachineDescription): MachineSpec {
  const ppn = d.ppn;
  const network: Mutable<NetworkSpec> = d.network
    ? dropUndefined({ ...d.network, dims: d.network.dims ? ([...d.network.dims] as [number, number, number]) : undefined })
    : { topology: 'crossbar', linkBandwidth: d.links.network.beta > 0 ? 1 / d.links.network.beta : 1e15, hopLatency: 0 };
  if (d.nbl) {
    network.nodeChannelShared = true;
    network.nodeChannelF = fOf(d.nbl.f);
    if (d.nbl.alphaPer) network.alphaPer = d.nbl.alphaPer;
  }
  if (network.injectionBandwidth === undefined && d.injection) network.injectionBandwidth = d.injection.RN;
  const cpu = <C extends { gamma: Readonly<Record<string, number>> }>(c: C): C => ({ ...c, gamma: mapKeys(c.gamma, toColon) });
  const sources = mapKeys(renameSources(d.sources, SIM_TO_DESC, true), (k) => (k.startsWith('host.gamma.') || k.startsWith('nic.gamma.') ? toColon(k) : k));
  const spec: Mutable<MachineSpec> = dropUndefined({
    name: d.name,
    description: d.description ?? '',
    nodes: d.nodes ?? UNBOUNDED_NODES,
    coresPerNode: d.coresPerNode ?? ppn ?? 1,
    socketsPerNode: d.socketsPerNode,
    network,
    classes: dropUndefined({ socket: d.links.socket ? { ...d.links.socket } : undefined, node: { ...d.links.node }, network: { ...d.links.network } }),
    host: cpu(dropUndefined({ ...d.host })),
    nic: d.nic ? cpu({ ...d.nic }) : undefined,
    hw: d.hw ? { ...d.hw } : undefined,
    defaultPpn: ppn,
    sources,
  });
  return spec;
}

// ---------------------------------------------------------------------------
// Model Machine / simulator MachineSpec → description (presets, old files)

function header(name: string): Pick<MachineDescription, 'schema' | 'version' | 'name'> {
  return { schema: MACHINE_SCHEMA as typeof MACHINE_SCHEMA, version: MACHINE_SCHEMA_VERSION as typeof MACHINE_SCHEMA_VERSION, name };
}

function fToJson(f: FSpec): NonNullable<MachineDescription['nbl']>['f'] {
  if (typeof f === 'string') return f;
  return { table: mapKeys(f.table as Record<string, number>, String), source: f.source };
}

export function fromModelMachine(m: Machine): MachineDescription {
  const d: Mutable<MachineDescription> = dropUndefined({
    ...header(m.name),
    description: m.description,
    source: m.source,
    ppn: m.ppn,
    links: { node: { ...m.intra }, network: { ...m.inter } },
    host: dropUndefined({ oSend: m.oSend, oRecv: m.oRecv, gamma: { default: m.gamma, ...(m.gammaBy ?? {}) }, copyPerByte: m.copyPerByte, callOverhead: m.startup }),
    loggp: m.loggp ? { ...m.loggp } : undefined,
    reduceTable: m.reduceTable ? { counts: [...m.reduceTable.counts], rows: mapKeys(m.reduceTable.rows, String) as Record<string, number[]> } : undefined,
    combine: m.combine ? mapKeys(m.combine as Record<string, number>, String) : undefined,
    injection: m.injection ? { ...m.injection } : undefined,
    nbl: m.nbl ? { f: fToJson(m.nbl.f) } : undefined,
    lrc: m.lrc ? { ...m.lrc } : undefined,
    barrier: m.barrier ? { ...m.barrier } : undefined,
    sources: renameSources(m.sources, MODEL_TO_DESC, false),
  });
  return d;
}

export function fromSimMachine(s: MachineSpec): MachineDescription {
  const { nodeChannelShared, nodeChannelF, alphaPer, ...net } = s.network;
  const cpu = <C extends { gamma: Readonly<Record<string, number>> }>(c: C): C => ({ ...c, gamma: mapKeys(c.gamma, toSlash) });
  const sources = mapKeys(renameSources(s.sources, SIM_TO_DESC, false), (k) => (k.startsWith('host.gamma.') || k.startsWith('nic.gamma.') ? toSlash(k) : k));
  return dropUndefined({
    ...header(s.name),
    description: s.description,
    nodes: s.nodes,
    coresPerNode: s.coresPerNode,
    socketsPerNode: s.socketsPerNode,
    ppn: s.defaultPpn,
    network: dropUndefined({ ...net, dims: net.dims ? ([...net.dims] as [number, number, number]) : undefined }) as MachineDescription['network'],
    links: dropUndefined({ socket: s.classes.socket, node: s.classes.node, network: s.classes.network }),
    host: cpu({ ...s.host }),
    nic: s.nic ? cpu({ ...s.nic }) : undefined,
    hw: s.hw ? { ...s.hw } : undefined,
    nbl: nodeChannelShared ? { f: fToJson(nodeChannelF ?? 'nominal'), ...(alphaPer ? { alphaPer } : {}) } : undefined,
    sources,
  }) as MachineDescription;
}
