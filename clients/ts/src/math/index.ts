// The launchpad's money math in `bigint`, a line-for-line port of `crates/curve` (the code the programs run):
// the same rounding to the base unit and the same errors. `test/differential.test.ts` checks every function
// against the Rust crate on tens of thousands of random cases.
export * from './checked.js';
export * from './fee.js';
export * from './curve.js';
export * from './swap.js';
export * from './amm.js';
export * from './shares.js';
