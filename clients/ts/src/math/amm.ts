// The AMM's constant-product swaps and the migration plan: `crates/curve/src/amm.rs`.
import { div, fail, isqrt, mulDivU128, Q64, u64, u128, u256 } from './checked.js';
import { BPS_DENOMINATOR, feeOnAmount, grossForNet, splitFee } from './fee.js';

export const MAX_SWAP_FEE_BPS = 1_000;
export const DEFAULT_SWAP_FEE_BPS = 25;

export interface AmmSwap {
  amountIn: bigint;
  fee: bigint;
  amountOut: bigint;
  reserveInAfter: bigint;
  reserveOutAfter: bigint;
}

/** Exactly `amountIn` in (the fee taken from it), at least nothing out; rounded in the pool's favour. */
export function ammSwapExactIn(reserveIn: bigint, reserveOut: bigint, amountIn: bigint, feeBps: number): AmmSwap {
  if (amountIn === 0n) fail('ZeroAmount');
  if (BigInt(feeBps) >= BPS_DENOMINATOR) fail('InvalidFee');
  if (reserveIn === 0n || reserveOut === 0n) fail('InsufficientLiquidity');
  const fee = feeOnAmount(amountIn, feeBps);
  const net = u64(amountIn - fee);
  const newIn = u64(reserveIn + net);
  const out = u64(mulDivU128(reserveOut, net, newIn, 'down'));
  if (out === 0n) fail('AmountTooSmall');
  if (reserveOut < out) fail('InsufficientLiquidity');
  return { amountIn, fee, amountOut: out, reserveInAfter: newIn, reserveOutAfter: reserveOut - out };
}

/** Exactly `amountOut` out, for the least input (the fee on top) that buys it. */
export function ammSwapExactOut(reserveIn: bigint, reserveOut: bigint, amountOut: bigint, feeBps: number): AmmSwap {
  if (amountOut === 0n) fail('ZeroAmount');
  if (BigInt(feeBps) >= BPS_DENOMINATOR) fail('InvalidFee');
  if (reserveIn === 0n || amountOut >= reserveOut) fail('InsufficientLiquidity');
  const left = reserveOut - amountOut;
  const net = u64(mulDivU128(reserveIn, amountOut, left, 'up'));
  const gross = grossForNet(net, feeBps);
  return { amountIn: gross, fee: u64(gross - net), amountOut, reserveInAfter: u64(reserveIn + net), reserveOutAfter: left };
}

/** Fees a position earned since `growthThen` (fee growth per liquidity, Q64.64, wrapping like the program). */
export function feesEarned(growthNow: bigint, growthThen: bigint, liquidity: bigint): bigint {
  const delta = (growthNow - growthThen) & ((1n << 128n) - 1n);
  return u64(u128(div(u256(delta * liquidity), Q64, 'down')));
}

/** Quote worth `base` tokens at a Q64.64 square-root price, rounded down. */
export function quoteAtSqrtPrice(base: bigint, sqrtPrice: bigint): bigint {
  const sq = u256(sqrtPrice * sqrtPrice);
  const num = u256(sq * base);
  return u64(u128(div(num, Q64 * Q64, 'down')));
}

export function initialLiquidity(amountA: bigint, amountB: bigint): bigint {
  const l = isqrt(u128(amountA * amountB));
  return l === 0n ? fail('AmountTooSmall') : l;
}

export interface MigrationPlan {
  basePerPosition: bigint;
  quotePerPosition: bigint;
  liquidityPerPosition: bigint;
  burntBase: bigint;
  surplus: bigint;
  creatorSurplus: bigint;
  partnerSurplus: bigint;
}

/** What migration deposits into the AMM (two equal locked positions), burns, and leaves as surplus. */
export function planMigration(base: bigint, raised: bigint, sqrtPrice: bigint, creatorShareBps: number): MigrationPlan {
  const atPrice = quoteAtSqrtPrice(base, sqrtPrice);
  const quote = atPrice < raised ? atPrice : raised;
  const basePerPosition = base / 2n;
  const quotePerPosition = quote / 2n;
  const liquidityPerPosition = initialLiquidity(basePerPosition, quotePerPosition);
  const takenBase = u64(basePerPosition * 2n);
  const takenQuote = u64(quotePerPosition * 2n);
  const surplus = u64(raised - takenQuote);
  const split = splitFee(surplus, creatorShareBps);
  return {
    basePerPosition,
    quotePerPosition,
    liquidityPerPosition,
    burntBase: u64(base - takenBase),
    surplus,
    creatorSurplus: split.creator,
    partnerSurplus: split.partner,
  };
}
