/**
 * Reading and writing machine description files, and the older shapes.
 *
 * `readMachineJson` takes parsed JSON and returns a validated MachineDescription:
 * - the schema of ./schema.ts ("schema": "collectives/machine", "version": 1), with an
 *   optional "base" preset whose fields it overrides;
 * - `coll fit`'s older files ("format": "collectives-machine/1", intra / inter) and
 *   `coll sim`'s older MachineSpec files (classes, host, network; "base"), read as
 *   before and converted, with ONE warning per file on stderr saying how to convert.
 * Every description is also checked as the models and the simulator will use it
 * (cross-field rules: a fat tree large enough for `nodes`, ascending reduceTable
 * counts, ...), so a file that loads runs in every command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MachineFormatError } from '../model/errors.js';
import { validateMachine as validateModel, type Machine } from '../model/machine.js';
import { MACHINES } from '../model/machines/presets.js';
import { parseQuantity, validateMachine as validateSim, type MachineSpec } from '../sim/machine.js';
import { PRESETS as SIM_PRESETS } from '../sim/presets.js';
import { fromModelMachine, fromSimMachine, toModelMachine, toSimMachine } from './convert.js';
import { MACHINE_SCHEMA, MACHINE_SCHEMA_VERSION, isMachineDescription, parseMachineDescription, type MachineDescription } from './schema.js';

/** The tag of `coll fit`'s files before the machine description. */
export const LEGACY_FIT_FORMAT = 'collectives-machine/1';

export type MachineShape = 'description' | 'legacy-fit' | 'legacy-sim';

const warned = new Set<string>();

/** Where the warnings go: stderr. */
function warnMachine(message: string): void {
  console.error(`coll: warning: ${message}`);
}

/** Forget which files were warned about (tests). */
export function resetMachineWarnings(): void {
  warned.clear();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Which shape parsed JSON has (undefined: none of them). */
export function machineShape(data: unknown): MachineShape | undefined {
  if (!isRecord(data)) return undefined;
  if (isMachineDescription(data)) return 'description';
  if (data.format === LEGACY_FIT_FORMAT || isRecord(data.intra) || isRecord(data.inter)) return 'legacy-fit';
  if (isRecord(data.classes) || (typeof data.base === 'string' && data.schema === undefined) || (isRecord(data.network) && isRecord(data.host))) return 'legacy-sim';
  return undefined;
}

/** A built-in preset as a description: the simulator's first, then the models'. */
export function presetDescription(name: string): MachineDescription | undefined {
  const s = SIM_PRESETS[name];
  if (s) return fromSimMachine(s);
  const m = MACHINES.find((x) => x.name === name);
  return m ? fromModelMachine(m) : undefined;
}

export function presetDescriptionNames(): string[] {
  return [...new Set([...Object.keys(SIM_PRESETS), ...MACHINES.map((m) => m.name)])];
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const av = a[k];
    out[k] = isRecord(v) && isRecord(av) ? deepMerge(av, v) : v;
  }
  return out;
}

/** Check the description as the models and the simulator will use it. */
function checkUsable(d: MachineDescription, origin: string): void {
  validateSim(toSimMachine(d), origin);
  try {
    validateModel(toModelMachine(d, origin));
  } catch (e) {
    if (e instanceof Error) e.message = `${origin}: ${e.message}`;
    throw e;
  }
}

// --- the older shapes, read exactly as their commands read them -----------------

function legacyFit(data: Record<string, unknown>, origin: string): Machine {
  for (const k of ['name', 'description', 'source'] as const) {
    if (typeof data[k] !== 'string') throw new MachineFormatError(`${origin}: field '${k}' must be a string`);
  }
  for (const k of ['intra', 'inter'] as const) {
    const l = data[k];
    if (!isRecord(l) || typeof l.alpha !== 'number' || typeof l.beta !== 'number') {
      throw new MachineFormatError(`${origin}: field '${k}' must be { "alpha": seconds, "beta": seconds/byte }`);
    }
  }
  for (const k of ['oSend', 'oRecv', 'gamma', 'copyPerByte'] as const) {
    if (typeof data[k] !== 'number') throw new MachineFormatError(`${origin}: field '${k}' must be a number (SI units)`);
  }
  if (!isRecord(data.sources) || Object.values(data.sources).some((s) => typeof s !== 'string')) {
    throw new MachineFormatError(`${origin}: field 'sources' must map value paths to strings`);
  }
  const { format: _f, ...rest } = data;
  return validateModel(rest as unknown as Machine);
}

const TEXT_KEYS = new Set(['name', 'description', 'topology', 'sources']);

function convertUnits(v: unknown, key: string): unknown {
  if (TEXT_KEYS.has(key)) return v;
  if (typeof v === 'string') {
    const q = parseQuantity(v);
    return Number.isNaN(q) ? v : q;
  }
  if (Array.isArray(v)) return v.map((x) => convertUnits(x, ''));
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = convertUnits(x, k);
    return out;
  }
  return v;
}

function legacySim(data: Record<string, unknown>, origin: string): MachineSpec {
  let merged = data;
  if (typeof data.base === 'string') {
    const base = SIM_PRESETS[data.base];
    if (!base) throw new MachineFormatError(`${origin}: unknown base preset '${data.base}'`, `presets: ${Object.keys(SIM_PRESETS).join(', ')}`);
    merged = deepMerge(base as unknown as Record<string, unknown>, data);
    delete merged.base;
  }
  const m = convertUnits(merged, '') as MachineSpec;
  const withSources: MachineSpec = { ...m, sources: m.sources ?? {} };
  validateSim(withSources, origin);
  return withSources;
}

// --- the description --------------------------------------------------------------

/**
 * Parsed JSON → a validated description. Older shapes are converted with one warning
 * per `origin` (a file path) through `warnMachine`.
 */
export function readMachineJson(data: unknown, origin = 'machine file'): MachineDescription {
  const shape = machineShape(data);
  if (shape === undefined) {
    throw new MachineFormatError(
      `${origin}: not a machine description (expected a JSON object with "schema": "${MACHINE_SCHEMA}", "version": ${MACHINE_SCHEMA_VERSION})`,
      'see docs/machines.md and examples/machines/',
    );
  }
  const obj = data as Record<string, unknown>;
  if (shape !== 'description') {
    const d = shape === 'legacy-fit' ? fromModelMachine(legacyFit(obj, origin)) : fromSimMachine(legacySim(obj, origin));
    if (!warned.has(origin)) {
      warned.add(origin);
      const what = shape === 'legacy-fit' ? `the older 'coll fit' shape ("format": "${LEGACY_FIT_FORMAT}")` : "the older 'coll sim' shape (MachineSpec)";
      warnMachine(`${origin} is in ${what}; it is read as before, but convert it to the machine description (schema ${MACHINE_SCHEMA} v${MACHINE_SCHEMA_VERSION}) with: coll machine convert ${origin} --out NEW.json`);
    }
    checkUsable(d, origin);
    return d;
  }
  let input: Record<string, unknown> = obj;
  if (typeof obj.base === 'string') {
    const base = presetDescription(obj.base);
    if (!base) throw new MachineFormatError(`${origin}: unknown base preset '${obj.base}'`, `presets: ${presetDescriptionNames().join(', ')}`);
    input = deepMerge(base as unknown as Record<string, unknown>, obj);
    delete input.base;
  }
  const d = parseMachineDescription(input, origin);
  checkUsable(d, origin);
  return d;
}

/** Read a machine file (any shape) as a description. */
export function readMachineFile(path: string): MachineDescription {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new MachineFormatError(`cannot read machine file '${path}': ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new MachineFormatError(`machine file '${path}' is not valid JSON: ${(e as Error).message}`);
  }
  return readMachineJson(data, path);
}

const KEY_ORDER = ['schema', 'version', 'name', 'description', 'source', 'nodes', 'coresPerNode', 'socketsPerNode', 'ppn', 'network', 'links', 'host', 'nic', 'hw', 'loggp', 'noise'];

/** The description as JSON text (SI numbers; `sources` last). */
export function machineDescriptionToJson(d: MachineDescription): string {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(d);
  for (const k of [...KEY_ORDER, ...keys.filter((k) => !KEY_ORDER.includes(k) && k !== 'sources'), 'sources']) {
    const v = (d as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

export function writeMachineFile(path: string, d: MachineDescription): void {
  writeFileSync(path, machineDescriptionToJson(d));
}
