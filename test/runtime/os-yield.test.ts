/**
 * The optional native helper: built by the install step here (CI installs with a
 * compiler), it loads in the main thread and in worker threads, sched_yield returns,
 * and the yield budget honours COLL_YIELD_US.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { defaultYieldUs, osYield } from '../../src/runtime/os-yield.js';

const built = existsSync(new URL('../../build/Release/os_yield.node', import.meta.url));

describe('os-yield', () => {
  it('is built by the install step on this machine and loads', () => {
    expect(built).toBe(true);
    expect(typeof osYield).toBe('function');
    for (let i = 0; i < 100; i++) (osYield as () => void)();
  });
  it('loads in a worker thread (Node-API, context-aware)', async () => {
    const path = new URL('../../build/Release/os_yield.node', import.meta.url).pathname;
    const w = new Worker(`const { createRequire } = require('node:module'); const m = createRequire(${JSON.stringify(path)})(${JSON.stringify(path)}); m.osYield(); require('node:worker_threads').parentPort.postMessage(typeof m.osYield);`, { eval: true });
    const got = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(got).toBe('function');
  });
  it('yield budget: 5 ms by default, COLL_YIELD_US overrides, 0 turns it off', () => {
    expect(defaultYieldUs({})).toBe(5000);
    expect(defaultYieldUs({ COLL_YIELD_US: '250' })).toBe(250);
    expect(defaultYieldUs({ COLL_YIELD_US: '0' })).toBe(0);
    expect(defaultYieldUs({ COLL_YIELD_US: 'x' })).toBe(5000);
  });
});
