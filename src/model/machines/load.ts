/**
 * Machine JSON files: read and write the parameter file `coll fit` produces (or any
 * hand-written one). The format is the Machine interface of ../machine.ts serialised
 * as JSON, SI units, with a `format` tag; every value must have a `sources` entry.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MachineFormatError } from '../errors.js';
import { validateMachine, type Machine } from '../machine.js';

export const MACHINE_FORMAT = 'collectives-machine/1';

const NUM_FIELDS = ['oSend', 'oRecv', 'gamma', 'copyPerByte'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Convert parsed JSON into a validated Machine (throws MachineFormatError / ParameterRangeError). */
export function machineFromJson(data: unknown, origin = 'machine JSON'): Machine {
  if (!isRecord(data)) throw new MachineFormatError(`${origin}: expected a JSON object`);
  if (data.format !== undefined && data.format !== MACHINE_FORMAT) {
    throw new MachineFormatError(`${origin}: unsupported format '${String(data.format)}'`, `expected '${MACHINE_FORMAT}'`);
  }
  for (const k of ['name', 'description', 'source'] as const) {
    if (typeof data[k] !== 'string') throw new MachineFormatError(`${origin}: field '${k}' must be a string`);
  }
  for (const k of ['intra', 'inter'] as const) {
    const l = data[k];
    if (!isRecord(l) || typeof l.alpha !== 'number' || typeof l.beta !== 'number') {
      throw new MachineFormatError(`${origin}: field '${k}' must be { "alpha": seconds, "beta": seconds/byte }`);
    }
  }
  for (const k of NUM_FIELDS) {
    if (typeof data[k] !== 'number') throw new MachineFormatError(`${origin}: field '${k}' must be a number (SI units)`);
  }
  if (!isRecord(data.sources) || Object.values(data.sources).some((s) => typeof s !== 'string')) {
    throw new MachineFormatError(`${origin}: field 'sources' must map value paths to strings`);
  }
  const { format: _f, ...rest } = data;
  return validateMachine(rest as unknown as Machine);
}

export function loadMachineFile(path: string): Machine {
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
  return machineFromJson(data, `machine file '${path}'`);
}

export function machineToJson(m: Machine): string {
  return `${JSON.stringify({ format: MACHINE_FORMAT, ...validateMachine(m) }, null, 2)}\n`;
}

export function saveMachineFile(path: string, m: Machine): void {
  writeFileSync(path, machineToJson(m));
}
