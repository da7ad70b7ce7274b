import type { AlgorithmSpec } from '../types.js';
import { binomial } from './binomial.js';
import { fnomial } from './fnomial.js';
import { fnomialSplit } from './fnomial_split.js';
import { linear } from './linear.js';
import { rabenseifner } from './rabenseifner.js';

export const REDUCE_ALGORITHMS: readonly AlgorithmSpec[] = [fnomial, linear, binomial, fnomialSplit, rabenseifner];
