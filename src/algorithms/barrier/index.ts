import type { AlgorithmSpec } from '../types.js';
import { dissemination } from './dissemination.js';

export const BARRIER_ALGORITHMS: readonly AlgorithmSpec[] = [dissemination];
