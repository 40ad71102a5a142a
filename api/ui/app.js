// The launchpad in a browser: a hash router over four pages, the wallet menu, and the server's config.
import './errors.js';
import { get, errorView, captureReferrer, solUsd } from './api.js';
import { el, short, units, put, usd } from './format.js';
import { session, standardWallets, onWalletsChanged } from './wallet.js';
import * as discover from './pages/discover.js';
import * as token from './pages/token.js';
import * as launch from './pages/launch.js';
import * as walletPage from './pages/wallet.js';
import { startAlerts } from './watchlist.js';

captureReferrer();
const main = document.getElementById('main');
const ctx = { config: { localnet: false }, session };
// The page on screen: its abort signal (turned when the user moves on, even while it still loads) and what
// stops its polling and subscriptions.
let current = null;

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const parts = hash.split('/').filter(Boolean);
  if (parts[0] === 'token' && parts[1]) return { page: token, name: 'token', arg: parts[1] };
  if (parts[0] === 'launch') return { page: launch, name: 'launch' };
  if (parts[0] === 'wallet') return { page: walletPage, name: 'wallet', arg: parts[1] };
  return { page: discover, name: 'discover' };
}

async function render() {
  if (current) {
    current.controller.abort();
    try {
      current.cleanup?.();
    } catch (e) {
      console.error(e);
    }
  }
  const me = { controller: new AbortController(), cleanup: null };
  current = me;
  const { page, name, arg } = route();
  document.querySelectorAll('[data-nav]').forEach((a) => {
    if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  // Each page draws into its own view: one still loading when the user moves on writes into a detached
  // node, never over the page that replaced it.
  const view = el('div', { class: 'view', 'data-view': name });
  put(main, view);
  put(view, el('p', { class: 'loading' }, 'Loading…'));
  document.body.dataset.page = name;
  try {
    const stop = (await page.render(view, { ...ctx, signal: me.controller.signal }, arg)) || null;
    if (current === me) me.cleanup = stop;
    // Left while it loaded: whatever it started stops now.
    else stop?.();
  } catch (e) {
    if (current === me) put(view, el('p', { class: 'error', role: 'alert' }, errorView(e)));
  }
}

function walletMenu() {
  const area = document.getElementById('wallet-area');
  const w = session.wallet;
  if (w) {
    put(area, 
      w.dev ? el('span', { class: 'dev-badge', title: 'A keypair kept in this browser, localnet only' }, 'DEV WALLET') : null,
      el('a', { href: '#/wallet', id: 'wallet-address', class: 'address', title: w.address }, short(w.address)),
      el('span', { id: 'wallet-balance', class: 'muted', 'aria-live': 'polite' }),
      el('button', { type: 'button', id: 'wallet-disconnect', class: 'ghost', onclick: () => session.disconnect() }, 'Disconnect'),
    );
    paintBalance();
    return;
  }
  const options = standardWallets().map((sw) =>
    el(
      'button',
      {
        type: 'button',
        class: 'wallet-option',
        onclick: () => session.connectStandard(sw).catch((e) => alertError(e)),
      },
      sw.icon ? el('img', { src: sw.icon, alt: '', width: 16, height: 16 }) : null,
      sw.name,
    ),
  );
  if (ctx.config.localnet) {
    options.push(
      el(
        'button',
        {
          type: 'button',
          id: 'dev-wallet',
          class: 'wallet-option dev',
          title: 'A keypair generated and kept in this browser, funded by the localnet faucet. Localnet only.',
          onclick: () => session.connectDev().catch((e) => alertError(e)),
        },
        'Local development wallet (localnet only)',
      ),
    );
  }
  if (!options.length) {
    options.push(el('span', { class: 'muted' }, 'No Solana wallet found: install Phantom, Solflare or Backpack.'));
  }
  put(area, el('details', { class: 'wallet-menu', id: 'wallet-menu' }, el('summary', { id: 'wallet-connect' }, 'Connect wallet'), el('div', { class: 'menu' }, options)));
}

/** The connected wallet's SOL and USDC in the header, as the chain has them (the wallet view's `balances`). */
async function paintBalance() {
  const w = session.wallet;
  if (!w) return;
  try {
    const [view, price] = await Promise.all([get(`/launchpad/wallets/${w.address}`), solUsd().catch(() => null)]);
    const b = view.balances;
    const box = document.getElementById('wallet-balance');
    if (!box || session.wallet !== w) return;
    // Each balance with its dollars (SOL at the oracle's price, USDC at one dollar), when the API has a price.
    const dollars = (amount, decimals, rate) => (rate ? el('span', { class: 'usd' }, `(${usd(String((Number(amount) / 10 ** decimals) * rate))})`) : null);
    put(
      box,
      ...(b
        ? [`${units(b.sol, 9, 3)} SOL`, dollars(b.sol, 9, price?.solUsd), ...(b.usdc && b.usdc !== '0' ? [` · ${units(b.usdc, 6, 2)} USDC`, dollars(b.usdc, 6, 1)] : [])]
        : []),
    );
    box.title = price ? `Dollar values at SOL $${price.solUsd.toFixed(2)}${price.stale ? ' (an old price)' : ''}` : '';
    box.dataset.sol = b?.sol ?? '';
    box.dataset.usdc = b?.usdc ?? '';
  } catch (e) {
    console.error('balances', e);
  }
}

function alertError(e) {
  const box = el('p', { class: 'error toast', role: 'alert' }, errorView(e));
  document.body.append(box);
  setTimeout(() => box.remove(), 8000);
}

async function start() {
  try {
    ctx.config = await get('/ui/config.json');
  } catch (e) {
    console.error('no /ui/config.json', e);
  }
  session.localnet = !!ctx.config.localnet;
  document.body.classList.toggle('localnet', session.localnet);
  await session.restore().catch((e) => console.error(e));
  session.onChange(() => {
    walletMenu();
    render();
  });
  onWalletsChanged(walletMenu);
  walletMenu();
  // Balances move with trades made here and elsewhere: read again every 10 seconds and on every page.
  setInterval(paintBalance, 10_000);
  window.addEventListener('launchpad:balances', paintBalance);
  window.addEventListener('hashchange', () => {
    paintBalance();
    render();
    main.focus({ preventScroll: true });
  });
  // Watched tokens graduating or moving: toasts on every page.
  startAlerts();
  render();
}

start();
