/**
 * User machines from JSON files: read, convert quantities written with units
 * ("2.9us", "400MB/s") to SI numbers, and validate completely before any
 * simulation (every missing or impossible value is named in one error).
 */
import { readFileSync } from 'node:fs';
import { ArgumentError } from '../core/errors.js';
import { parseQuantity, validateMachine, type MachineSpec } from './machine.js';
import { getPreset, PRESETS } from './presets.js';

/** Keys whose values are text, not quantities. */
const TEXT_KEYS = new Set(['name', 'description', 'topology', 'sources']);

function convert(v: unknown, key: string): unknown {
  if (TEXT_KEYS.has(key)) return v;
  if (typeof v === 'string') {
    const q = parseQuantity(v);
    return Number.isNaN(q) ? v : q;
  }
  if (Array.isArray(v)) return v.map((x) => convert(x, ''));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = convert(x, k);
    return out;
  }
  return v;
}

/** Parse and validate a machine description given as JSON text. */
export function machineFromJson(text: string, origin = 'machine file'): MachineSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError(`${origin}: not valid JSON (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ArgumentError(`${origin}: a machine description must be a JSON object`);
  const obj = raw as Record<string, unknown>;
  // "base": start from a preset and override fields.
  let merged: Record<string, unknown> = obj;
  if (typeof obj.base === 'string') {
    const base = getPreset(obj.base) as unknown as Record<string, unknown>;
    merged = deepMerge(base, obj);
    delete merged.base;
  }
  const m = convert(merged, '') as MachineSpec;
  const withSources: MachineSpec = { ...m, sources: m.sources ?? {} };
  validateMachine(withSources, origin);
  return withSources;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const av = a[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && av && typeof av === 'object' && !Array.isArray(av)
      ? deepMerge(av as Record<string, unknown>, v as Record<string, unknown>)
      : v;
  }
  return out;
}

/** A preset name, or a path to a JSON machine file. */
export function loadMachine(nameOrPath: string): MachineSpec {
  if (PRESETS[nameOrPath]) return PRESETS[nameOrPath];
  if (nameOrPath.endsWith('.json') || nameOrPath.includes('/')) {
    let text: string;
    try {
      text = readFileSync(nameOrPath, 'utf8');
    } catch (e) {
      throw new ArgumentError(`cannot read machine file '${nameOrPath}': ${(e as Error).message}`);
    }
    return machineFromJson(text, nameOrPath);
  }
  return getPreset(nameOrPath);
}
