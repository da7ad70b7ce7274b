import type { AlgorithmSpec } from '../types.js';

export const GATHER_ALGORITHMS: readonly AlgorithmSpec[] = [];
