/**
 * NIC regular-packet receive path (machine nic.packetRecv / nic.packetBytes, seed 003
 * §6.3–6.4): a NIC-run rank pays packetRecv per data packet it receives, on top of
 * oRecv; 0-byte messages (the barrier's static packet) and host-run ranks do not.
 * Hand-computed on a contention-free crossbar.
 */
import { describe, expect, it } from 'vitest';
import { fromSimMachine, toSimMachine } from '../../src/machine/convert.js';
import { parseMachineDescription } from '../../src/machine/schema.js';
import type { MachineSpec } from '../../src/sim/machine.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate } from '../../src/sim/simulate.js';
import { crossbarMachine } from './fixtures.js';

const us = 1e-6;

function machine(packetRecv?: number, packetBytes?: number): MachineSpec {
  return {
    ...crossbarMachine({ alphaInter: 2 * us, betaInter: 1e-9, nodes: 4, cores: 1 }),
    nic: {
      oSend: 1 * us,
      oRecv: 1 * us,
      gamma: { default: 0 },
      copyPerByte: 0,
      startup: 0.5 * us,
      completion: 0.5 * us,
      busCrossing: 0.25 * us,
      ...(packetRecv !== undefined ? { packetRecv } : {}),
      ...(packetBytes !== undefined ? { packetBytes } : {}),
    },
  };
}

const time = (m: MachineSpec, o: { collective: 'bcast' | 'barrier'; mode: 'host' | 'offload'; bytes?: number }): number =>
  simulate({
    collective: o.collective,
    algorithm: o.collective === 'bcast' ? 'linear' : 'dissemination',
    machine: m,
    procs: 2,
    mode: o.mode,
    contention: false,
    ...(o.bytes !== undefined ? { bytes: o.bytes, datatype: 'uint8' as const } : {}),
  }).first.time / us;

describe('nic.packetRecv: the regular receive path per data packet', () => {
  // Root: start-up 0.5, NIC send 1; NIC to NIC: α − 2 busCrossing = 1.5, B × 1 ns;
  // receiver: NIC receive 1 + packets × packetRecv, completion 0.5.
  const base = (bytes: number): number => 0.5 + 1 + 1.5 + bytes * 1e-3 + 1 + 0.5;

  it('charges ⌈B / packetBytes⌉ packets at the receiving NIC', () => {
    expect(time(machine(), { collective: 'bcast', mode: 'offload', bytes: 10000 })).toBeCloseTo(base(10000), 9);
    expect(time(machine(3 * us, 4096), { collective: 'bcast', mode: 'offload', bytes: 10000 })).toBeCloseTo(base(10000) + 3 * 3, 9);
    expect(time(machine(3 * us, 4096), { collective: 'bcast', mode: 'offload', bytes: 4096 })).toBeCloseTo(base(4096) + 3, 9);
    expect(time(machine(3 * us, 4096), { collective: 'bcast', mode: 'offload', bytes: 4097 })).toBeCloseTo(base(4097) + 2 * 3, 9);
  });

  it('without packetBytes a message is one packet', () => {
    expect(time(machine(3 * us), { collective: 'bcast', mode: 'offload', bytes: 10000 })).toBeCloseTo(base(10000) + 3, 9);
  });

  it('0-byte messages (barrier) and host-run ranks do not pay it', () => {
    // Dissemination on 2 ranks: each NIC sends and receives one 0-byte message.
    expect(time(machine(3 * us, 4096), { collective: 'barrier', mode: 'offload' })).toBeCloseTo(base(0), 9);
    expect(time(machine(3 * us, 4096), { collective: 'bcast', mode: 'host', bytes: 10000 })).toBeCloseTo(time(machine(), { collective: 'bcast', mode: 'host', bytes: 10000 }), 12);
  });

  it('is validated and survives the machine description round trip', () => {
    expect(() => time(machine(-1), { collective: 'bcast', mode: 'offload', bytes: 8 })).toThrow(/nic\.packetRecv/);
    expect(() => time(machine(0, 1.5), { collective: 'bcast', mode: 'offload', bytes: 8 })).toThrow(/nic\.packetBytes/);
    const l9 = getPreset('myrinet-lanai9');
    const back = toSimMachine(parseMachineDescription(JSON.parse(JSON.stringify(fromSimMachine(l9)))));
    expect(back.nic?.packetRecv).toBeCloseTo(l9.nic!.packetRecv!, 15);
    expect(back.nic?.packetBytes).toBe(4096);
  });
});
