import type { AlgorithmSpec } from '../types.js';
import { pairwise } from './pairwise.js';
import { recursiveHalving } from './recursive_halving.js';
import { reduceThenScatter } from './reduce_then_scatter.js';

export const REDUCE_SCATTER_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveHalving, pairwise, reduceThenScatter];
