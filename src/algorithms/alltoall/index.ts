import type { AlgorithmSpec } from '../types.js';
import { bruck } from './bruck.js';
import { pairwise } from './pairwise.js';

export const ALLTOALL_ALGORITHMS: readonly AlgorithmSpec[] = [pairwise, bruck];
