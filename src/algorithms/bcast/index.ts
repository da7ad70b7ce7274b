import type { AlgorithmSpec } from '../types.js';
import { binomial } from './binomial.js';

export const BCAST_ALGORITHMS: readonly AlgorithmSpec[] = [binomial];
