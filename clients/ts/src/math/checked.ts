// Checked integer arithmetic in `bigint` with the bounds of the Rust types `crates/curve` computes in (u64,
// u128, U256): every operation that would overflow, underflow or divide by zero fails with `MathOverflow`,
// as the Rust crate's `SafeMath` does, so that a quote fails exactly where the program's would.

/** The errors of `crates/curve` (`CurveError`), by name. */
export type CurveErrorCode =
  | 'MathOverflow'
  | 'ZeroAmount'
  | 'AmountTooSmall'
  | 'CurveComplete'
  | 'InsufficientLiquidity'
  | 'InvalidCurve'
  | 'InvalidFee'
  | 'InvalidShare'
  | 'CurveMismatch'
  | 'InconsistentState';

/** A computation the program would refuse, with the `crates/curve` error it would refuse it with. */
export class CurveError extends Error {
  constructor(readonly code: CurveErrorCode) {
    super(`curve: ${code}`);
    this.name = 'CurveError';
  }
}

export const fail = (code: CurveErrorCode): never => {
  throw new CurveError(code);
};

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
export const U256_MAX = (1n << 256n) - 1n;
/** 2^64: one in Q64.64. */
export const Q64 = 1n << 64n;

export type Rounding = 'down' | 'up';

/** `x` as a value of a type bounded by `max`, or `MathOverflow`. */
export function within(x: bigint, max: bigint): bigint {
  return x < 0n || x > max ? fail('MathOverflow') : x;
}
export const u64 = (x: bigint): bigint => within(x, U64_MAX);
export const u128 = (x: bigint): bigint => within(x, U128_MAX);
export const u256 = (x: bigint): bigint => within(x, U256_MAX);

/** `num / den` rounded as asked; a zero denominator is `MathOverflow`. */
export function div(num: bigint, den: bigint, rounding: Rounding): bigint {
  if (den === 0n) fail('MathOverflow');
  const q = num / den;
  return rounding === 'up' && q * den !== num ? q + 1n : q;
}

/** `a * b / c` in 256 bits, the result a u128. */
export function mulDivU128(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint {
  return u128(div(u256(a * b), c, rounding));
}

/** `a * b / c` in 128 bits, the result a u64. */
export function mulDivU64(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint {
  if (c === 0n) fail('MathOverflow');
  return u64(div(u128(a * b), c, rounding));
}

/** The integer square root (floor). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) fail('MathOverflow');
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton's steps from the float estimate, then exact correction.
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x -= 1n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}
