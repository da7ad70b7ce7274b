import type { AlgorithmSpec } from '../types.js';
import { binomial } from './binomial.js';
import { chain } from './chain.js';
import { kary } from './kary.js';
import { knomial } from './knomial.js';
import { linear } from './linear.js';
import { multicast } from './multicast.js';
import { postal } from './postal.js';
import { scatterAllgather } from './scatter_allgather.js';

export const BCAST_ALGORITHMS: readonly AlgorithmSpec[] = [binomial, knomial, kary, postal, chain, scatterAllgather, linear, multicast];
