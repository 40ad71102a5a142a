// Candles as the chart draws them, apart from the chart library so that they can be tested alone.

/**
 * Candles as drawn: each opens at the previous candle's close (a candle of one trade is not a flat dash,
 * and a sell shows red), its high and low widened to include that open.
 */
export function chained(rows) {
  let prev = null;
  return rows.map((c) => {
    const close = Number(c.close);
    const open = prev === null ? Number(c.open) : prev;
    prev = close;
    return {
      time: c.time,
      open,
      high: Math.max(Number(c.high), open),
      low: Math.min(Number(c.low), open),
      close,
    };
  });
}

/** The price axis' range: never below zero, and a flat series gets room around it (one point would print the
 * same label eight times). */
export function axisRange(range) {
  if (!range) return range;
  let { minValue, maxValue } = range;
  if (maxValue - minValue <= Math.abs(maxValue) * 1e-9) {
    const pad = Math.abs(maxValue) * 0.1 || 1e-9;
    minValue -= pad;
    maxValue += pad;
  }
  return { minValue: Math.max(0, minValue), maxValue };
}
