// The candlestick chart with volume: TradingView Lightweight Charts 4.2.3 (Apache-2.0), vendored from the
// npm registry as its standalone ES module build.
import { createChart } from './vendor/lightweight-charts-4.2.3.mjs';
import { price } from './format.js';
import { chained, axisRange } from './candles.js';

/** Launch prices are tiny (whole quote per whole token, about 1e-8 SOL): the chart plots them per this many
 * tokens, where the library's scale works (its smallest step is 1e-9), and labels them per token again, in
 * the page's one price format. */
export const PER_TOKENS = 1_000_000;

/** An axis label per token; the scale's margin under the lowest candle (where the volume bars are) would
 * read below zero, and prices never are: no label there. */
const perToken = (v) => (v < 0 ? '' : price(v / PER_TOKENS));

export function candleChart(container) {
  const chart = createChart(container, {
    autoSize: true,
    // Attribution is the page footer's link to TradingView (the logo would need an inline style).
    layout: { background: { color: 'transparent' }, textColor: '#c9d1d9', attributionLogo: false },
    grid: { vertLines: { color: '#1f2630' }, horzLines: { color: '#1f2630' } },
    timeScale: { timeVisible: true, secondsVisible: true },
    localization: { priceFormatter: perToken },
    rightPriceScale: { scaleMargins: { top: 0.1, bottom: 0.3 } },
  });
  const candles = chart.addCandlestickSeries({
    priceFormat: { type: 'custom', formatter: perToken, minMove: 1e-9 },
    autoscaleInfoProvider: (original) => {
      const info = original();
      return info ? { ...info, priceRange: axisRange(info.priceRange) } : info;
    },
    upColor: '#2ebd85',
    downColor: '#f6465d',
    wickUpColor: '#2ebd85',
    wickDownColor: '#f6465d',
    borderVisible: false,
  });
  const volume = chart.addHistogramSeries({
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    color: '#3b4a5e',
    lastValueVisible: false,
    priceLineVisible: false,
  });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.75, bottom: 0 } });
  let fitted = false;
  // A page left while its candles load may still hand them over: a removed chart ignores them.
  let removed = false;
  return {
    /** Candles from /launchpad/candles, oldest first; volumes in whole quote (`quoteDecimals`). */
    set(rows, quoteDecimals) {
      if (removed) return;
      candles.setData(
        chained(rows).map((c) => ({
          time: c.time,
          open: c.open * PER_TOKENS,
          high: c.high * PER_TOKENS,
          low: c.low * PER_TOKENS,
          close: c.close * PER_TOKENS,
        })),
      );
      volume.setData(
        rows.map((c) => ({
          time: c.time,
          value: Number(c.volumeQuote) / 10 ** quoteDecimals,
          color: +c.close >= +c.open ? '#2ebd8566' : '#f6465d66',
        })),
      );
      if (!fitted && rows.length) {
        chart.timeScale().fitContent();
        fitted = true;
      }
    },
    refit() {
      fitted = false;
    },
    remove() {
      if (removed) return;
      removed = true;
      chart.remove();
    },
  };
}
