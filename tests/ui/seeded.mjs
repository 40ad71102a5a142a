// A seeded random source for the page's property tests (no dependency): the same cases on every run.

/** `rand(n)`: an integer in [0, n), from xorshift32 started at `seed`. */
export function seeded(seed) {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}
