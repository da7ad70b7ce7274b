import type { AlgorithmSpec } from '../types.js';

export const ALLGATHER_ALGORITHMS: readonly AlgorithmSpec[] = [];
