// What a trade costs beyond its amount and when a fresh quote may be signed for what was shown
// (api/ui/costs.js): the rent figures are the chain's, Max leaves room for everything, and a quote that
// moved against the trader by more than the tolerance is never signed. Random cases from a seeded generator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { seeded } from './seeded.mjs';

const source = readFileSync(new URL('../../api/ui/costs.js', import.meta.url), 'utf8');
const { swapCosts, maxSolBuy, stillAsShown, graduates, rentExempt, TOKEN_ACCOUNT_RENT, CLASSIC_ACCOUNT_RENT, MIGRATION_RENT, SIGNATURE_FEE, launchRent, mintBytes, metadataUri } =
  await import(`data:text/javascript,${encodeURIComponent(source)}`);

const rand = seeded(0x3c6ef372);
const big = (n) => BigInt(rand(n));

test("the rent figures are the chain's rent-exempt minimums", () => {
  // `solana rent 170` and `solana rent 165` on a default cluster.
  assert.equal(TOKEN_ACCOUNT_RENT, 2_074_080n);
  assert.equal(CLASSIC_ACCOUNT_RENT, 2_039_280n);
  // docs/deploying.md "What the migrator pays": 11,720,640 lamports.
  assert.equal(MIGRATION_RENT, 11_720_640n);
  assert.equal(rentExempt(0), 890_880n);
});

test('a first buy pays its token account, a graduating buy the migration, everything adds up', () => {
  const first = swapCosts({ side: 'buy', solQuote: true, holdsTokenAccount: false, completes: true, priority: 'none' });
  assert.deepEqual(first.rent.map((r) => r.what), ['token account', 'migration accounts']);
  assert.equal(first.total, SIGNATURE_FEE + TOKEN_ACCOUNT_RENT + MIGRATION_RENT);
  assert.equal(first.returned, CLASSIC_ACCOUNT_RENT);
  const again = swapCosts({ side: 'buy', solQuote: true, holdsTokenAccount: true, completes: false, priority: 'medium' });
  assert.deepEqual(again.rent, []);
  assert.ok(again.priority > 0n);
  const sellUsdc = swapCosts({ side: 'sell', solQuote: false, holdsTokenAccount: true, holdsQuoteAccount: false, completes: false, priority: 'none' });
  assert.deepEqual(sellUsdc.rent.map((r) => r.what), ['USDC account']);
  assert.equal(sellUsdc.returned, 0n);
});

test('Max leaves room for every cost, and offers everything else', () => {
  for (let i = 0; i < 20_000; i++) {
    const costs = swapCosts({
      side: 'buy',
      solQuote: true,
      holdsTokenAccount: rand(2) === 0,
      completes: rand(2) === 0,
      priority: ['none', 'low', 'medium', 'high', 'veryHigh'][rand(5)],
    });
    const lamports = big(200_000_000_000);
    const max = maxSolBuy(lamports, costs);
    assert.ok(max >= 0n);
    if (max > 0n) assert.equal(max + costs.total + costs.returned, lamports);
    else assert.ok(lamports <= costs.total + costs.returned);
  }
});

test('a fresh quote is signed only while it still gives what was shown', () => {
  for (let i = 0; i < 20_000; i++) {
    const shownOut = 1n + big(1_000_000_000);
    const min = shownOut - (shownOut * BigInt(rand(1001))) / 10_000n;
    const shown = { amountOut: String(shownOut), minAmountOut: String(min), refund: '0' };
    const freshOut = big(2_000_000_000);
    const fresh = { amountOut: String(freshOut), minAmountOut: '0', refund: '0' };
    assert.equal(stillAsShown(shown, fresh, false).ok, freshOut >= min, `${freshOut} against a minimum of ${min}`);
    // Exact out: the most it may cost.
    const maxIn = 1n + big(1_000_000_000);
    const freshIn = big(2_000_000_000);
    const r = stillAsShown({ amountIn: '1', maxAmountIn: String(maxIn), refund: '0' }, { amountIn: String(freshIn), refund: '0' }, true);
    assert.equal(r.ok, freshIn <= maxIn);
  }
  // The race: shown 5,570,790.53 with a minimum of 5,515,082.63; the pool now gives 5,224,153.74.
  const moved = stillAsShown(
    { amountOut: '5570790530000', minAmountOut: '5515082630000', refund: '0' },
    { amountOut: '5224153740000', minAmountOut: '5171912200000', refund: '0' },
    false,
  );
  assert.deepEqual(moved, { ok: false, why: 'less' });
});

test('a buy that starts or stops completing the curve asks again', () => {
  const plain = { amountOut: '100', minAmountOut: '90', refund: '0', route: { completes: false } };
  const grad = { amountOut: '100', minAmountOut: '90', refund: '5', route: { completes: true } };
  assert.equal(graduates(grad), true);
  assert.equal(graduates({ refund: '0', route: { completes: true } }), true);
  assert.equal(graduates(plain), false);
  assert.deepEqual(stillAsShown(plain, grad, false), { ok: false, why: 'graduates' });
  assert.deepEqual(stillAsShown(grad, plain, false), { ok: false, why: 'no-longer-graduates' });
  assert.deepEqual(stillAsShown(grad, grad, false), { ok: true });
});

test("a launch's rent: the mint sized by its metadata, the pool, its vaults, the fee shares when shared", () => {
  // Token-2022's sizes: a mint with a metadata pointer is 234 bytes; the metadata adds 4 + 80 bytes and its text.
  assert.equal(mintBytes('', '', ''), 318);
  assert.equal(mintBytes('Frög', 'FROG', 'u'), 318 + 5 + 4 + 1);
  const uri = metadataUri('http://127.0.0.1:8080/');
  assert.equal(uri, `http://127.0.0.1:8080/launchpad/metadata/${'1'.repeat(44)}.json`);
  const plain = launchRent({ name: 'Frog', symbol: 'FROG', uri, feeShares: false });
  assert.deepEqual(plain.rent.map((r) => r.what), ['mint and metadata', 'pool', 'pool vaults']);
  // `solana rent 416`, `solana rent 405` and twice `solana rent 165`.
  assert.equal(plain.total, 3_786_240n + 3_709_680n + 2n * 2_039_280n);
  const shared = launchRent({ name: 'Frog', symbol: 'FROG', uri, feeShares: true });
  assert.equal(shared.total - plain.total, rentExempt(1_099));
  // Every byte of name, symbol or URI costs a byte of rent, nothing else does.
  for (let i = 0; i < 2_000; i++) {
    const name = 'x'.repeat(1 + rand(32));
    const symbol = 'Y'.repeat(1 + rand(10));
    const a = launchRent({ name, symbol, uri, feeShares: false }).total;
    const b = launchRent({ name: `${name}z`, symbol, uri, feeShares: false }).total;
    assert.equal(b - a, 3_480n * 2n);
  }
});
