// Reading a launch from the chain and pricing trades on it exactly as the program will: its pool and config
// accounts (Codama's decoders), the config's curve as a `Market`, the fee at the chain's clock, progress,
// quotes in both modes, and what a wallet can claim (creator, partner, surplus, a fee share).
import { type Address, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { fetchSysvarClock } from '@solana/sysvars';
import {
  type Config,
  type FeeShares,
  fetchConfig,
  fetchMaybeFeeShares,
  fetchPool,
  type Pool,
  PoolStatus,
} from './generated/launchpad/index.js';
import { fetchMaybeAmmPool, fetchMaybePosition } from './generated/amm/index.js';
import { type LaunchKeys, launchKeys, poolAddress } from './keys.js';
import * as m from './math/index.js';

export type LaunchpadRpc = Rpc<SolanaRpcApi>;

/** A launch as the chain has it now. */
export interface Launch {
  keys: LaunchKeys;
  pool: Pool;
  config: Config;
  market: m.Market;
  state: m.PoolState;
}

/** The curve a config stores, as the math computes on it. */
export function marketOf(config: Config): m.Market {
  return {
    curve: {
      sqrtStartPrice: config.sqrtStartPrice,
      segments: config.segments.slice(0, config.segmentCount).map((s) => ({ sqrtPriceUpper: s.sqrtPriceUpper, liquidity: s.liquidity })),
    },
    threshold: config.threshold,
    saleSupply: config.saleSupply,
    migrationSupply: config.migrationSupply,
  };
}

export const stateOf = (pool: Pool): m.PoolState => ({
  sqrtPrice: pool.sqrtPrice,
  baseReserve: pool.baseReserve,
  quoteReserve: pool.quoteReserve,
});

/** Reads the launch of `mint`. */
export async function fetchLaunch(rpc: LaunchpadRpc, mint: Address): Promise<Launch> {
  const pool = (await fetchPool(rpc, await poolAddress(mint))).data;
  const config = (await fetchConfig(rpc, pool.config)).data;
  return {
    keys: await launchKeys(pool.creator, pool.config, pool.quoteMint, mint),
    pool,
    config,
    market: marketOf(config),
    state: stateOf(pool),
  };
}

/** The chain's clock (unix seconds), as the program reads it: the Clock sysvar's `unix_timestamp`. */
export async function chainTime(rpc: LaunchpadRpc): Promise<bigint> {
  return (await fetchSysvarClock(rpc, { commitment: 'confirmed' })).unixTimestamp;
}

/** The fee a trade pays at `now` (unix seconds, the chain's clock), bps. */
export function feeNow(l: Pick<Launch, 'config' | 'pool'>, now: bigint): number {
  return m.feeBpsAt(l.config.fees, now - l.pool.launchTimestamp);
}

/** Progress to graduation, bps. */
export const launchProgressBps = (l: Pick<Launch, 'market' | 'state'>): number => m.progressBps(l.market, l.state);

/** What a trade on the curve would do at `now`: exact in (`amount` spent) or exact out (`amount` received). */
export function quote(l: Launch, side: m.Side, amount: bigint, now: bigint, mode: 'exactIn' | 'exactOut' = 'exactIn'): m.SwapResult & { feeBps: number } {
  if (l.pool.status !== PoolStatus.Bonding) m.fail('CurveComplete');
  const feeBps = feeNow(l, now);
  const r = mode === 'exactIn' ? m.swapExactIn(l.market, l.state, side, amount, feeBps) : m.swapExactOut(l.market, l.state, side, amount, feeBps);
  return { ...r, feeBps };
}

/** The least out (exact in) or the most in (exact out) at a slippage tolerance, rounded against the trader. */
export function withSlippage(amount: bigint, slippageBps: number, mode: 'minOut' | 'maxIn'): bigint {
  return mode === 'minOut'
    ? (amount * (10_000n - BigInt(slippageBps))) / 10_000n
    : (amount * (10_000n + BigInt(slippageBps)) + 9_999n) / 10_000n;
}

/** One thing a wallet can claim from a launch. */
export interface Claimable {
  kind: 'trading' | 'surplus' | 'locked-lp' | 'share';
  role: 'creator' | 'partner' | 'recipient';
  quote: bigint;
  base: bigint;
}

/** The uncollected AMM fees (tokens, quote) of a migrated launch's locked position. */
async function positionOwed(rpc: LaunchpadRpc, l: Launch, position: Address): Promise<[bigint, bigint]> {
  if (l.pool.status !== PoolStatus.Migrated) return [0n, 0n];
  const [amm, pos] = await Promise.all([fetchMaybeAmmPool(rpc, l.keys.amm.pool), fetchMaybePosition(rpc, position)]);
  if (!amm.exists || !pos.exists) return [0n, 0n];
  const liquidity = pos.data.liquidity + pos.data.lockedLiquidity;
  const a = pos.data.feesOwedA + m.feesEarned(amm.data.feeGrowthA, pos.data.feeGrowthCheckpointA, liquidity);
  const b = pos.data.feesOwedB + m.feesEarned(amm.data.feeGrowthB, pos.data.feeGrowthCheckpointB, liquidity);
  return amm.data.mintA === l.keys.mint ? [a, b] : [b, a];
}

/** What `wallet` can claim from launch `l` now, as the program would pay it. */
export async function claimables(rpc: LaunchpadRpc, l: Launch, wallet: Address): Promise<Claimable[]> {
  const out: Claimable[] = [];
  const add = (c: Claimable) => (c.quote > 0n || c.base > 0n) && out.push(c);
  const isCreator = l.pool.creator === wallet;
  const isPartner = l.config.partner === wallet;
  if (isCreator && !l.pool.feeShared) add({ kind: 'trading', role: 'creator', quote: l.pool.creatorFeeUnclaimed, base: 0n });
  if (isPartner) add({ kind: 'trading', role: 'partner', quote: l.pool.partnerFeeUnclaimed, base: 0n });
  if (isCreator && !l.pool.creatorSurplusClaimed) add({ kind: 'surplus', role: 'creator', quote: l.pool.creatorSurplusUnclaimed, base: 0n });
  if (isPartner && !l.pool.partnerSurplusClaimed) add({ kind: 'surplus', role: 'partner', quote: l.pool.partnerSurplusUnclaimed, base: 0n });
  if (isCreator && !l.pool.feeShared) {
    const [base, quote] = await positionOwed(rpc, l, l.keys.creatorPosition);
    add({ kind: 'locked-lp', role: 'creator', quote, base });
  }
  if (isPartner) {
    const [base, quote] = await positionOwed(rpc, l, l.keys.partnerPosition);
    add({ kind: 'locked-lp', role: 'partner', quote, base });
  }
  if (l.pool.feeShared) {
    const shares = await fetchMaybeFeeShares(rpc, l.keys.feeShares);
    if (shares.exists) {
      const owed = await positionOwed(rpc, l, l.keys.creatorPosition);
      const share = shareClaim(shares.data, l.pool, owed, wallet);
      if (share) add({ kind: 'share', role: 'recipient', quote: share.quote, base: share.base });
    }
  }
  return out;
}

/** A recipient's claim of shared creator fees now (`crates/sdk/src/shares.rs`): its credit, plus its part of
 * what the pool holds and of the creator position's uncollected fees (`lpOwed`: tokens, quote). */
export function shareClaim(shares: FeeShares, pool: Pool, lpOwed: [bigint, bigint], wallet: Address): { bps: number; quote: bigint; base: bigint } | null {
  const used = shares.slots.slice(0, shares.count);
  const slot = used.find((s) => s.wallet === wallet);
  if (!slot) return null;
  const active = used.filter((s) => s.bps > 0);
  const part = (amount: bigint) => {
    if (amount === 0n || slot.bps === 0) return 0n;
    const parts = m.distribute(amount, active.map((s) => s.bps));
    return parts[active.findIndex((s) => s.wallet === wallet)];
  };
  return {
    bps: slot.bps,
    quote: slot.quoteUnclaimed + part(pool.creatorFeeUnclaimed) + part(lpOwed[1]),
    base: slot.baseUnclaimed + part(lpOwed[0]),
  };
}
