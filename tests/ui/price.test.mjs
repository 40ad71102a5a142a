// The page's price format (api/ui/format.js `price`): short, never ambiguous, the same number back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { seeded } from './seeded.mjs';

const source = readFileSync(new URL('../../api/ui/format.js', import.meta.url), 'utf8');
const { price, usd } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

/** A formatted small price back to its plain decimal (the exponent written out again as zeros). */
function expand(s) {
  const m = s.match(/^(\d)(?:\.(\d+))?e-(\d+)$/);
  return m ? `0.${'0'.repeat(Number(m[3]) - 1)}${m[1]}${m[2] ?? ''}` : s;
}

const rand = seeded(0x9e3779b9);

test('a price below 1 keeps its first four significant digits and reads back exactly', () => {
  for (let i = 0; i < 20_000; i++) {
    const zeros = rand(18);
    const digits = String(1 + rand(9)) + Array.from({ length: rand(8) }, () => String(rand(10))).join('');
    const input = `0.${'0'.repeat(zeros)}${digits}`;
    const shown = price(input);
    assert.ok(!/\s/.test(shown), `${shown} has a space (it could wrap)`);
    assert.ok(shown.length <= 12, `${input} shown as ${shown}: too long`);
    const kept = digits.slice(0, 4).replace(/0+$/, '');
    assert.equal(expand(shown), `0.${'0'.repeat(zeros)}${kept}`, `${input} shown as ${shown}`);
    if (zeros >= 4) assert.match(shown, /^[1-9](\.\d{1,3})?e-\d+$/, `${input} shown as ${shown}`);
    assert.ok(!/[₀-₉]/.test(shown), `${shown}: no subscript counts`);
  }
});

test('the cases a trader sees', () => {
  assert.equal(price('0.000000004122'), '4.122e-9');
  // The pair, side by side: a factor of ten between them reads as one in the exponent.
  assert.equal(price('0.00000000794'), '7.94e-9');
  assert.equal(price('0.00000001299'), '1.299e-8');
  assert.equal(price('0.001234'), '0.001234');
  assert.equal(price('1.23456'), '1.2346');
  assert.equal(price('0'), '0');
  assert.equal(price(null), '–');
});

test('dollars read as dollars: compact above a dollar, a price below, nothing without a value', () => {
  assert.equal(usd('4263.703703'), '$4.26K');
  assert.equal(usd('1250000.5'), '$1.25M');
  assert.equal(usd('12.5'), '$12.5');
  assert.equal(usd('0.000000421300000000'), '$4.213e-7');
  // Dollars the page computed from a float (a claim of one lamport) come in exponent form.
  assert.equal(usd(String(1.5490175132e-7)), '$1.549e-7');
  assert.equal(usd('0.000000'), '$0');
  assert.equal(usd(null), null);
  assert.equal(usd(''), null);
  assert.equal(usd('nope'), null);
});
