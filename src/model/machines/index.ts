/**
 * The named machine parameter sets, and `getMachine` which resolves a name or a
 * path to a machine JSON file (`coll fit --out`, any shape src/machine reads). File-backed presets (FILE_PRESETS:
 * `this-machine`, the committed `coll fit` run in ./data) load on first use.
 * Unknown names raise UnknownMachineError listing the presets.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UnknownMachineError } from '../errors.js';
import type { Machine } from '../machine.js';
import { MYRINET_BARRIER, QUADRICS_BARRIER } from './barrier-nics.js';
import { BLUE_WATERS } from './blue-waters.js';
import { DELTA } from './delta.js';
import { loadMachineFile } from './load.js';
import { MACHINES } from './presets.js';
import { ELAN3_HOST, ELAN3_NIC } from './quadrics-elan3.js';

export { MACHINES };

/** Presets stored as `coll fit` machine files next to this module (name → file in ./data). */
export const FILE_PRESETS: Readonly<Record<string, string>> = { 'this-machine': 'this-machine.json' };

export function machineNames(): string[] {
  return [...MACHINES.map((m) => m.name), ...Object.keys(FILE_PRESETS)];
}

/** A preset by name, or a machine JSON file by path. */
export function getMachine(nameOrPath: string): Machine {
  const m = MACHINES.find((x) => x.name === nameOrPath);
  if (m) return m;
  const file = FILE_PRESETS[nameOrPath];
  if (file) return loadMachineFile(fileURLToPath(new URL(`./data/${file}`, import.meta.url)));
  if (nameOrPath.endsWith('.json') || nameOrPath.includes('/')) {
    if (!existsSync(nameOrPath)) throw new UnknownMachineError(nameOrPath, machineNames());
    return loadMachineFile(nameOrPath);
  }
  throw new UnknownMachineError(nameOrPath, machineNames());
}

export { BLUE_WATERS, DELTA, ELAN3_HOST, ELAN3_NIC, MYRINET_BARRIER, QUADRICS_BARRIER };
