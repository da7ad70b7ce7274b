/**
 * The machine description: ONE versioned JSON shape that `coll model`, `coll sim`,
 * `coll tune` and `coll fit` all read (and `coll fit` writes), validated with zod.
 *
 * ```json
 * { "schema": "collectives/machine", "version": 1, "name": "my-cluster",
 *   "links": { "node": { "alpha": "1us", "beta": "1GB/s" }, "network": { "alpha": "2.9us", "beta": "325MB/s" } },
 *   "host": { "oSend": 0, "oRecv": "0.42us", "gamma": { "default": "20ns" }, "copyPerByte": "1ns" } }
 * ```
 *
 * Quantities are SI numbers (seconds, seconds per byte, bytes per second) or strings
 * with units: "2.9us", "400MB/s" (a bandwidth where a per-byte time is expected is
 * inverted: `beta: "1GB/s"` is 1 ns/B). Sections:
 * - `links`: Hockney α, β per level — `socket` (optional), `node`, `network`;
 * - `host` (and optional `nic`): CPU costs per message (LogGP o as oSend/oRecv), per
 *   element combined (`gamma` by "op/dtype", "op", "dtype" or "default"), per byte
 *   copied, once per collective (`callOverhead`);
 * - `loggp`: LogGP L, o, g, G (the `loggp` model; `coll fit` measures them);
 * - `nodes`, `coresPerNode`, `socketsPerNode`, `ppn`, `network` (topology, link
 *   bandwidth, hop latency, injection, flow control): the simulator's machine. Without
 *   `network` the machine is a crossbar at the network β; without `nodes` it has as
 *   many nodes as a job needs;
 * - `noise`: OS noise the simulator applies by default (a `coll sim --noise` spec);
 * - model extras: `reduceTable`, `combine`, `injection`, `nbl`, `lrc`, `barrier`, `hw`;
 * - `sources`: where each value comes from, by dotted path.
 *
 * Every problem is reported at once, each with the field's path and the allowed range.
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { MachineFormatError } from '../model/errors.js';
import { F_PRESETS } from '../model/nbl.js';
import { parseQuantity } from '../sim/machine.js';

export const MACHINE_SCHEMA = 'collectives/machine';
export const MACHINE_SCHEMA_VERSION = 1;

type Range = { min?: number; gt?: number; integer?: boolean };

function rangeText(unit: string, r: Range): string {
  const parts: string[] = [];
  if (r.integer) parts.push('an integer');
  if (r.gt !== undefined) parts.push(`> ${r.gt}`);
  else if (r.min !== undefined) parts.push(`≥ ${r.min}`);
  return `${parts.join(' ')}${unit ? ` (${unit})` : ''}`.trim();
}

/**
 * The zod schema, built on first use: zod loads when a machine file is read, not when a
 * rank program imports the package (it costs tens of milliseconds per thread).
 */
function build(z: typeof Zod.z) {
  /** A number or a string with units, checked against a range; the message names the range. */
  function quantity(unit: string, r: Range = { min: 0 }, invertBandwidth = false) {
    const allowed = rangeText(unit, r);
    return z.union([z.number(), z.string()]).transform((v, ctx) => {
      let n = parseQuantity(v);
      if (invertBandwidth && typeof v === 'string' && /\/s\s*$/i.test(v) && n > 0) n = 1 / n;
      const bad = (why: string): never => {
        ctx.addIssue({ code: 'custom', message: `${why}; allowed: ${allowed}` });
        return z.NEVER;
      };
      if (!Number.isFinite(n)) return bad(`${JSON.stringify(v)} is not a number${unit ? ` or a quantity with units such as ${EXAMPLE[unit] ?? '"2.9us"'}` : ''}`);
      if (r.integer && !Number.isInteger(n)) return bad(`${n} is out of range`);
      if (r.gt !== undefined && !(n > r.gt)) return bad(`${n} is out of range`);
      if (r.min !== undefined && n < r.min) return bad(`${n} is out of range`);
      return n;
    });
  }

  const EXAMPLE: Record<string, string> = {
    s: '"2.9us"',
    's/B': '"0.5ns/B" or a bandwidth "400MB/s"',
    'B/s': '"400MB/s"',
    B: '"64KiB"',
  };

  const seconds = (): ReturnType<typeof quantity> => quantity('s', { min: 0 });
  const perByte = (): ReturnType<typeof quantity> => quantity('s/B', { min: 0 }, true);
  const bandwidth = (): ReturnType<typeof quantity> => quantity('B/s', { gt: 0 });
  const count = (min = 1): ReturnType<typeof quantity> => quantity('', { min, integer: true });

  const link = z.strictObject({ alpha: seconds(), beta: perByte() });

  const gammaTable = z.record(z.string(), quantity('s per element', { min: 0 }));

  const cpu = {
    oSend: seconds(),
    oRecv: seconds(),
    gamma: gammaTable,
    copyPerByte: perByte(),
  };

  const fSpec = z.union([
    z.enum(F_PRESETS as unknown as [string, ...string[]]),
    z.strictObject({ table: z.record(z.string(), quantity('', { gt: 0 })), source: z.string() }),
  ]);

  return z.strictObject({
    schema: z.literal(MACHINE_SCHEMA),
    version: z.literal(MACHINE_SCHEMA_VERSION),
    /** A preset (either kind) this description starts from; its fields override the preset's. */
    base: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    source: z.string().optional(),
    nodes: count().optional(),
    coresPerNode: count().optional(),
    socketsPerNode: count().optional(),
    ppn: count().optional(),
    network: z
      .strictObject({
        topology: z.enum(['crossbar', 'fattree', 'mesh2d', 'torus3d']),
        arity: count(2).optional(),
        levels: count().optional(),
        upLinks: count().optional(),
        width: count().optional(),
        height: count().optional(),
        dims: z.tuple([count(), count(), count()]).optional(),
        linkBandwidth: bandwidth(),
        hopLatency: seconds(),
        injectionBandwidth: bandwidth().optional(),
        flowControl: z.enum(['message', 'wormhole']).optional(),
        wormhole: z.strictObject({ vcs: count(), ackTurnaround: seconds(), ackPerByte: perByte().optional() }).optional(),
        packetBytes: count().optional(),
        packetOverhead: count(0).optional(),
      })
      .optional(),
    links: z.strictObject({ socket: link.optional(), node: link, network: link }),
    host: z.strictObject({ ...cpu, callOverhead: seconds().optional() }),
    nic: z
      .strictObject({ ...cpu, startup: seconds(), completion: seconds(), busCrossing: seconds(), packetRecv: seconds().optional(), packetBytes: count().optional() })
      .optional(),
    hw: z
      .strictObject({
        multicastStartup: seconds(),
        multicastPacketGap: seconds(),
        deliveryOverhead: seconds(),
        barrierEnter: seconds(),
        barrierAttempt: seconds(),
        barrierBackoff: seconds(),
        barrierBackoffMax: seconds(),
      })
      .optional(),
    loggp: z.strictObject({ L: seconds(), o: seconds(), g: seconds(), G: perByte() }).optional(),
    reduceTable: z
      .strictObject({ counts: z.array(count()).min(1), rows: z.record(z.string(), z.array(seconds())) })
      .optional(),
    combine: z.record(z.string(), quantity('s per element', { min: 0 })).optional(),
    injection: z.strictObject({ RN: bandwidth(), Rb: bandwidth() }).optional(),
    /** alphaPer: the simulator's α charging on this node channel ('message-end' default; 'link-step' as seed 004's T(L)). */
    nbl: z.strictObject({ f: fSpec, alphaPer: z.enum(['message-end', 'link-step']).optional() }).optional(),
    lrc: z.strictObject({ L: seconds(), r: seconds(), C: seconds() }).optional(),
    barrier: z.strictObject({ Tinit: seconds(), Ttrig: seconds(), Tadj: quantity('s, may be negative', {}) }).optional(),
    noise: z.string().optional(),
    sources: z.record(z.string(), z.string()).optional(),
  });
}

let built: ReturnType<typeof build> | undefined;

/** The machine description's zod schema. */
export function machineSchema(): ReturnType<typeof build> {
  return (built ??= build((createRequire(import.meta.url)('zod') as typeof Zod).z));
}

/** A parsed, validated machine description: every quantity in SI units. */
export type MachineDescription = Zod.output<ReturnType<typeof build>>;
/** What a file may contain (quantities as numbers or strings with units). */
export type MachineDescriptionInput = Zod.input<ReturnType<typeof build>>;

function pathText(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(top level)';
}

function issueText(i: Zod.core.$ZodIssue): string {
  const where = pathText(i.path);
  switch (i.code) {
    case 'unrecognized_keys':
      return `${where}: unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'invalid_value':
      return `${where}: must be ${i.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'invalid_type':
      return `${where}: ${/received undefined/.test(i.message) ? 'missing' : `expected ${i.expected}${/received (\w+)/.exec(i.message) ? `, got ${/received (\w+)/.exec(i.message)?.[1]}` : ''}`}`;
    case 'too_small':
      return `${where}: needs at least ${String(i.minimum)} ${i.origin === 'string' ? 'character' : 'entry'}${Number(i.minimum) > 1 ? 's' : ''}`;
    case 'invalid_union': {
      // A quantity that is neither number nor string, or an f(L) spec: say what is accepted.
      const inner = i.errors.flat().find((e) => e.code === 'custom');
      if (inner) return `${where}: ${inner.message}`;
      if (i.errors.flat().every((e) => /received undefined/.test(e.message))) return `${where}: missing`;
      return `${where}: expected a number or a string with units${where.endsWith('.f') ? `, or one of ${F_PRESETS.join(', ')} or { table, source }` : ''}`;
    }
    default:
      return `${where}: ${i.message}`;
  }
}

/** Validate parsed JSON as a machine description (throws MachineFormatError naming every problem). */
export function parseMachineDescription(data: unknown, origin = 'machine description'): MachineDescription {
  const r = machineSchema().safeParse(data);
  if (r.success) return r.data;
  const lines = [...new Set(r.error.issues.map(issueText))];
  throw new MachineFormatError(
    `${origin}: invalid machine description:\n    - ${lines.join('\n    - ')}`,
    `quantities are SI numbers or strings with units ("2.9us", "400MB/s"); see docs/machines.md`,
  );
}

/** True when parsed JSON claims to be a machine description of this schema (any version). */
export function isMachineDescription(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { schema?: unknown }).schema === MACHINE_SCHEMA;
}
