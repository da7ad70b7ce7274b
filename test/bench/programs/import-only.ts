/** Imports the package and prints one line: with a JSON first argument (as rank programs may get), nothing else may run. */
import * as collectives from '../../../src/index.js';

console.log(`imported ${typeof collectives.init}`);
