import type { AlgorithmSpec } from '../types.js';
import { linearExscan, linearScan } from './linear.js';
import { recursiveDoublingExscan, recursiveDoublingScan } from './recursive_doubling.js';

export const SCAN_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoublingScan, linearScan];
export const EXSCAN_ALGORITHMS: readonly AlgorithmSpec[] = [recursiveDoublingExscan, linearExscan];
