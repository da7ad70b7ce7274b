/**
 * Typed errors of the performance models and the tuner. They extend the core error
 * classes (src/core/errors.ts), so callers and the CLI handle them like any other
 * CollectivesError (code 'ARGUMENT'); every message names the offending value and
 * the accepted values or range.
 */
import { ArgumentError } from '../core/errors.js';

/** An unknown cost model name (`--model`). */
export class UnknownModelError extends ArgumentError {
  readonly model: string;
  constructor(model: string, known: readonly string[]) {
    super(`unknown model '${model}'`, `known models: ${known.join(', ')}`);
    this.model = model;
  }
}

/** An unknown machine parameter set (`--machine`): neither a preset nor a readable file. */
export class UnknownMachineError extends ArgumentError {
  readonly machine: string;
  constructor(machine: string, known: readonly string[]) {
    super(`unknown machine '${machine}'`, `known machines: ${known.join(', ')}, or a path to a machine description file (docs/machines.md; 'coll fit' writes one)`);
    this.machine = machine;
  }
}

/** A model or machine parameter outside its accepted range (negative latency, f(L) < 1, ...). */
export class ParameterRangeError extends ArgumentError {
  readonly parameter: string;
  readonly value: unknown;
  constructor(parameter: string, value: unknown, accepted: string, context?: string) {
    super(`${context ? `${context}: ` : ''}parameter '${parameter}' = ${String(value)} is out of range; accepted: ${accepted}`);
    this.parameter = parameter;
    this.value = value;
  }
}

/** A machine description (JSON file or object) that is malformed. */
export class MachineFormatError extends ArgumentError {
  constructor(message: string, hint?: string) {
    super(message, hint ?? "a machine file is the JSON written by 'coll fit' (see src/model/machine.ts for the fields)");
  }
}

/** Throw ParameterRangeError unless value is a finite number ≥ 0. */
export function checkNonNegative(name: string, value: number, context?: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ParameterRangeError(name, value, 'a finite number ≥ 0 (seconds, seconds/byte, ...)', context);
  }
}

/** Throw ParameterRangeError unless value is a finite number > 0. */
export function checkPositive(name: string, value: number, context?: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ParameterRangeError(name, value, 'a finite number > 0', context);
  }
}
