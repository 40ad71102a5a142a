// The chart's candles (api/ui/candles.js): each opens at the previous close, and the axis stays sensible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { seeded } from './seeded.mjs';

const source = readFileSync(new URL('../../api/ui/candles.js', import.meta.url), 'utf8');
const { chained, axisRange } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

const rand = seeded(0x51ed270b);

test('every candle opens at the previous close and still contains its own trades', () => {
  for (let run = 0; run < 500; run++) {
    const rows = Array.from({ length: 1 + rand(30) }, (_, i) => {
      const a = 1 + rand(1000);
      const b = 1 + rand(1000);
      const lo = Math.min(a, b);
      const hi = Math.max(a, b);
      return { time: i * 60, open: String(lo + rand(hi - lo + 1)), high: String(hi), low: String(lo), close: String(lo + rand(hi - lo + 1)) };
    });
    const drawn = chained(rows);
    assert.equal(drawn.length, rows.length);
    assert.equal(drawn[0].open, Number(rows[0].open));
    for (let i = 0; i < drawn.length; i++) {
      const c = drawn[i];
      if (i > 0) assert.equal(c.open, drawn[i - 1].close);
      assert.equal(c.close, Number(rows[i].close));
      assert.ok(c.low <= Math.min(c.open, c.close, Number(rows[i].low)));
      assert.ok(c.high >= Math.max(c.open, c.close, Number(rows[i].high)));
    }
  }
});

test('a single trade after a higher close is a red candle, not a flat dash', () => {
  const [, second] = chained([
    { time: 0, open: '5', high: '5', low: '5', close: '5' },
    { time: 60, open: '4', high: '4', low: '4', close: '4' },
  ]);
  assert.deepEqual(second, { time: 60, open: 5, high: 5, low: 4, close: 4 });
});

test('the axis never goes below zero and a flat series gets room', () => {
  assert.deepEqual(axisRange({ minValue: -3, maxValue: 10 }), { minValue: 0, maxValue: 10 });
  const flat = axisRange({ minValue: 0.05, maxValue: 0.05 });
  assert.ok(flat.minValue < 0.05 && flat.maxValue > 0.05 && flat.minValue >= 0);
  assert.equal(axisRange(null), null);
});
