import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/core/errors.js';
import { MachineFormatError, ParameterRangeError, UnknownMachineError } from '../../src/model/errors.js';
import { numericPaths, reduceTime, sourceOf, validateMachine } from '../../src/model/machine.js';
import { BLUE_WATERS, DELTA, ELAN3_HOST, ELAN3_NIC, MACHINES, getMachine } from '../../src/model/machines/index.js';
import { loadMachineFile, machineFromJson, machineToJson, saveMachineFile } from '../../src/model/machines/load.js';

describe('machine parameter sets', () => {
  it('every preset validates and every value has a source', () => {
    for (const m of MACHINES) {
      expect(() => validateMachine(m)).not.toThrow();
      for (const p of numericPaths(m)) expect(sourceOf(m, p), `${m.name}.${p}`).toBeTruthy();
    }
  });

  it('Blue Waters-like values are all marked assumed and say where real ones come from', () => {
    for (const p of numericPaths(BLUE_WATERS)) expect(sourceOf(BLUE_WATERS, p)).toMatch(/^assumed.*ping-pong/);
  });

  it('seed values in SI units: Elan3 NIC L = 2.10 µs, r = 0.42 µs, C = 9.20 µs; DELTA β = 1.54 µs per double', () => {
    expect(ELAN3_NIC.inter.alpha).toBeCloseTo(2.1e-6, 15);
    expect(ELAN3_NIC.oRecv).toBeCloseTo(0.42e-6, 15);
    expect(ELAN3_NIC.startup).toBeCloseTo(9.2e-6, 15);
    expect(ELAN3_HOST.inter.alpha).toBeCloseTo(2.9e-6, 15);
    expect(DELTA.inter.beta * 8).toBeCloseTo(1.54e-6, 15);
  });

  it('c(op, n) from Table 4.3: exact at 1/2/4/8, linear between, extrapolated beyond, NOP = 0, min = max', () => {
    expect(reduceTime(ELAN3_NIC, 'sum', 'float64', 4)).toBeCloseTo(5.8e-6, 15);
    expect(reduceTime(ELAN3_NIC, 'sum', 'float64', 3)).toBeCloseTo(4.375e-6, 15);
    expect(reduceTime(ELAN3_NIC, 'sum', 'float64', 16)).toBeCloseTo(11.56e-6 + 8 * (5.76e-6 / 4), 15);
    expect(reduceTime(ELAN3_NIC, 'noop', 'float64', 8)).toBe(0);
    expect(reduceTime(ELAN3_NIC, 'min', 'int32', 2)).toBeCloseTo(0.46e-6, 15);
    // ops without a row fall back to γ·n
    expect(reduceTime(ELAN3_NIC, 'prod', 'float32', 10)).toBeCloseTo(10 * ELAN3_NIC.gamma, 15);
  });

  it('negative latency is rejected, naming the value and the accepted range', () => {
    const bad = { ...DELTA, inter: { alpha: -1e-6, beta: 1e-9 } };
    expect(() => validateMachine(bad)).toThrow(ParameterRangeError);
    expect(() => validateMachine(bad)).toThrow(/machine 'delta': parameter 'inter.alpha' = -0.000001 is out of range; accepted: a finite number ≥ 0/);
    expect(() => validateMachine({ ...DELTA, injection: { RN: 0, Rb: 1 } })).toThrow(/'injection.RN' = 0.*> 0/);
  });

  it('a value without a source is rejected', () => {
    const m = { ...DELTA, sources: { ...DELTA.sources } } as { sources: Record<string, string> } & typeof DELTA;
    delete m.sources['inter.alpha'];
    expect(() => validateMachine(m)).toThrow(MachineFormatError);
    expect(() => validateMachine(m)).toThrow(/no source for inter.alpha/);
  });

  it('JSON round trip through a file; getMachine resolves names and paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-machine-'));
    const path = join(dir, 'm.json');
    saveMachineFile(path, ELAN3_NIC);
    const back = loadMachineFile(path);
    expect(back).toEqual(ELAN3_NIC);
    expect(getMachine(path)).toEqual(ELAN3_NIC);
    expect(getMachine('delta')).toBe(DELTA);
    expect(JSON.parse(machineToJson(DELTA))).toMatchObject({ schema: 'collectives/machine', version: 1, name: 'delta' });
  });

  it('malformed files and unknown names give typed errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-machine-'));
    const p = join(dir, 'bad.json');
    writeFileSync(p, '{"name": "x"');
    expect(() => loadMachineFile(p)).toThrow(/not valid JSON/);
    expect(() => machineFromJson({ name: 'x', description: '', source: '', intra: { alpha: 1 } })).toThrow(/'intra' must be \{ "alpha"/);
    expect(() => getMachine('cray-t3e')).toThrow(UnknownMachineError);
    expect(() => getMachine('cray-t3e')).toThrow(/unknown machine 'cray-t3e'[\s\S]*known machines: elan3-host, elan3-nic, delta, bluewaters/);
    expect(() => getMachine('/nonexistent/m.json')).toThrow(ArgumentError);
  });
});
