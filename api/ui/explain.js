// Errors in plain words with the next step. Pure (no DOM): the page shows `text`, then `next` when there is
// one, and keeps the raw code and message one click away. Tested by tests/ui/explain.test.mjs.

/** Our programs' errors by name (as the API names them from the IDLs): what happened, in words. */
const PROGRAM = {
  SlippageExceeded: 'The price moved past your slippage tolerance before the trade landed.',
  CurveComplete: 'The curve has graduated: this token now trades on its AMM pool.',
  PoolMigrated: 'The curve has graduated: this token now trades on its AMM pool.',
  InsufficientLiquidity: 'The pool cannot fill that much.',
  ZeroAmount: 'The amount is too small to trade anything.',
};

/**
 * `{ text, next }` for an error from the API (`code`, `message`) or the wallet (`message` only).
 * `ctx`: `{ localnet, side, held, heldText, symbol }` (what the page knows that the error does not say).
 */
export function explain(code, message, ctx = {}) {
  const m = String(message || '');
  const faucet = ctx.localnet ? 'Get SOL from the development faucet on the Wallet page.' : 'Add SOL to this wallet first.';
  if (/no record of a prior credit|insufficient lamports|insufficient funds/i.test(m) || code === 'INSUFFICIENT_BALANCE') {
    const need = m.match(/need (\d+)/);
    const have = m.match(/insufficient lamports (\d+)/);
    const sol = (l) => (Number(l) / 1e9).toLocaleString('en-US', { maximumFractionDigits: 4 });
    const detail = need && have ? ` It holds ${sol(have[1])} SOL and this needs ${sol(need[1])} SOL.` : '';
    return {
      text: `Your wallet does not have enough SOL for this: the amount, plus about 0.003 SOL for fees and new accounts.${detail}`,
      next: faucet,
    };
  }
  // The system or token program's error 1 (insufficient funds) in a simulation: the wallet cannot cover
  // the amount with the fees and rent the transaction also pays.
  if (/custom program error: 0x1\b/i.test(m) && !/0x1[0-9a-f]/i.test(m)) {
    return {
      text: 'Your wallet does not have enough for this: the amount, plus the network fee and the rent of the accounts the transaction opens (shown in the quote).',
      next: ctx.localnet ? 'Trade a smaller amount, or get SOL from the development faucet on the Wallet page.' : 'Trade a smaller amount.',
    };
  }
  if (code === 'NO_ROUTE' && /InsufficientLiquidity|cannot fill/.test(m) && ctx.exactOut && ctx.side === 'sell') {
    return {
      text: `The pool does not hold that much ${ctx.outSymbol || 'of the quote token'} to pay out.`,
      next: 'Ask for less.',
    };
  }
  if (code === 'NO_ROUTE' && /InsufficientLiquidity/.test(m) && ctx.side === 'sell') {
    return {
      text: `The pool cannot take that much ${ctx.symbol || 'of this token'}.`,
      next: ctx.heldText ? `You hold ${ctx.heldText}; sell less.` : 'Sell less.',
    };
  }
  const program = m.match(/(?:launchpad|amm) error (\w+) \(\d+\)/);
  if (program && PROGRAM[program[1]]) {
    const next = program[1] === 'SlippageExceeded' ? 'Quote again, or raise the slippage tolerance.' : null;
    return { text: PROGRAM[program[1]], next };
  }
  if (/custom program error: 0x[0-9a-f]+/i.test(m) && /AccountNotInitialized|0xbc4/i.test(m)) {
    return {
      text: 'An account the transaction needs does not exist yet (for a USDC launch or trade: the wallet has no USDC account).',
      next: ctx.localnet ? 'Get USDC from the development faucet on the Wallet page.' : 'Fund the wallet with the quote token first.',
    };
  }
  if (code === 'SOLANA_BLOCKHASH_EXPIRED') return { text: 'The transaction expired before it landed.', next: 'Try again: a new one is built.' };
  if (code === 'QUOTE_EXPIRED' || code === 'ROUTE_STALE') return { text: 'The quote is out of date.', next: 'Quote again.' };
  if (code === 'RATE_LIMITED') return { text: 'Too many requests from this browser.', next: 'Wait a few seconds.' };
  if (/User rejected|rejected the request/i.test(m)) return { text: 'You declined in your wallet; nothing was sent.', next: null };
  return null;
}
