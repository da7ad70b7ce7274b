import type { AlgorithmSpec } from '../types.js';
import { fence } from './fence.js';
import { meshTree } from './mesh_tree.js';
import { nap } from './nap.js';
import { rabenseifner } from './rabenseifner.js';
import { recursiveDoubling } from './recursive_doubling.js';
import { reduceBcast } from './reduce_bcast.js';
import { ring } from './ring.js';
import { smp } from './smp.js';
import { snake } from './snake.js';

export const ALLREDUCE_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoubling, rabenseifner, ring, reduceBcast, smp, nap, meshTree, snake, fence];
