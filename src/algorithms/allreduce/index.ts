import type { AlgorithmSpec } from '../types.js';
import { recursiveDoubling } from './recursive_doubling.js';

export const ALLREDUCE_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoubling];
