import type { AlgorithmSpec } from '../types.js';
import { dissemination } from './dissemination.js';
import { karyTree } from './kary_tree.js';
import { linear } from './linear.js';
import { multicastBarrier } from './multicast.js';
import { pairwiseExchange } from './pairwise_exchange.js';
import { smpBarrier } from './smp.js';

export const BARRIER_ALGORITHMS: readonly AlgorithmSpec[] = [dissemination, pairwiseExchange, karyTree, linear, smpBarrier, multicastBarrier];
