import type { AlgorithmSpec } from '../types.js';
import { nap } from './nap.js';
import { rabenseifner } from './rabenseifner.js';
import { recursiveDoubling } from './recursive_doubling.js';
import { reduceBcast } from './reduce_bcast.js';
import { ring } from './ring.js';
import { smp } from './smp.js';

export const ALLREDUCE_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoubling, rabenseifner, ring, reduceBcast, smp, nap];
