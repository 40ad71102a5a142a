// What a trade costs beyond its amount, in lamports, and what a quote on screen promises: the one place the
// page knows the network's fee, the rent of the accounts a swap opens, and how a fresh quote compares with
// the one shown. Pure (no DOM, no imports): tested alone (tests/ui/costs.test.mjs).

/** Solana's base fee: 5,000 lamports per signature; the page's swaps have one signer (the wallet). */
export const SIGNATURE_FEE = 5_000n;
/**
 * Rent-exempt minimum of an account of `bytes` bytes at Solana's default rent: (bytes + 128 bytes of
 * overhead) x 3,480 lamports per byte-year x 2 years.
 */
export const rentExempt = (bytes) => (BigInt(bytes) + 128n) * 3_480n * 2n;
/** A holder's account of a launched token (Token-2022, with its immutable-owner extension: 170 bytes). */
export const TOKEN_ACCOUNT_RENT = rentExempt(170);
/** A classic SPL token account (165 bytes): the wallet's USDC account, or its temporary wrapped-SOL one. */
export const CLASSIC_ACCOUNT_RENT = rentExempt(165);
/**
 * What `migrate` opens, paid by the buy that completes a curve (docs/deploying.md "What the migrator pays"):
 * the AMM pool (355 bytes), its vaults (165 and 170 bytes) and two fee positions (177 bytes each).
 */
export const MIGRATION_RENT = rentExempt(355) + rentExempt(165) + rentExempt(170) + 2n * rentExempt(177);
/**
 * The mint `create_launch` makes (Token-2022): the mint (82 bytes, padded to 165, its account-type byte), its
 * metadata pointer (4 + 64 bytes) and the metadata itself (4 bytes of header; update authority and mint, 32
 * bytes each; name, symbol and URI, each 4 bytes of length and its UTF-8 bytes; 4 bytes of an empty
 * additional-metadata list): 318 bytes and the text.
 */
export const mintBytes = (name, symbol, uri) => 318 + utf8Bytes(name) + utf8Bytes(symbol) + utf8Bytes(uri);
const utf8Bytes = (s) => new TextEncoder().encode(String(s ?? '')).length;
/** The launchpad's pool account (8 bytes of discriminator and `Pool`'s 397). */
export const POOL_BYTES = 405;
/** A launch's fee-shares account (8 bytes of discriminator and `FeeShares` with its 16 slots of 66 bytes). */
export const FEE_SHARES_BYTES = 1_099;
/**
 * The rent a creator leaves in the accounts a launch makes, lamports: `[{ what, lamports }]` and `total`.
 * `launch`: `{ name, symbol, uri, feeShares: bool }`. The mint (whose size follows the metadata), the pool,
 * its token vault and its quote vault (165 bytes each), and the fee-shares account when fees are shared. A
 * first buy adds what `swapCosts` lists for it.
 */
export function launchRent(launch) {
  const rent = [
    { what: 'mint and metadata', lamports: rentExempt(mintBytes(launch.name, launch.symbol, launch.uri)) },
    { what: 'pool', lamports: rentExempt(POOL_BYTES) },
    { what: 'pool vaults', lamports: 2n * CLASSIC_ACCOUNT_RENT },
  ];
  if (launch.feeShares) rent.push({ what: 'fee shares', lamports: rentExempt(FEE_SHARES_BYTES) });
  return { rent, total: rent.reduce((t, r) => t + r.lamports, 0n) };
}
/**
 * The metadata URI a launch prepared by the API at `base` gets: `{base}/launchpad/metadata/{mint}.json`, the
 * mint a base58 address of 32 to 44 characters; before prepare the mint is unknown, so the longest.
 */
export const metadataUri = (base, mint = '1'.repeat(44)) => `${String(base).replace(/\/+$/, '')}/launchpad/metadata/${mint}.json`;

/**
 * The priority fee a swap may offer at each `priorityLevel` of `/swap/build`, at most (lamports). The build
 * prices compute units at that percentile of recent fees; the page keeps this much aside for it and shows
 * the exact figure of the built transaction before the wallet signs.
 */
export const PRIORITY_LEVELS = [
  { level: 'none', label: 'None', allowance: 0n },
  { level: 'low', label: 'Low', allowance: 100_000n },
  { level: 'medium', label: 'Medium', allowance: 500_000n },
  { level: 'high', label: 'High', allowance: 2_000_000n },
  { level: 'veryHigh', label: 'Very high', allowance: 5_000_000n },
];
export const priorityAllowance = (level) => PRIORITY_LEVELS.find((p) => p.level === level)?.allowance ?? 0n;

/**
 * The SOL side of a swap, lamports: `{ network, priority, rent: [{ what, lamports }], returned, total }`.
 * `rent` is what the transaction leaves in new accounts (kept by them), `returned` what it lends to a
 * temporary account and gets back in the same transaction (wrapped SOL), `total` network + priority + rent.
 * `trade`: `{ side: 'buy'|'sell', solQuote, holdsTokenAccount, holdsQuoteAccount, completes, priority }`.
 */
export function swapCosts(trade) {
  const rent = [];
  if (trade.side === 'buy' && !trade.holdsTokenAccount) rent.push({ what: 'token account', lamports: TOKEN_ACCOUNT_RENT });
  if (!trade.solQuote && !trade.holdsQuoteAccount) rent.push({ what: 'USDC account', lamports: CLASSIC_ACCOUNT_RENT });
  if (trade.side === 'buy' && trade.completes) rent.push({ what: 'migration accounts', lamports: MIGRATION_RENT });
  const network = SIGNATURE_FEE;
  const priority = priorityAllowance(trade.priority);
  const rentTotal = rent.reduce((t, r) => t + r.lamports, 0n);
  // A SOL launch wraps SOL into a temporary account (buys) or receives into one (sells), closed again.
  const returned = trade.solQuote ? CLASSIC_ACCOUNT_RENT : 0n;
  return { network, priority, rent, rentTotal, returned, total: network + priority + rentTotal };
}

/**
 * The most a SOL launch's buy can offer from `lamports` in the wallet, leaving room for what the transaction
 * also needs (`costs` from `swapCosts`, the temporary wrapped-SOL account included); 0n when nothing is left.
 */
export function maxSolBuy(lamports, costs) {
  const left = BigInt(lamports) - costs.total - costs.returned;
  return left > 0n ? left : 0n;
}

/**
 * Whether a fresh quote may be signed for what the page showed, or needs a new look: `{ ok }`, or
 * `{ ok: false, why }`. Exact in: the fresh quote must still deliver the minimum on screen (the transaction
 * carries that minimum). Exact out: it must still cost at most the maximum on screen. A buy that now
 * completes the curve when the shown one did not (or the other way) pays other rent and asks again.
 */
export function stillAsShown(shown, fresh, exactOut) {
  const completes = (b) => graduates(b);
  if (completes(shown) !== completes(fresh)) return { ok: false, why: completes(fresh) ? 'graduates' : 'no-longer-graduates' };
  if (exactOut) {
    if (BigInt(fresh.amountIn) > BigInt(shown.maxAmountIn ?? shown.amountIn)) return { ok: false, why: 'dearer' };
    return { ok: true };
  }
  if (BigInt(fresh.amountOut) < BigInt(shown.minAmountOut)) return { ok: false, why: 'less' };
  return { ok: true };
}

/** Whether a quote's route completes the curve (its build appends `migrate`): a refund, or the route says so. */
export function graduates(best) {
  return !!best && (BigInt(best.refund || '0') > 0n || best.route?.completes === true);
}
