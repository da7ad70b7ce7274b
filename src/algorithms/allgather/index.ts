import type { AlgorithmSpec } from '../types.js';
import { bruck } from './bruck.js';
import { concurrentBcast } from './concurrent_bcast.js';
import { multicastAllgather } from './multicast.js';
import { recursiveDoubling } from './recursive_doubling.js';
import { ring } from './ring.js';
import { smpAllgather } from './smp.js';

export const ALLGATHER_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoubling, ring, bruck, concurrentBcast, smpAllgather, multicastAllgather];
