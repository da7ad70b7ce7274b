import type { AlgorithmSpec } from '../types.js';
import { fnomial } from './fnomial.js';

export const REDUCE_ALGORITHMS: readonly AlgorithmSpec[] = [fnomial];
