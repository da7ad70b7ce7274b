import type { AlgorithmSpec } from '../types.js';

export const REDUCE_SCATTER_ALGORITHMS: readonly AlgorithmSpec[] = [];
