/**
 * `--machine NAME|FILE` for every command: a built-in preset (the models' and the
 * simulator's, each command preferring its own where names coincide) or a machine
 * file in any shape read.ts accepts, as the form the command computes with.
 */
import { existsSync } from 'node:fs';
import type { Machine } from '../model/machine.js';
import { UnknownMachineError } from '../model/errors.js';
import { getMachine, machineNames } from '../model/machines/index.js';
import type { MachineSpec } from '../sim/machine.js';
import { PRESETS as SIM_PRESETS } from '../sim/presets.js';
import { fromModelMachine, toModelMachine, toSimMachine } from './convert.js';
import { presetDescription, readMachineFile } from './read.js';
import type { MachineDescription } from './schema.js';

function isPath(s: string): boolean {
  return s.endsWith('.json') || s.includes('/');
}

/** Every name `--machine` accepts besides a file. */
export function allMachineNames(): string[] {
  return [...new Set([...machineNames(), ...Object.keys(SIM_PRESETS)])];
}

/** A preset or file as a description (presets converted from their built-in form). */
export function resolveDescription(nameOrPath: string): MachineDescription {
  if (isPath(nameOrPath)) {
    if (!existsSync(nameOrPath)) throw new UnknownMachineError(nameOrPath, allMachineNames());
    return readMachineFile(nameOrPath);
  }
  const p = presetDescription(nameOrPath);
  if (p) return p;
  // File-backed model presets (this-machine).
  if (machineNames().includes(nameOrPath)) return fromModelMachine(getMachine(nameOrPath));
  throw new UnknownMachineError(nameOrPath, allMachineNames());
}

/** For `coll model` and `coll tune`: the models' Machine. */
export function modelMachineFor(nameOrPath: string): Machine {
  if (!isPath(nameOrPath) && machineNames().includes(nameOrPath)) return getMachine(nameOrPath);
  const d = resolveDescription(nameOrPath);
  return toModelMachine(d, isPath(nameOrPath) ? nameOrPath : d.name);
}

/** For `coll sim`: the simulator's MachineSpec and the description's default noise. */
export function simMachineFor(nameOrPath: string): { machine: MachineSpec; noise?: string } {
  const preset = isPath(nameOrPath) ? undefined : SIM_PRESETS[nameOrPath];
  if (preset) return { machine: preset };
  const d = resolveDescription(nameOrPath);
  return { machine: toSimMachine(d), ...(d.noise !== undefined ? { noise: d.noise } : {}) };
}
