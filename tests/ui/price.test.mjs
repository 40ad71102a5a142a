// The page's price format (api/ui/format.js `price`): short, never ambiguous, the same number back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { seeded } from './seeded.mjs';

const source = readFileSync(new URL('../../api/ui/format.js', import.meta.url), 'utf8');
const { price, usd } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
/** A formatted small price back to its plain decimal (subscripts expanded). */
function expand(s) {
  return s.replace(/^0\.0([₀-₉]+)/, (_, sub) => `0.${'0'.repeat(Number([...sub].map((c) => SUBSCRIPT.indexOf(c)).join('')))}`);
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
    if (zeros >= 4) assert.match(shown, /^0\.0[₀-₉]+\d+$/, `${input} shown as ${shown}`);
  }
});

test('the cases a trader sees', () => {
  assert.equal(price('0.000000004122'), '0.0₈4122');
  assert.equal(price('0.001234'), '0.001234');
  assert.equal(price('1.23456'), '1.2346');
  assert.equal(price('0'), '0');
  assert.equal(price(null), '–');
});

test('dollars read as dollars: compact above a dollar, a price below, nothing without a value', () => {
  assert.equal(usd('4263.703703'), '$4.26K');
  assert.equal(usd('1250000.5'), '$1.25M');
  assert.equal(usd('12.5'), '$12.5');
  assert.equal(usd('0.000000421300000000'), '$0.0₆4213');
  assert.equal(usd('0.000000'), '$0');
  assert.equal(usd(null), null);
  assert.equal(usd(''), null);
  assert.equal(usd('nope'), null);
});
