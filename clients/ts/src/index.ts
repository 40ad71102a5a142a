// @launchpad-dev/sdk: the launchpad programs and API for TypeScript.
//   - `launchpad`, `amm`: Codama-generated codecs (instructions, accounts, events, errors, PDAs) from the IDLs;
//   - math: the programs' exact quote math in bigint (a port of crates/curve, differential-tested);
//   - keys, read: addresses of a launch, reading and pricing it at the chain's clock, claimables;
//   - transactions: builders for launch, buy, sell, migrate and claims, and a sender, on @solana/kit;
//   - rest, feed: a typed client of the REST API and a live-feed client (SSE and WebSocket, resuming by seq).
export * as launchpad from './generated/launchpad/index.js';
export * as amm from './generated/amm/index.js';
export * from './math/index.js';
export * from './keys.js';
export * from './read.js';
export * from './transactions.js';
export * from './rest.js';
export * from './feed.js';
export * from './presets.js';
export * from './setup.js';
