// The curve: a start square-root price (Q64.64) and up to 16 constant-product segments, traversed in both
// directions exact in and exact out: `crates/curve/src/math.rs` and `crates/curve/src/curve.rs`, with the same
// rounding at every step (always in the pool's favour).
import { div, fail, Q64, type Rounding, u128, u256 } from './checked.js';

export interface Segment {
  sqrtPriceUpper: bigint;
  liquidity: bigint;
}

export interface Curve {
  sqrtStartPrice: bigint;
  segments: readonly Segment[];
}

export interface Fill {
  sqrtPrice: bigint;
  amountIn: bigint;
  amountOut: bigint;
}

/** Quote in a range of liquidity `l` between two square-root prices. */
export function deltaQuote(l: bigint, sLo: bigint, sHi: bigint, rounding: Rounding): bigint {
  const ds = u128(sHi - sLo);
  return u128(div(u256(l * ds), Q64, rounding));
}

/** Tokens in a range of liquidity `l` between two square-root prices. */
export function deltaBase(l: bigint, sLo: bigint, sHi: bigint, rounding: Rounding): bigint {
  const ds = u128(sHi - sLo);
  if (ds === 0n) return 0n;
  const num = u256(u256(l * ds) * Q64);
  const den = u256(sLo * sHi);
  return u128(div(num, den, rounding));
}

export function sqrtPriceAfterQuoteIn(s: bigint, l: bigint, quoteIn: bigint): bigint {
  const step = u128(div(u256(quoteIn * Q64), l, 'down'));
  return u128(s + step);
}

export function sqrtPriceAfterQuoteOut(s: bigint, l: bigint, quoteOut: bigint): bigint {
  const step = u128(div(u256(quoteOut * Q64), l, 'up'));
  return s >= step ? s - step : fail('InsufficientLiquidity');
}

export function sqrtPriceAfterBaseIn(s: bigint, l: bigint, baseIn: bigint): bigint {
  const lq = u256(l * Q64);
  const num = u256(lq * s);
  const den = u256(lq + u256(baseIn * s));
  return u128(div(num, den, 'up'));
}

export function sqrtPriceAfterBaseOut(s: bigint, l: bigint, baseOut: bigint): bigint {
  const lq = u256(l * Q64);
  const num = u256(lq * s);
  const taken = u256(baseOut * s);
  const den = lq - taken;
  if (den <= 0n) fail('InsufficientLiquidity');
  return u128(div(num, den, 'up'));
}

export function sqrtEndPrice(c: Curve): bigint {
  return c.segments.length ? c.segments[c.segments.length - 1].sqrtPriceUpper : c.sqrtStartPrice;
}

const lower = (c: Curve, i: number): bigint => (i === 0 ? c.sqrtStartPrice : c.segments[i - 1].sqrtPriceUpper);

function sumBetween(c: Curve, from: bigint, to: bigint, f: (l: bigint, lo: bigint, hi: bigint) => bigint): bigint {
  let total = 0n;
  c.segments.forEach((seg, i) => {
    const lo = lower(c, i) > from ? lower(c, i) : from;
    const hi = seg.sqrtPriceUpper < to ? seg.sqrtPriceUpper : to;
    if (hi > lo) total = u128(total + f(seg.liquidity, lo, hi));
  });
  return total;
}

export const baseBetween = (c: Curve, from: bigint, to: bigint, r: Rounding): bigint =>
  sumBetween(c, from, to, (l, lo, hi) => deltaBase(l, lo, hi, r));
export const quoteBetween = (c: Curve, from: bigint, to: bigint, r: Rounding): bigint =>
  sumBetween(c, from, to, (l, lo, hi) => deltaQuote(l, lo, hi, r));

const segmentUp = (c: Curve, s: bigint): number => c.segments.findIndex((seg) => seg.sqrtPriceUpper > s);
function segmentDown(c: Curve, s: bigint): number {
  for (let i = c.segments.length - 1; i >= 0; i--) if (lower(c, i) < s) return i;
  return -1;
}

function checkPrice(c: Curve, s: bigint): void {
  if (s < c.sqrtStartPrice || s > sqrtEndPrice(c)) fail('InconsistentState');
}

/** Spends up to `quoteIn` (net of fees) buying along the curve from `s`. */
export function buyQuoteIn(c: Curve, s: bigint, quoteIn: bigint): Fill {
  checkPrice(c, s);
  let price = s;
  let remaining = quoteIn;
  let out = 0n;
  while (remaining > 0n) {
    const i = segmentUp(c, price);
    if (i < 0) break;
    const seg = c.segments[i];
    const toTop = deltaQuote(seg.liquidity, price, seg.sqrtPriceUpper, 'up');
    let next: bigint;
    if (remaining >= toTop) {
      remaining -= toTop;
      next = seg.sqrtPriceUpper;
    } else {
      const after = sqrtPriceAfterQuoteIn(price, seg.liquidity, remaining);
      next = after < seg.sqrtPriceUpper ? after : seg.sqrtPriceUpper;
      remaining = 0n;
    }
    out = u128(out + deltaBase(seg.liquidity, price, next, 'down'));
    price = next;
  }
  return { sqrtPrice: price, amountIn: quoteIn - remaining, amountOut: out };
}

/** Sells `baseIn` tokens down the curve from `s`. */
export function sellBaseIn(c: Curve, s: bigint, baseIn: bigint): Fill {
  checkPrice(c, s);
  let price = s;
  let remaining = baseIn;
  let out = 0n;
  while (remaining > 0n) {
    const i = segmentDown(c, price);
    if (i < 0) fail('InsufficientLiquidity');
    const seg = c.segments[i];
    const lo = lower(c, i);
    const toBottom = deltaBase(seg.liquidity, lo, price, 'up');
    let next: bigint;
    if (remaining >= toBottom) {
      remaining -= toBottom;
      next = lo;
    } else {
      const after = sqrtPriceAfterBaseIn(price, seg.liquidity, remaining);
      next = after > lo ? after : lo;
      remaining = 0n;
    }
    out = u128(out + deltaQuote(seg.liquidity, next, price, 'down'));
    price = next;
  }
  return { sqrtPrice: price, amountIn: baseIn, amountOut: out };
}

/** The quote (net) that buys exactly `baseOut` tokens from `s`. */
export function buyBaseOut(c: Curve, s: bigint, baseOut: bigint): Fill {
  checkPrice(c, s);
  let price = s;
  let remaining = baseOut;
  let cost = 0n;
  while (remaining > 0n) {
    const i = segmentUp(c, price);
    if (i < 0) fail('InsufficientLiquidity');
    const seg = c.segments[i];
    const inRange = deltaBase(seg.liquidity, price, seg.sqrtPriceUpper, 'down');
    let next: bigint;
    if (remaining > inRange) {
      remaining -= inRange;
      next = seg.sqrtPriceUpper;
    } else {
      const after = sqrtPriceAfterBaseOut(price, seg.liquidity, remaining);
      next = after < seg.sqrtPriceUpper ? after : seg.sqrtPriceUpper;
      remaining = 0n;
    }
    cost = u128(cost + deltaQuote(seg.liquidity, price, next, 'up'));
    price = next;
  }
  return { sqrtPrice: price, amountIn: cost, amountOut: baseOut };
}

/** The tokens that sell for exactly `quoteOut` (gross) from `s`. */
export function sellQuoteOut(c: Curve, s: bigint, quoteOut: bigint): Fill {
  checkPrice(c, s);
  let price = s;
  let remaining = quoteOut;
  let cost = 0n;
  while (remaining > 0n) {
    const i = segmentDown(c, price);
    if (i < 0) fail('InsufficientLiquidity');
    const seg = c.segments[i];
    const lo = lower(c, i);
    const inRange = deltaQuote(seg.liquidity, lo, price, 'down');
    let next: bigint;
    if (remaining > inRange) {
      remaining -= inRange;
      next = lo;
    } else {
      const after = sqrtPriceAfterQuoteOut(price, seg.liquidity, remaining);
      next = after > lo ? after : lo;
      remaining = 0n;
    }
    cost = u128(cost + deltaBase(seg.liquidity, next, price, 'up'));
    price = next;
  }
  return { sqrtPrice: price, amountIn: cost, amountOut: quoteOut };
}
