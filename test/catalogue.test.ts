/**
 * Every algorithm in the catalogue, checked against the sequential reference across
 * process counts (1..40 and larger), roots, counts, datatypes, operators,
 * parameters, topologies and delivery orders: the first half of the algorithms
 * (listAlgorithms() positions 0, 2, 4, …; the others: catalogue.part2.test.ts; the
 * tests: helpers/catalogue.ts).
 */
import { catalogueTests } from './helpers/catalogue.js';

catalogueTests(0, 2);
