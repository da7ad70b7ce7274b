import type { AlgorithmSpec } from '../types.js';

export const SCATTER_ALGORITHMS: readonly AlgorithmSpec[] = [];
