// @launchpad-dev/sdk: the launchpad programs and API for TypeScript.
//   - `launchpad`, `amm`: Codama-generated codecs (instructions, accounts, events, errors, PDAs) from the IDLs;
//   - math: the programs' exact quote math in bigint (a port of crates/curve, differential-tested);
//   - keys, read: addresses of a launch, reading and pricing it at the chain's clock, claimables;
//   - transactions, trade: builders for launch, buy, sell, migrate and claims; one trade path for a mint in
//     any phase (the curve, or the AMM after migration);
//   - send, errors, events: a sender and a simulator, program errors decoded, the programs' events read;
//   - rest, feed: a typed client of the REST API and a live-feed client (SSE and WebSocket, resuming by seq).
export * as launchpad from './generated/launchpad/index.js';
export * as amm from './generated/amm/index.js';
export * from './math/index.js';
export * from './keys.js';
export * from './read.js';
export * from './transactions.js';
export * from './trade.js';
export * from './send.js';
export * from './errors.js';
export * from './events.js';
export * from './rest.js';
export * from './feed.js';
export * from './presets.js';
export * from './setup.js';
