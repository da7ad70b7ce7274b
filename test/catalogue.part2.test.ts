/**
 * The catalogue test's second half: listAlgorithms() positions 1, 3, 5, … (see
 * catalogue.test.ts and helpers/catalogue.ts).
 */
import { catalogueTests } from './helpers/catalogue.js';

catalogueTests(1, 2);
