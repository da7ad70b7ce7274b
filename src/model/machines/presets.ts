/** The built-in model parameter sets (validated once at load). */
import { validateMachine, type Machine } from '../machine.js';
import { MYRINET_BARRIER, QUADRICS_BARRIER } from './barrier-nics.js';
import { BLUE_WATERS } from './blue-waters.js';
import { DELTA } from './delta.js';
import { ELAN3_HOST, ELAN3_NIC } from './quadrics-elan3.js';

export const MACHINES: readonly Machine[] = Object.freeze(
  [ELAN3_HOST, ELAN3_NIC, DELTA, BLUE_WATERS, MYRINET_BARRIER, QUADRICS_BARRIER].map(validateMachine),
);
