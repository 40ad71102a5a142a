// The page's plain-word errors (api/ui/explain.js): each raw failure a first-time user met is told in words
// with the next step, and what is not known is left to the raw message (null).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../../api/ui/explain.js', import.meta.url), 'utf8');
const { explain } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

test('an unfunded or short wallet is told so, with the faucet on a localnet', () => {
  const unfunded = explain('SIMULATION_FAILED', 'Attempt to debit an account but found no record of a prior credit.', { localnet: true });
  assert.match(unfunded.text, /not have enough SOL/);
  assert.match(unfunded.next, /faucet/);
  const short = explain('SIMULATION_FAILED', 'Transfer: insufficient lamports 99986360360, need 1000000000000', { localnet: false });
  assert.match(short.text, /holds 99\.9864 SOL and this needs 1,000 SOL/);
  assert.doesNotMatch(short.next, /faucet/);
});

test("program errors by name, selling past the pool, expired quotes, a declined wallet", () => {
  assert.match(explain('SIMULATION_FAILED', 'launchpad error SlippageExceeded (6014): slippage').next, /slippage/);
  const sell = explain('NO_ROUTE', 'the curve cannot fill this amount: Curve(InsufficientLiquidity)', { side: 'sell', heldText: '12 ABC', symbol: 'ABC' });
  assert.match(sell.next, /You hold 12 ABC/);
  assert.match(explain('SOLANA_SIMULATION_FAILED', 'custom program error: 0xbc4', { localnet: true }).next, /USDC/);
  assert.match(explain('QUOTE_EXPIRED', 'old').next, /Quote again/);
  assert.match(explain(null, 'User rejected the request.').text, /declined/);
});

test('what is not known keeps the raw message', () => {
  assert.equal(explain('INVALID_NAME', 'name too long'), null);
  assert.equal(explain(null, ''), null);
});
