// The watchlist and in-page notifications. The watchlist lives in this browser's localStorage (no account):
// a star on each card and on the token page adds or removes a token; discovery can show only the watched
// ones. Notifications are toasts in one `aria-live` region: one's own transaction confirming or failing, and,
// from the live feed, a watched token graduating or moving by the chosen percentage (stored locally too)
// since the last notice about it.
import { watch } from './feed.js';

const KEY = 'launchpad.watchlist';
const PCT_KEY = 'launchpad.alertPercent';
/** Most tokens watched (the discovery filter reads each one). */
export const MAX_WATCHED = 50;
export const DEFAULT_PERCENT = 10;

function read() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(v) ? v.filter((m) => typeof m === 'string' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(m)).slice(0, MAX_WATCHED) : [];
  } catch {
    return [];
  }
}

const listeners = new Set();

/** The watched mints, oldest first. */
export const watched = () => read();
export const isWatched = (mint) => read().includes(mint);

/** Stars or unstars `mint`; returns whether it is watched now. */
export function toggle(mint) {
  let list = read();
  const on = !list.includes(mint);
  list = on ? [...list, mint].slice(-MAX_WATCHED) : list.filter((m) => m !== mint);
  localStorage.setItem(KEY, JSON.stringify(list));
  for (const f of listeners) f(list);
  return on;
}

/** `f(list)` on every change of the watchlist; returns the unsubscribe. */
export function onChange(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The price move (percent, 1 to 1000) that notifies; kept locally. */
export function alertPercent() {
  const v = Number(localStorage.getItem(PCT_KEY));
  return Number.isFinite(v) && v >= 1 && v <= 1000 ? v : DEFAULT_PERCENT;
}
export function setAlertPercent(v) {
  const n = Math.round(Number(v));
  if (!Number.isFinite(n) || n < 1 || n > 1000) return false;
  localStorage.setItem(PCT_KEY, String(n));
  return true;
}

function paintStar(b) {
  const on = isWatched(b.dataset.star);
  const label = b.dataset.label;
  b.textContent = on ? '★' : '☆';
  b.setAttribute('aria-pressed', String(on));
  b.setAttribute('aria-label', on ? `Remove ${label} from the watchlist` : `Add ${label} to the watchlist`);
  b.title = on ? 'Watching: click to remove from the watchlist' : 'Add to the watchlist';
}

// Every star on the page follows the watchlist (one listener, not one per star: cards re-render often).
onChange(() => document.querySelectorAll('button[data-star]').forEach(paintStar));

/** A star button for `mint` (`label`: the token's symbol, for screen readers), made with `el`. */
export function star(mint, label, el) {
  const b = el('button', { type: 'button', class: 'star', 'data-star': mint, 'data-label': label || 'this token' });
  paintStar(b);
  b.addEventListener('click', (e) => {
    // Stars sit inside cards, which are links.
    e.preventDefault();
    e.stopPropagation();
    toggle(mint);
  });
  return b;
}

function region() {
  let r = document.getElementById('toasts');
  if (!r) {
    r = document.createElement('div');
    r.id = 'toasts';
    r.className = 'toasts';
    r.setAttribute('aria-live', 'polite');
    r.setAttribute('role', 'status');
    document.body.append(r);
  }
  return r;
}

/** Shows `text` for `ms` (kind `ok`, `error` or `info`); a close button removes it sooner. */
export function toast(text, kind = 'info', ms = 8000) {
  const t = document.createElement('div');
  t.className = `toast-item ${kind}`;
  t.dataset.kind = kind;
  const span = document.createElement('span');
  span.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'toast-close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  close.addEventListener('click', () => t.remove());
  t.append(span, close);
  region().append(t);
  setTimeout(() => t.remove(), ms);
  return t;
}

/** Toasts for one's own transaction: `what` (e.g. "Buy") confirmed or failed. */
export function txConfirmed(what, signature) {
  toast(`${what} confirmed (${signature.slice(0, 8)}…)`, 'ok');
}
export function txFailed(what, error) {
  toast(`${what} failed: ${error?.message || error}`, 'error', 12000);
}

/** Parses a decimal price string to a number for comparing moves (display only, never for amounts). */
const priceOf = (s) => Number(s);

/**
 * Follows the watched tokens on the live feed for the whole page: a toast when one graduates (the curve
 * completes) or migrates, and when its price moved by `alertPercent()` from the reference (the first price
 * seen, then the price of the last notice). Re-subscribes when the watchlist changes.
 */
export function startAlerts() {
  let stop = null;
  const reference = new Map();
  const subscribe = (list) => {
    stop?.();
    stop = null;
    if (!list.length) return;
    stop = watch(
      { kinds: ['trade', 'complete', 'migrate'], mints: list },
      {
        onEvent: (e) => {
          const name = `${e.mint.slice(0, 4)}…`;
          if (e.kind === 'complete') toast(`Watched token ${name} graduated: its curve is complete`, 'info');
          else if (e.kind === 'migrate') toast(`Watched token ${name} moved to the AMM`, 'info');
          else if (e.kind === 'trade' && e.priceAfter) {
            const p = priceOf(e.priceAfter);
            const ref = reference.get(e.mint);
            if (ref === undefined || ref === 0) {
              reference.set(e.mint, p);
              return;
            }
            const move = ((p - ref) / ref) * 100;
            if (Math.abs(move) >= alertPercent()) {
              reference.set(e.mint, p);
              toast(`Watched token ${name} ${move > 0 ? 'up' : 'down'} ${Math.abs(move).toFixed(1)}%`, move > 0 ? 'ok' : 'error');
            }
          }
        },
        refresh: () => {},
      },
    );
  };
  subscribe(read());
  onChange(subscribe);
  // Another tab changed the watchlist.
  window.addEventListener('storage', (e) => e.key === KEY && subscribe(read()));
}
