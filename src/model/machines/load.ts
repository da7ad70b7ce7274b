/**
 * Machine files for the models: the machine description of src/machine (schema
 * "collectives/machine", version 1; what `coll fit` writes), read into the models'
 * Machine and written from one. The older `coll fit` shape ("format":
 * "collectives-machine/1") and `coll sim`'s MachineSpec files are still read, with a
 * warning that says how to convert them.
 */
import { fromModelMachine, toModelMachine } from '../../machine/convert.js';
import { LEGACY_FIT_FORMAT, machineDescriptionToJson, readMachineFile, readMachineJson, writeMachineFile } from '../../machine/read.js';
import { validateMachine, type Machine } from '../machine.js';

/** The older `coll fit` file tag, still read (with a warning). */
export const MACHINE_FORMAT = LEGACY_FIT_FORMAT;

/** Parsed JSON (a description or an older shape) → a validated Machine. */
export function machineFromJson(data: unknown, origin = 'machine JSON'): Machine {
  return validateMachine(toModelMachine(readMachineJson(data, origin), origin));
}

export function loadMachineFile(path: string): Machine {
  return validateMachine(toModelMachine(readMachineFile(path), path));
}

/** The machine as a machine description (JSON text). */
export function machineToJson(m: Machine): string {
  return machineDescriptionToJson(fromModelMachine(validateMachine(m)));
}

export function saveMachineFile(path: string, m: Machine): void {
  writeMachineFile(path, fromModelMachine(validateMachine(m)));
}
