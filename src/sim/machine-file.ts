/**
 * Machines for the simulator from `--machine`: a preset, or a machine file — the
 * machine description of src/machine (schema "collectives/machine", version 1, the
 * shape every command reads and `coll fit` writes), or an older shape (this
 * simulator's MachineSpec JSON, `coll fit`'s "collectives-machine/1") read with a
 * warning. Quantities may carry units ("2.9us", "400MB/s"); everything is validated
 * before any simulation (every problem named in one error).
 */
import { toSimMachine } from '../machine/convert.js';
import { readMachineJson } from '../machine/read.js';
import { simMachineFor } from '../machine/resolve.js';
import { ArgumentError } from '../core/errors.js';
import type { MachineSpec } from './machine.js';

/** Parse and validate a machine file's text (any shape) as the simulator's machine. */
export function machineFromJson(text: string, origin = 'machine file'): MachineSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError(`${origin}: not valid JSON (${(e as Error).message})`);
  }
  return toSimMachine(readMachineJson(raw, origin));
}

/** A preset name, or a path to a machine file. */
export function loadMachine(nameOrPath: string): MachineSpec {
  return simMachineFor(nameOrPath).machine;
}
