/** Rank program of the start-up experiment (startup.ts): join the job and leave; the launcher's report has the figures. */
import { init } from '../index.js';

init().barrier();
