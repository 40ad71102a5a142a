// Reading a launch from the chain and pricing trades on it exactly as the program will: its pool and config
// accounts (Codama's decoders), the config's curve as a `Market`, the fee at the chain's clock, progress,
// quotes in both modes, and what a wallet can claim (creator, partner, surplus, a fee share). Every reader
// takes a commitment (default `confirmed`); what is combined is read in one call, so at one slot.
import { type Address, type Commitment, getBase64Encoder, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { fetchSysvarClock } from '@solana/sysvars';
import {
  type Config,
  type FeeShares,
  getConfigDecoder,
  getFeeSharesDecoder,
  getPoolDecoder,
  type Pool,
  PoolStatus,
} from './generated/launchpad/index.js';
import { type AmmPool, getAmmPoolDecoder, getPositionDecoder, type Position } from './generated/amm/index.js';
import { type LaunchKeys, launchKeys, poolAddress } from './keys.js';
import * as m from './math/index.js';

export type LaunchpadRpc = Rpc<SolanaRpcApi>;

/** Options of every reader: the commitment of the read (default `confirmed`) and an abort signal. */
export interface ReadOptions {
  commitment?: Commitment;
  abortSignal?: AbortSignal;
  /** Read at this slot or later (the RPC waits or refuses otherwise). */
  minContextSlot?: bigint;
}

/** A launch as the chain has it at `slot`. */
export interface Launch {
  keys: LaunchKeys;
  pool: Pool;
  config: Config;
  market: m.Market;
  state: m.PoolState;
  /** The slot the pool and config were read at. */
  slot: bigint;
}

const b64 = getBase64Encoder();

/** The raw data of `addresses` (null: no account), read in one call, so at one slot. */
export async function readAccounts(rpc: LaunchpadRpc, addresses: readonly Address[], o: ReadOptions = {}): Promise<{ slot: bigint; data: (Uint8Array | null)[] }> {
  const { context, value } = await rpc
    .getMultipleAccounts([...addresses], { encoding: 'base64', commitment: o.commitment ?? 'confirmed', minContextSlot: o.minContextSlot })
    .send({ abortSignal: o.abortSignal });
  return { slot: context.slot, data: value.map((a) => (a ? new Uint8Array(b64.encode(a.data[0])) : null)) };
}

/** A launch whose accounts are missing. */
export class LaunchNotFound extends Error {
  constructor(readonly mint: Address) {
    super(`no launch of ${mint} on this cluster (its pool account does not exist)`);
    this.name = 'LaunchNotFound';
  }
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

/** Reads the launch of `mint` (its pool, then its config at that slot or later). */
export async function fetchLaunch(rpc: LaunchpadRpc, mint: Address, o: ReadOptions = {}): Promise<Launch> {
  const first = await readAccounts(rpc, [await poolAddress(mint)], o);
  if (!first.data[0]) throw new LaunchNotFound(mint);
  const pool = getPoolDecoder().decode(first.data[0]);
  const second = await readAccounts(rpc, [pool.config], { ...o, minContextSlot: first.slot });
  if (!second.data[0]) throw new LaunchNotFound(mint);
  const config = getConfigDecoder().decode(second.data[0]);
  return {
    keys: await launchKeys(pool.creator, pool.config, pool.quoteMint, mint),
    pool,
    config,
    market: marketOf(config),
    state: stateOf(pool),
    slot: first.slot,
  };
}

/** The chain's clock (unix seconds), as the program reads it: the Clock sysvar's `unix_timestamp`. */
export async function chainTime(rpc: LaunchpadRpc, o: ReadOptions = {}): Promise<bigint> {
  return (await fetchSysvarClock(rpc, { commitment: o.commitment ?? 'confirmed', abortSignal: o.abortSignal })).unixTimestamp;
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
function positionOwed(mint: Address, amm: AmmPool | null, pos: Position | null): [bigint, bigint] {
  if (!amm || !pos) return [0n, 0n];
  const liquidity = pos.liquidity + pos.lockedLiquidity;
  const a = pos.feesOwedA + m.feesEarned(amm.feeGrowthA, pos.feeGrowthCheckpointA, liquidity);
  const b = pos.feesOwedB + m.feesEarned(amm.feeGrowthB, pos.feeGrowthCheckpointB, liquidity);
  return amm.mintA === mint ? [a, b] : [b, a];
}

/** What `wallet` can claim from a launch (its `Launch` or its mint) now, as the program would pay it: the
 * pool, its config, the fee shares, the AMM pool and both locked positions read in one call, at one slot
 * (a `Launch` passed in gives its addresses only, never its possibly older state). */
export async function claimables(rpc: LaunchpadRpc, launch: Launch | Address, wallet: Address, o: ReadOptions = {}): Promise<Claimable[]> {
  const keys = typeof launch === 'string' ? (await fetchLaunch(rpc, launch, o)).keys : launch.keys;
  const read = await readAccounts(rpc, [keys.pool, keys.config, keys.feeShares, keys.amm.pool, keys.creatorPosition, keys.partnerPosition], o);
  const [poolData, configData, sharesData, ammData, creatorData, partnerData] = read.data;
  if (!poolData || !configData) throw new LaunchNotFound(keys.mint);
  const pool = getPoolDecoder().decode(poolData);
  const config = getConfigDecoder().decode(configData);
  const migrated = pool.status === PoolStatus.Migrated;
  const amm = migrated && ammData ? getAmmPoolDecoder().decode(ammData) : null;
  const creatorPos = migrated && creatorData ? getPositionDecoder().decode(creatorData) : null;
  const partnerPos = migrated && partnerData ? getPositionDecoder().decode(partnerData) : null;
  const out: Claimable[] = [];
  const add = (c: Claimable) => (c.quote > 0n || c.base > 0n) && out.push(c);
  const isCreator = pool.creator === wallet;
  const isPartner = config.partner === wallet;
  if (isCreator && !pool.feeShared) add({ kind: 'trading', role: 'creator', quote: pool.creatorFeeUnclaimed, base: 0n });
  if (isPartner) add({ kind: 'trading', role: 'partner', quote: pool.partnerFeeUnclaimed, base: 0n });
  if (isCreator && !pool.creatorSurplusClaimed) add({ kind: 'surplus', role: 'creator', quote: pool.creatorSurplusUnclaimed, base: 0n });
  if (isPartner && !pool.partnerSurplusClaimed) add({ kind: 'surplus', role: 'partner', quote: pool.partnerSurplusUnclaimed, base: 0n });
  if (isCreator && !pool.feeShared) {
    const [base, quote] = positionOwed(keys.mint, amm, creatorPos);
    add({ kind: 'locked-lp', role: 'creator', quote, base });
  }
  if (isPartner) {
    const [base, quote] = positionOwed(keys.mint, amm, partnerPos);
    add({ kind: 'locked-lp', role: 'partner', quote, base });
  }
  if (pool.feeShared && sharesData) {
    const share = shareClaim(getFeeSharesDecoder().decode(sharesData), pool, positionOwed(keys.mint, amm, creatorPos), wallet);
    if (share) add({ kind: 'share', role: 'recipient', quote: share.quote, base: share.base });
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
