// Shared creator fees and the referral's cut: `crates/curve/src/shares.rs`.
import { fail, mulDivU64 } from './checked.js';
import { BPS_DENOMINATOR } from './fee.js';

export const MAX_FEE_RECIPIENTS = 10;

/** A partner fee split with a referral: `floor(fee * share / 10,000)` to the referral, the rest to the partner. */
export function splitReferral(partnerFee: bigint, referralShareBps: number): { referral: bigint; partner: bigint } {
  if (BigInt(referralShareBps) > BPS_DENOMINATOR) fail('InvalidShare');
  const referral = mulDivU64(partnerFee, BigInt(referralShareBps), BPS_DENOMINATOR, 'down');
  return { referral, partner: partnerFee - referral };
}

/** 1 to 10 shares, each above zero, summing to exactly 10,000. */
export function validateShares(sharesBps: readonly number[]): void {
  if (sharesBps.length === 0 || sharesBps.length > MAX_FEE_RECIPIENTS) fail('InvalidShare');
  let total = 0;
  for (const b of sharesBps) {
    if (b === 0) fail('InvalidShare');
    total += b;
  }
  if (total !== 10_000) fail('InvalidShare');
}

/** `amount` split by `sharesBps`: each part rounded down, the dust to the first; the parts sum to `amount`. */
export function distribute(amount: bigint, sharesBps: readonly number[]): bigint[] {
  validateShares(sharesBps);
  const parts = sharesBps.map((b) => mulDivU64(amount, BigInt(b), BPS_DENOMINATOR, 'down'));
  const paid = parts.reduce((a, b) => a + b, 0n);
  parts[0] += amount - paid;
  return parts;
}
