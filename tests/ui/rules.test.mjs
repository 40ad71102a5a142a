// The launch form's checks (api/ui/rules.js): what the API refuses is flagged, what it takes is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../../api/ui/rules.js', import.meta.url), 'utf8');
const { rules, imageError, parseFeeShares } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

test('names: 1 to 32 characters (not bytes), no control characters', () => {
  assert.equal(rules.name('Alpha Dog'), null);
  assert.equal(rules.name('é'.repeat(32)), null);
  assert.match(rules.name('x'.repeat(33)), /At most 32/);
  assert.match(rules.name('  '), /name/);
  assert.match(rules.name('a\u0007b'), /control/);
});

test('symbols: 1 to 10 of A to Z and 0 to 9', () => {
  for (const ok of ['A', 'DOG', 'ABC1234567']) assert.equal(rules.symbol(ok), null, ok);
  for (const bad of ['', 'dog', 'BAD SYMBOL', 'ÉTÉ', 'ABCDEFGHIJK', 'A-B']) assert.notEqual(rules.symbol(bad), null, bad);
});

test('links: https on a dotted domain; X and Telegram exactly a profile', () => {
  assert.equal(rules.website(''), null);
  assert.equal(rules.website('https://alpha.example.org/about'), null);
  for (const bad of ['http://alpha.example.org', 'javascript:alert(1)', 'https://10.0.0.1/', 'https://user:pw@example.org', 'https://localhost/']) {
    assert.notEqual(rules.website(bad), null, bad);
  }
  assert.equal(rules.twitter('https://x.com/alphadog'), null);
  assert.equal(rules.twitter('https://twitter.com/alpha_dog/'), null);
  for (const bad of ['https://evil.example/x.com', 'https://x.com/a/b', 'https://x.com/a?b=1', 'https://x.com/']) {
    assert.notEqual(rules.twitter(bad), null, bad);
  }
  assert.equal(rules.telegram('https://t.me/alphadog'), null);
  assert.notEqual(rules.telegram('https://telegram.org/alphadog'), null);
});

test('images: the four types, at most 1 MiB', () => {
  assert.equal(imageError(null), null);
  assert.equal(imageError({ type: 'image/png', size: 1024 * 1024 }), null);
  assert.match(imageError({ type: 'image/png', size: 1024 * 1024 + 1 }), /1 MiB/);
  assert.match(imageError({ type: 'image/svg+xml', size: 10 }), /PNG/);
});

test('descriptions: at most 1000 characters', () => {
  assert.equal(rules.description('x'.repeat(1000)), null);
  assert.notEqual(rules.description('x'.repeat(1001)), null);
});

test('fee shares: one wallet and percent per line, up to 10, distinct, summing to exactly 100%', () => {
  const a = '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE';
  const b = 'So11111111111111111111111111111111111111112';
  const c = '6NpjqXdtL6aWKrifyWxp1e9bYXvqhcYL51T3JTQgNKRu';
  assert.deepEqual(parseFeeShares(''), { shares: null, error: null });
  assert.deepEqual(parseFeeShares(`${a} 50\n${b} 33,33%\n  ${c}: 16.67  `).shares, [
    { wallet: a, bps: 5000 },
    { wallet: b, bps: 3333 },
    { wallet: c, bps: 1667 },
  ]);
  // "1,5" is 1.5%, never 15%.
  assert.equal(parseFeeShares(`${a} 98,5\n${b} 1,5`).shares[1].bps, 150);
  assert.match(parseFeeShares(`${a} 50\n${b} 49`).error, /add up to 99%/);
  assert.match(parseFeeShares(`${a} 50\n${a} 50`).error, /twice/);
  assert.match(parseFeeShares(`${a} 100\n${b} 0`).error, /above 0/);
  assert.match(parseFeeShares(`not-an-address 100`).error, /not a Solana address/);
  assert.match(parseFeeShares(`${a} 33.333`).error, /Line 1/);
  assert.match(parseFeeShares(Array.from({ length: 11 }, () => `${a} 1`).join('\n')).error, /At most 10/);
  assert.equal(rules.feeShares(`${a} 100`), null);
});
