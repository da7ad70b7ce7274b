/**
 * Preload for node processes (launch({ nodeArgs: ['--import', <this file>] })): reports on
 * stderr how every worker thread of the node ends, so a test can tell an offload engine
 * that stopped by itself (exit code 0, never terminated) from one the node had to kill.
 *
 *   THREAD-EXIT engine|rank code=<n>
 *   THREAD-TERMINATE engine|rank
 *
 * The node process imports Worker from node:worker_threads; replacing the export and
 * syncing the ES module bindings makes it construct this subclass.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const wt = require('node:worker_threads');
const Base = wt.Worker;
const ENGINE_KEY = '__collectivesEngine';

wt.Worker = class Worker extends Base {
  constructor(url, options) {
    super(url, options);
    const data = options && options.workerData;
    this.kind = data && typeof data === 'object' && ENGINE_KEY in data ? 'engine' : 'rank';
    this.on('exit', (code) => process.stderr.write(`THREAD-EXIT ${this.kind} code=${code}\n`));
  }

  terminate() {
    process.stderr.write(`THREAD-TERMINATE ${this.kind}\n`);
    return super.terminate();
  }
};
syncBuiltinESMExports();
