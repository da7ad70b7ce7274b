import type { AlgorithmSpec } from '../types.js';

export const ALLTOALL_ALGORITHMS: readonly AlgorithmSpec[] = [];
