// Pool-level swaps on the curve with fees, the exact graduation fill and its refund, exact in and exact out:
// `crates/curve/src/swap.rs`. A `Market` is a config's curve and supplies; a `PoolState` a pool's price and
// reserves (both read from the chain's accounts, or from the pinned presets).
import { fail, mulDivU64, u64, u128 } from './checked.js';
import { buyBaseOut, buyQuoteIn, type Curve, sellBaseIn, sellQuoteOut, sqrtEndPrice } from './curve.js';
import { BPS_DENOMINATOR, feeOnAmount, grossForNet } from './fee.js';
import { CurveError } from './checked.js';

export interface Market {
  curve: Curve;
  /** Quote raised (net of fees) at which the curve completes. */
  threshold: bigint;
  saleSupply: bigint;
  migrationSupply: bigint;
}

export interface PoolState {
  sqrtPrice: bigint;
  baseReserve: bigint;
  quoteReserve: bigint;
}

export type Side = 'buy' | 'sell';

export interface SwapResult {
  /** What the trader pays (a buy's fee included, its refund excluded). */
  amountIn: bigint;
  /** What the trader receives (a sell's after the fee). */
  amountOut: bigint;
  fee: bigint;
  /** Of a buy's offer, what stays with the trader because the curve completed. */
  refund: bigint;
  next: PoolState;
  completes: boolean;
}

export function initialState(m: Market): PoolState {
  return { sqrtPrice: m.curve.sqrtStartPrice, baseReserve: u64(m.saleSupply + m.migrationSupply), quoteReserve: 0n };
}

/** Progress to graduation, basis points (rounded down). */
export function progressBps(m: Market, s: PoolState): number {
  const raised = s.quoteReserve < m.threshold ? s.quoteReserve : m.threshold;
  return Number(mulDivU64(raised, BPS_DENOMINATOR, m.threshold, 'down'));
}

const unsold = (m: Market, s: PoolState): bigint =>
  s.baseReserve >= m.migrationSupply ? s.baseReserve - m.migrationSupply : fail('InconsistentState');

function remainingQuote(m: Market, s: PoolState): bigint {
  const left = m.threshold > s.quoteReserve ? m.threshold - s.quoteReserve : 0n;
  return left === 0n ? fail('CurveComplete') : left;
}

function completingBuy(m: Market, s: PoolState, offered: bigint, needed: bigint, feeBps: number): SwapResult {
  const gross = grossForNet(needed, feeBps);
  if (offered < gross) fail('InconsistentState');
  if (gross < needed) fail('InconsistentState');
  return {
    amountIn: gross,
    amountOut: unsold(m, s),
    fee: gross - needed,
    refund: offered - gross,
    next: { sqrtPrice: sqrtEndPrice(m.curve), baseReserve: m.migrationSupply, quoteReserve: m.threshold },
    completes: true,
  };
}

export function buyExactIn(m: Market, s: PoolState, amountIn: bigint, feeBps: number): SwapResult {
  if (amountIn === 0n) fail('ZeroAmount');
  const needed = remainingQuote(m, s);
  const fee = feeOnAmount(amountIn, feeBps);
  if (amountIn < fee) fail('InvalidFee');
  const net = amountIn - fee;
  if (net >= needed) return completingBuy(m, s, amountIn, needed, feeBps);
  const fill = buyQuoteIn(m.curve, s.sqrtPrice, net);
  if (fill.amountIn !== net) fail('InconsistentState');
  const out = u64(fill.amountOut);
  if (out === 0n) fail('AmountTooSmall');
  if (out > unsold(m, s)) fail('InconsistentState');
  if (s.baseReserve < out) fail('InconsistentState');
  return {
    amountIn,
    amountOut: out,
    fee,
    refund: 0n,
    next: { sqrtPrice: fill.sqrtPrice, baseReserve: s.baseReserve - out, quoteReserve: u64(s.quoteReserve + net) },
    completes: false,
  };
}

export function sellExactIn(m: Market, s: PoolState, amountIn: bigint, feeBps: number): SwapResult {
  if (amountIn === 0n) fail('ZeroAmount');
  remainingQuote(m, s);
  const fill = sellBaseIn(m.curve, s.sqrtPrice, amountIn);
  const gross = u64(fill.amountOut);
  if (gross > s.quoteReserve) fail('InconsistentState');
  const fee = feeOnAmount(gross, feeBps);
  const out = gross > fee ? gross - fee : 0n;
  if (out === 0n) fail('AmountTooSmall');
  return {
    amountIn,
    amountOut: out,
    fee,
    refund: 0n,
    next: { sqrtPrice: fill.sqrtPrice, baseReserve: u64(s.baseReserve + amountIn), quoteReserve: s.quoteReserve - gross },
    completes: false,
  };
}

export function buyExactOut(m: Market, s: PoolState, amountOut: bigint, feeBps: number): SwapResult {
  if (amountOut === 0n) fail('ZeroAmount');
  const needed = remainingQuote(m, s);
  const left = unsold(m, s);
  if (amountOut > left) fail('InsufficientLiquidity');
  const complete = () => completingBuy(m, s, grossForNet(needed, feeBps), needed, feeBps);
  if (amountOut === left) return complete();
  let fill;
  try {
    fill = buyBaseOut(m.curve, s.sqrtPrice, amountOut);
  } catch (e) {
    if (e instanceof CurveError && e.code === 'InsufficientLiquidity') return complete();
    throw e;
  }
  const net = u64(fill.amountIn);
  if (net >= needed || fill.sqrtPrice >= sqrtEndPrice(m.curve)) return complete();
  if (net === 0n) fail('AmountTooSmall');
  const gross = grossForNet(net, feeBps);
  return {
    amountIn: gross,
    amountOut,
    fee: u64(gross - net),
    refund: 0n,
    next: { sqrtPrice: fill.sqrtPrice, baseReserve: u64(s.baseReserve - amountOut), quoteReserve: u64(s.quoteReserve + net) },
    completes: false,
  };
}

export function sellExactOut(m: Market, s: PoolState, amountOut: bigint, feeBps: number): SwapResult {
  if (amountOut === 0n) fail('ZeroAmount');
  remainingQuote(m, s);
  const gross = grossForNet(amountOut, feeBps);
  if (gross > s.quoteReserve) fail('InsufficientLiquidity');
  const fill = sellQuoteOut(m.curve, s.sqrtPrice, u128(gross));
  const baseIn = u64(fill.amountIn);
  if (baseIn === 0n) fail('AmountTooSmall');
  return {
    amountIn: baseIn,
    amountOut,
    fee: u64(gross - amountOut),
    refund: 0n,
    next: { sqrtPrice: fill.sqrtPrice, baseReserve: u64(s.baseReserve + baseIn), quoteReserve: u64(s.quoteReserve - gross) },
    completes: false,
  };
}

export function swapExactIn(m: Market, s: PoolState, side: Side, amountIn: bigint, feeBps: number): SwapResult {
  return side === 'buy' ? buyExactIn(m, s, amountIn, feeBps) : sellExactIn(m, s, amountIn, feeBps);
}

export function swapExactOut(m: Market, s: PoolState, side: Side, amountOut: bigint, feeBps: number): SwapResult {
  return side === 'buy' ? buyExactOut(m, s, amountOut, feeBps) : sellExactOut(m, s, amountOut, feeBps);
}
