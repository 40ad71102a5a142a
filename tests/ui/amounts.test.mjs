// Property tests of the page's amount parser (api/ui/format.js `parseAmount`), run by `node --test` from
// scripts/test: whatever way a person writes an amount, it is read as they meant it or refused, never
// misread. Random cases from a seeded generator (no dependency), 20,000 per property.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { seeded } from './seeded.mjs';

// The page's module as the browser gets it (it is not a package: loaded from its text).
const source = readFileSync(new URL('../../api/ui/format.js', import.meta.url), 'utf8');
const { parseAmount } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

const rand = seeded(0x2545f491);
const digits = (n) => Array.from({ length: n }, () => String(rand(10))).join('');
const CASES = 20_000;

function group(whole, sep) {
  const out = [];
  for (let i = whole.length; i > 0; i -= 3) out.unshift(whole.slice(Math.max(0, i - 3), i));
  return out.join(sep);
}

test('an amount written in any accepted style is read as meant', () => {
  for (let i = 0; i < CASES; i++) {
    const decimals = [6, 9][rand(2)];
    const whole = String(BigInt(digits(1 + rand(10)))); // no leading zeros
    const frac = digits(rand(decimals + 1));
    const expected = BigInt(whole + frac.padEnd(decimals, '0')).toString();
    const styles = [
      [whole, '.'],
      [whole, ','],
      [group(whole, ' '), ','],
      [group(whole, ' '), '.'],
      [group(whole, '\u202f'), ','],
      [group(whole, ','), '.'],
      [group(whole, '.'), ','],
      [group(whole, "'"), '.'],
    ];
    const [w, mark] = styles[rand(styles.length)];
    const text = frac ? `${w}${mark}${frac}` : w;
    const got = parseAmount(text, decimals);
    const grouped = w !== whole;
    // Ungrouped with exactly three decimals, or grouped by the mark alone with none: it reads two ways.
    const twoWays =
      (!grouped && frac.length === 3 && /^[1-9]\d{0,2}$/.test(whole)) ||
      (!frac && grouped && (w.includes(',') || w.includes('.')) && w.split(/[.,]/).length === 2);
    if (twoWays) {
      assert.ok(got.error, `${JSON.stringify(text)} should be refused as ambiguous, got ${JSON.stringify(got)}`);
      continue;
    }
    assert.equal(got.error, undefined, `${JSON.stringify(text)}: ${got.error}`);
    assert.equal(got.units, expected, JSON.stringify(text));
    // What is echoed back reads the same as what is sent.
    assert.equal(parseAmount(got.text, decimals).units, expected, `echo of ${JSON.stringify(text)}`);
  }
});

test('nothing is silently dropped: any other text is refused or read digit for digit', () => {
  const alphabet = '0123456789.,  _\'x-e';
  for (let i = 0; i < CASES; i++) {
    const text = Array.from({ length: rand(12) }, () => alphabet[rand(alphabet.length)]).join('');
    const got = parseAmount(text, 9);
    if (got.error) continue;
    // Accepted: every digit typed is in the amount, in order (separators only grouped or marked them).
    const typed = text.replace(/[^0-9]/g, '').replace(/^0+/, '');
    const read = (got.text.replace('.', '') + '').replace(/^0+/, '');
    assert.equal(read, typed, `${JSON.stringify(text)} read as ${got.text}`);
    assert.ok(!/[a-z-]/.test(text), `${JSON.stringify(text)} has letters yet was accepted`);
  }
});

test('the cases a person types', () => {
  const sol = (t) => parseAmount(t, 9);
  assert.equal(sol('1,5').units, '1500000000');
  assert.equal(sol('1.5').units, '1500000000');
  assert.equal(sol('1 000,5').units, '1000500000000');
  assert.equal(sol('1,000.5').units, '1000500000000');
  assert.equal(sol('1.000,5').units, '1000500000000');
  assert.match(sol('1,500').error, /two ways/);
  assert.equal(sol('0,500').units, '500000000');
  assert.match(sol('1.2.3').error, /three digits/);
  assert.match(sol('0.0000000001').error, /9 decimals/);
  assert.match(sol('').error, /Enter/);
});
