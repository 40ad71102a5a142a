// The REST API, from the same origin. Errors come back in the spec's envelope
// `{ "error": { "message", "code" } }` and are thrown as ApiError with a sentence for people.

import { explain } from './explain.js';
import { txConfirmed, txFailed } from './watchlist.js';
import { el } from './format.js';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** What each error code means, in words (the server's own message follows). */
const WORDS = {
  MISSING_PARAMS: 'Something required is missing.',
  INVALID_PARAMS: 'A value is not valid.',
  INVALID_ADDRESS: 'That is not a valid Solana address.',
  INVALID_JSON: 'The request was malformed.',
  INVALID_NAME: 'The name must be 1 to 32 characters.',
  INVALID_SYMBOL: 'The symbol must be 1 to 10 characters, A to Z and 0 to 9 only.',
  INVALID_DESCRIPTION: 'The description is not valid.',
  INVALID_PRESET: 'Pick one of the presets: fair, shield or distribute.',
  INVALID_QUOTE: 'The quote must be SOL or USDC.',
  INVALID_SUPPLY: 'The supply is fixed at 1,000,000,000 tokens.',
  INVALID_AMOUNT: 'The amount is not valid.',
  INVALID_IMAGE: 'The image must be a PNG, JPEG, GIF or WebP of at most 1 MiB and 4096 x 4096 pixels.',
  INVALID_LINK: 'A link is not valid (website: https URL; X: https://x.com/handle; Telegram: https://t.me/name).',
  SECRET_MATERIAL: 'That looks like a private key or seed phrase: never share it. Nothing was sent on.',
  SAME_TOKEN: 'You cannot swap a token for itself.',
  NO_ROUTE: 'No route can fill this trade.',
  QUOTE_EXPIRED: 'The quote expired; quote again.',
  SIMULATION_FAILED: 'The transaction would fail.',
  INSUFFICIENT_BALANCE: 'Your wallet does not have enough funds.',
  NOT_ENTITLED: 'Only the creator or the partner may claim this.',
  NOTHING_TO_CLAIM: 'There is nothing to claim.',
  NOT_CONFIRMED: 'The transaction is not confirmed yet.',
  ALREADY_RECORDED: 'This launch is already recorded.',
  TX_MISMATCH: 'The transaction does not match the prepared launch.',
  TX_FAILED: 'The transaction failed on chain.',
  NOT_SIGNED: 'The transaction was not signed.',
  BAD_SIGNATURE: 'The signature does not match the transaction.',
  SOLANA_BLOCKHASH_EXPIRED: 'The transaction expired before it landed; try again.',
  SOLANA_SIMULATION_FAILED: 'The network rejected the transaction in simulation.',
  SOLANA_TRANSACTION_FAILED: 'The transaction failed on chain.',
  SOLANA_SUBMIT_FAILED: 'The transaction could not be sent to the network.',
  RATE_LIMITED: 'Too many requests; wait a moment.',
  NOT_FOUND: 'Not found.',
  PAYLOAD_TOO_LARGE: 'That is too large (images: at most 1 MiB).',
  UNAVAILABLE: 'A service the API needs is unavailable; try again shortly.',
  INTERNAL: 'The server failed.',
};

/**
 * An error for people: in plain words with the next step when one is known (`ctx`: what the page knows, see
 * `explain`), the raw code and message one click away.
 */
export function errorView(e, ctx = {}) {
  const code = e instanceof ApiError ? e.code : null;
  // Every API error in words (its code's sentence when nothing more is known), the raw text one click away.
  const plain = explain(code, e?.message, ctx) ?? (code ? { text: WORDS[code] || 'The request failed.', next: null } : null);
  if (!plain) return el('span', {}, errorText(e));
  return el(
    'span',
    { class: 'explained' },
    plain.text,
    plain.next ? el('strong', { class: 'next-step' }, ` ${plain.next}`) : null,
    el('details', { class: 'raw-error' }, el('summary', {}, 'Details'), el('code', {}, code ? `${code}: ${e.message}` : String(e?.message || e))),
  );
}

/** An error as a sentence: the code in words, then the server's message. */
export function errorText(e) {
  if (e instanceof ApiError) {
    const words = WORDS[e.code] || 'The request failed.';
    return `${words} (${e.code}: ${e.message})`;
  }
  return String(e?.message || e);
}

export async function request(method, path, body) {
  const init = {
    method,
    headers: { 'X-Client-Id': 'launchpad-ui', 'X-Client-Name': 'Launchpad web' },
    // Revalidate: a 304 costs no body, and live pages must never show a stale cached answer.
    cache: 'no-cache',
  };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'UNAVAILABLE', `the API cannot be reached (${e.message})`);
  }
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const err = json?.error || {};
    throw new ApiError(response.status, err.code || 'INTERNAL', err.message || response.statusText);
  }
  return json;
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body);

/** Query string from an object, leaving out empty values. */
export function qs(params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

let catalog = null;
/** Decimals of a Solana mint from the token catalog (launched tokens have 6). */
export async function decimals(mint) {
  if (!catalog) {
    catalog = get('/swap/tokens?chainKey=solana')
      .then((r) => new Map((r.tokens || r || []).map((t) => [t.address, t.decimals])))
      .catch(() => new Map());
  }
  const m = await catalog;
  if (m.has(mint)) return m.get(mint);
  if (mint === 'So11111111111111111111111111111111111111112') return 9;
  return 6;
}

/** The symbol of a launch's quote. */
export const quoteSymbol = (quote) => (quote === 'usdc' ? 'USDC' : 'SOL');

/**
 * The SOL/USD price the API values everything with (the listing's `usd`: the oracle the indexer reads),
 * `{ solUsd: number, stale }`, or null before it has one; read at most every 30 seconds.
 */
let usdCache = { at: 0, value: null };
export async function solUsd() {
  if (Date.now() - usdCache.at < 30_000) return usdCache.value;
  const r = await get('/launchpad/launches?limit=1');
  const value = r.usd && Number(r.usd.solUsd) > 0 ? { solUsd: Number(r.usd.solUsd), stale: !!r.usd.stale } : null;
  // No price yet is asked again next time; a price is kept for 30 seconds.
  usdCache = { at: value ? Date.now() : 0, value };
  return value;
}
export const TOKEN_DECIMALS = 6;
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';

/** Signs an unsigned transaction from the API with `wallet` and relays it; returns the signature. */
export async function signAndSubmit(wallet, base64) {
  const signed = await wallet.signTransaction(fromBase64(base64));
  // Once signed, the outcome is toasted on whatever page is open by then (a refusal to sign is not).
  let sent;
  try {
    sent = await post('/swap/submit-solana', { signedTransaction: toBase64(signed) });
    if (!sent.confirmed) throw new ApiError(503, 'NOT_CONFIRMED', `transaction ${sent.signature} did not confirm`);
  } catch (e) {
    txFailed('Your transaction', e);
    throw e;
  }
  txConfirmed('Your transaction', sent.signature);
  return sent.signature;
}

export function fromBase64(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Funds a development wallet from the localnet's faucet (the API answers 404 off a localnet). */
export async function airdrop(address) {
  return post('/ui/airdrop', { address });
}

/** The image of a launch from its metadata JSON (same origin; cached per mint). */
const images = new Map();
export function launchImage(mint, uri) {
  if (!images.has(mint)) {
    let path = null;
    try {
      const u = new URL(uri, location.href);
      if (u.pathname.startsWith('/launchpad/metadata/')) path = u.pathname;
    } catch {
      path = null;
    }
    images.set(
      mint,
      path
        ? fetch(path)
            .then((r) => (r.ok ? r.json() : {}))
            .then((m) => m.image || null)
            .catch(() => null)
        : Promise.resolve(null),
    );
  }
  return images.get(mint);
}

const REFERRER_KEY = 'launchpad.referrer';

/** Keeps the referral this browser arrived with (`?ref=<wallet>` on the page's URL) for the session. */
export function captureReferrer() {
  const ref = new URLSearchParams(location.search).get('ref');
  if (ref && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(ref)) sessionStorage.setItem(REFERRER_KEY, ref);
}

/** The session's referral wallet (named on curve swaps this page builds), or null. */
export function referrer() {
  return sessionStorage.getItem(REFERRER_KEY);
}
