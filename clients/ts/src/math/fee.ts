// Fee schedules (fixed, or a cliff that falls every period after launch: `shield`), the fee on an amount,
// the gross for a net, and the creator/partner split: `crates/curve/src/fee.rs`.
import { div, fail, mulDivU64 } from './checked.js';

export const BPS_DENOMINATOR = 10_000n;

export interface FeeSchedule {
  cliffFeeBps: number;
  reductionBpsPerPeriod: number;
  periodSeconds: number;
  numberOfPeriods: number;
}

function feeAfterPeriods(s: FeeSchedule, periods: bigint): number {
  const p = periods < BigInt(s.numberOfPeriods) ? periods : BigInt(s.numberOfPeriods);
  const reduction = p * BigInt(s.reductionBpsPerPeriod);
  const fee = BigInt(s.cliffFeeBps) - reduction;
  return Number(fee > 0n ? fee : 0n);
}

/** The fee once every period has passed. */
export function finalFeeBps(s: FeeSchedule): number {
  return feeAfterPeriods(s, BigInt(s.numberOfPeriods));
}

/** The fee `elapsedSeconds` after launch (the chain's clock minus the pool's launch timestamp). */
export function feeBpsAt(s: FeeSchedule, elapsedSeconds: bigint): number {
  if (s.periodSeconds === 0) return finalFeeBps(s);
  if (elapsedSeconds <= 0n) return s.cliffFeeBps;
  return feeAfterPeriods(s, elapsedSeconds / BigInt(s.periodSeconds));
}

/** Seconds after launch at which the fee next changes (null: it never changes again). */
export function nextChangeAfter(s: FeeSchedule, elapsedSeconds: bigint): bigint | null {
  const decays = s.periodSeconds > 0 && s.numberOfPeriods > 0 && s.reductionBpsPerPeriod > 0;
  if (!decays) return null;
  const period = BigInt(s.periodSeconds);
  const periods = (elapsedSeconds > 0n ? elapsedSeconds : 0n) / period;
  return periods < BigInt(s.numberOfPeriods) ? (periods + 1n) * period : null;
}

/** `ceil(amount * feeBps / 10,000)`. */
export function feeOnAmount(amount: bigint, feeBps: number): bigint {
  return mulDivU64(amount, BigInt(feeBps), BPS_DENOMINATOR, 'up');
}

/** The smallest gross whose net after the fee covers `net`: `ceil(net * 10,000 / (10,000 - feeBps))`. */
export function grossForNet(net: bigint, feeBps: number): bigint {
  const keep = BPS_DENOMINATOR - BigInt(feeBps);
  if (keep <= 0n) fail('InvalidFee');
  return mulDivU64(net, BPS_DENOMINATOR, keep, 'up');
}

export interface FeeSplit {
  creator: bigint;
  partner: bigint;
}

/** The creator gets `floor(fee * share / 10,000)`, the partner the rest. */
export function splitFee(fee: bigint, creatorShareBps: number): FeeSplit {
  if (BigInt(creatorShareBps) > BPS_DENOMINATOR) fail('InvalidShare');
  const creator = mulDivU64(fee, BigInt(creatorShareBps), BPS_DENOMINATOR, 'down');
  return { creator, partner: fee - creator };
}

export { div };
