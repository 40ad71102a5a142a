// A launch's whole life through the SDK and @solana/kit alone (no API): set up a fresh cluster, launch with a
// first buy, buy, sell, buy exact out, trade to graduation (the refund), migrate, and claim as creator and
// partner. Every trade's outcome on chain equals the SDK's quote to the base unit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { type Address, generateKeyPairSigner } from '@solana/kit';
import {
  associatedTokenAddress,
  chainTime,
  claimables,
  claimInstructions,
  deriveLaunchKeys,
  fetchLaunch,
  launchInstructions,
  migrateInstructions,
  NATIVE_MINT,
  quote,
  send,
  swapInstructions,
  TOKEN_2022_PROGRAM,
  withSlippage,
  launchpad,
} from '../../src/index.js';
import { cluster, fund } from './cluster.js';

const c = await cluster();
after(() => c.stop());

/** Lamports of a wallet, and its tokens of `mint` (0 without an account). */
async function lamportsOf(a: Address): Promise<bigint> {
  return (await c.rpc.getBalance(a, { commitment: 'confirmed' }).send()).value;
}
async function tokensOf(owner: Address, mint: Address): Promise<bigint> {
  const ata = await associatedTokenAddress(owner, mint, TOKEN_2022_PROGRAM);
  try {
    return BigInt((await c.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount);
  } catch {
    return 0n;
  }
}
/** Fee of a one-signature transaction with no priority fee. */
const TX_FEE = 5_000n;

test('launch, trade exactly as quoted, graduate, migrate and claim with the SDK alone', async () => {
  const creator = await generateKeyPairSigner();
  const trader = await generateKeyPairSigner();
  await fund(c, creator.address, 5n);
  await fund(c, trader.address, 40n);
  const salt = BigInt(Date.now());
  const keys = await deriveLaunchKeys(creator.address, salt, 'fair', NATIVE_MINT);

  // Launch with a first buy of 0.1 SOL, priced from the pinned config before the pool exists.
  await send(
    c.rpc,
    creator,
    await launchInstructions({ creator, keys, salt, name: 'SDK Token', symbol: 'SDK', uri: 'https://example.org/sdk.json', firstBuy: { amountIn: 100_000_000n, minAmountOut: 1n } }),
  );
  let launch = await fetchLaunch(c.rpc, keys.mint);
  assert.equal(launch.pool.creator, creator.address);
  assert.equal(launch.keys.pool, keys.pool);
  assert.ok((await tokensOf(creator.address, keys.mint)) > 0n);

  // Buy 1 SOL: the tokens received are exactly the quote's.
  let now = await chainTime(c.rpc);
  let q = quote(launch, 'buy', 1_000_000_000n, now);
  await send(c.rpc, trader, await swapInstructions({ trader, keys, side: 'buy', amount: 1_000_000_000n, limit: withSlippage(q.amountOut, 50, 'minOut') }));
  assert.equal(await tokensOf(trader.address, keys.mint), q.amountOut);
  launch = await fetchLaunch(c.rpc, keys.mint);
  assert.deepEqual(launch.state, q.next, 'the pool is where the quote said');

  // Sell half: the SOL received is exactly the quote's (net of the transaction's fee).
  const half = q.amountOut / 2n;
  now = await chainTime(c.rpc);
  q = quote(launch, 'sell', half, now);
  let before = await lamportsOf(trader.address);
  await send(c.rpc, trader, await swapInstructions({ trader, keys, side: 'sell', amount: half, limit: q.amountOut }));
  assert.equal((await lamportsOf(trader.address)) - before, q.amountOut - TX_FEE);

  // Buy exactly 1,000,000 tokens: exactly those arrive, for exactly the quoted SOL.
  launch = await fetchLaunch(c.rpc, keys.mint);
  now = await chainTime(c.rpc);
  const want = 1_000_000_000_000n;
  q = quote(launch, 'buy', want, now, 'exactOut');
  const held = await tokensOf(trader.address, keys.mint);
  before = await lamportsOf(trader.address);
  await send(c.rpc, trader, await swapInstructions({ trader, keys, side: 'buy', mode: 'exactOut', amount: want, limit: withSlippage(q.amountIn, 50, 'maxIn') }));
  assert.equal((await tokensOf(trader.address, keys.mint)) - held, want);
  assert.equal(before - (await lamportsOf(trader.address)), q.amountIn + TX_FEE);

  // The graduating buy: filled exactly to the threshold, the rest refunded, the curve complete.
  launch = await fetchLaunch(c.rpc, keys.mint);
  now = await chainTime(c.rpc);
  q = quote(launch, 'buy', 15_000_000_000n, now);
  assert.ok(q.completes && q.refund > 0n);
  before = await lamportsOf(trader.address);
  await send(c.rpc, trader, await swapInstructions({ trader, keys, side: 'buy', amount: 15_000_000_000n, limit: 1n }));
  assert.equal(before - (await lamportsOf(trader.address)), q.amountIn + TX_FEE, 'paid the missing quote and its fee, no more');
  launch = await fetchLaunch(c.rpc, keys.mint);
  assert.equal(launch.pool.status, launchpad.PoolStatus.Complete);
  assert.equal(launch.pool.quoteReserve, launch.config.threshold);

  // Migrate (anyone).
  await send(c.rpc, trader, await migrateInstructions(trader, keys));
  launch = await fetchLaunch(c.rpc, keys.mint);
  assert.equal(launch.pool.status, launchpad.PoolStatus.Migrated);
  assert.equal(launch.pool.ammPool, keys.amm.pool);

  // Claims: what `claimables` reports is what arrives, for the creator and the partner (the setup's).
  const partner = c.setup.partner === c.payer.address ? c.payer : null;
  for (const who of [creator, partner].filter((w) => w !== null)) {
    const owed = (await claimables(c.rpc, launch, who.address)).filter((x) => x.kind === 'trading' || x.kind === 'surplus');
    assert.ok(owed.length >= 2, `${who.address}: ${JSON.stringify(owed, (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`);
    for (const claim of owed) {
      const b = await lamportsOf(who.address);
      await send(c.rpc, who, await claimInstructions(who, keys, claim.kind));
      assert.equal((await lamportsOf(who.address)) - b, claim.quote - TX_FEE, `${claim.role} ${claim.kind}`);
      launch = await fetchLaunch(c.rpc, keys.mint);
    }
    assert.deepEqual(
      (await claimables(c.rpc, launch, who.address)).filter((x) => x.kind === 'trading' || x.kind === 'surplus'),
      [],
    );
  }
});
