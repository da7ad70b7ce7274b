import type { AlgorithmSpec } from '../types.js';
import { binomial } from './binomial.js';
import { linear } from './linear.js';

export const GATHER_ALGORITHMS: readonly AlgorithmSpec[] = [binomial, linear];
