// A wallet: its holdings valued where each token trades now, the creator fees it can claim (claim buttons
// for the connected wallet), its launches and recent trades. The development wallet gets the localnet faucet.
import { get, post, errorView, signAndSubmit, airdrop, decimals, TOKEN_DECIMALS, NATIVE_MINT, solUsd } from '../api.js';
import { el, units, price, short, age, put, usd, explorerLink } from '../format.js';
import { watch, debounce } from '../feed.js';
import { SIGNATURE_FEE } from '../costs.js';
import { pnlPanel } from '../pnl.js';
import { profilePanel } from './comments.js';

const KINDS = {
  trading: 'Trading fees (creator share of the bonding phase)',
  surplus: 'Surplus (quote left after graduation)',
  'locked-lp': 'Locked LP fees (AMM trading fees of the locked position)',
  share: 'Shared creator fees (your share of the creator fees and the locked LP fees)',
};
/** What a claim of each kind took, in the success message. */
const CLAIMED = {
  trading: 'trading fees',
  surplus: 'surplus',
  'locked-lp': 'locked LP fees',
  share: 'share of the creator fees',
};

/** Each launch's pools (curve and AMM) by mint, read once per page load of the app. */
const pools = new Map();
/** `{ mint, symbol }` by pool address for `tokens` (entries with `mint` and `symbol`). */
async function tokensByPool(tokens) {
  const out = new Map();
  await Promise.all(
    [...new Map(tokens.map((t) => [t.mint, t])).values()].map(async (t) => {
      if (!pools.has(t.mint)) pools.set(t.mint, get(`/launchpad/curve/${t.mint}`).catch(() => null));
      const c = await pools.get(t.mint);
      // Until it migrates a launch may still get its AMM pool: asked again next time.
      if (!c?.ammPool) pools.delete(t.mint);
      for (const p of [c?.pool, c?.ammPool]) if (p) out.set(p, { mint: t.mint, symbol: t.symbol });
    }),
  );
  return out;
}

export async function render(main, ctx, address) {
  const session = ctx.session;
  const me = session.wallet?.address;
  const who = address || me;
  if (!who) {
    put(main, 
      el('h1', {}, 'Wallet'),
      el('p', { class: 'notice' }, 'Connect a wallet (the button in the header) to see your holdings, launches and the fees you can claim.'),
    );
    return null;
  }
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(who)) {
    put(main, el('section', { class: 'panel', id: 'wallet-missing' }, el('h1', {}, 'Not a wallet address'), el('p', { class: 'wrap' }, `“${who}” is not a Solana address: a wallet address is 32 to 44 letters and digits (base58).`), el('p', {}, el('a', { href: '#/' }, 'Back to Discover'))));
    return null;
  }
  const own = who === me;
  const status = el('p', { class: 'ok', id: 'wallet-status', role: 'status' });
  const error = el('p', { class: 'error', id: 'wallet-error', role: 'alert', hidden: true });
  const holdings = el('tbody', { id: 'holdings' });
  const claimable = el('div', { id: 'claimable' });
  const launches = el('ul', { class: 'launch-list', id: 'my-launches' });
  const trades = el('tbody', { id: 'wallet-trades' });
  const referrals = el('div', { id: 'referrals' });
  const pnl = pnlPanel(who);

  const showError = (e) => {
    error.hidden = !e;
    put(error, e ? errorView(e, { localnet: !!ctx.config?.localnet }) : '');
  };

  async function claim(entry, button) {
    button.disabled = true;
    showError(null);
    status.textContent = `Claiming ${entry.kind}…`;
    try {
      const built = await post('/launchpad/claim', { creator: me, pool: entry.pool, kind: entry.kind });
      const signature = await signAndSubmit(session.wallet, built.solanaTransaction);
      put(status, `Claimed ${CLAIMED[entry.kind] || entry.kind}. Transaction ${short(signature)} `, explorerLink(ctx.config?.explorerUrl, 'tx', signature));
      status.dataset.signature = signature;
      load();
    } catch (e) {
      status.textContent = '';
      showError(e);
      button.disabled = false;
    }
  }

  async function load() {
    let w;
    let solPrice = null;
    try {
      [w, solPrice] = await Promise.all([
        get(`/launchpad/wallets/${who}`),
        // The oracle the listing prices SOL launches in dollars with.
        solUsd().then((p) => p?.solUsd ?? null).catch(() => null),
      ]);
    } catch (e) {
      showError(e);
      return;
    }
    /** Dollars of `amount` base units of a quote (`sol`: lamports, else USDC's 6 decimals). */
    const dollars = (amount, quoteMint) => {
      const sol = quoteMint === NATIVE_MINT;
      if (sol && !solPrice) return null;
      return usd(String((Number(amount) / 10 ** (sol ? 9 : 6)) * (sol ? solPrice : 1)));
    };
    const withUsd = (text, amount, quoteMint) => {
      const d = dollars(amount, quoteMint);
      return d ? [text, el('span', { class: 'usd' }, `(${d})`)] : text;
    };
    // Trades name their pool (the curve's or the AMM's): the token is found from the wallet's holdings and
    // launches, whose curves name both pools.
    const byPool = await tokensByPool([...w.holdings, ...w.launches]);
    const rows = await Promise.all(
      w.holdings.map(async (h) => {
        const qd = await decimals(h.quoteMint);
        const q = h.quoteMint === NATIVE_MINT ? 'SOL' : 'USDC';
        return el(
          'tr',
          { 'data-mint': h.mint },
          el('td', {}, el('a', { href: `#/token/${h.mint}` }, `${h.name} ($${h.symbol})`)),
          el('td', { class: 'num' }, units(h.amount, TOKEN_DECIMALS, 2)),
          el('td', { class: 'num' }, `${price(h.price)} ${q}`),
          el('td', { class: 'num' }, withUsd(`${units(h.value, qd)} ${q}`, h.value, h.quoteMint)),
          el('td', {}, h.venue === 'amm' ? 'AMM' : 'curve'),
        );
      }),
    );
    put(holdings, ...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No launched tokens held.'))]));

    const entries = await Promise.all(
      w.claimable.map(async (c) => {
        const qd = await decimals(c.quoteMint);
        const q = c.quoteMint === NATIVE_MINT ? 'SOL' : 'USDC';
        // A claim worth less than the network fee of its transaction costs more than it gives.
        const sol = c.quoteMint === NATIVE_MINT;
        const worthless =
          c.baseAmount === '0' &&
          (sol ? BigInt(c.quoteAmount) <= SIGNATURE_FEE : solPrice && Number(c.quoteAmount) / 1e6 <= (Number(SIGNATURE_FEE) / 1e9) * solPrice);
        const button = own && !worthless
          ? el('button', { type: 'button', class: 'primary small', id: `claim-${c.kind}-${c.pool}`, 'data-kind': c.kind }, 'Claim')
          : own
            ? el('span', { class: 'muted too-small', 'data-kind': c.kind, title: `Less than the ${units(String(SIGNATURE_FEE), 9)} SOL network fee of a claim` }, 'Too small to claim')
            : null;
        if (button?.tagName === 'BUTTON') button.addEventListener('click', () => claim(c, button));
        return el(
          'div',
          { class: 'claim-row', 'data-kind': c.kind, 'data-pool': c.pool },
          el('div', {}, el('strong', {}, KINDS[c.kind] || c.kind), el('div', { class: 'muted' }, el('a', { href: `#/token/${c.mint}` }, `token ${short(c.mint)}`), ` · as ${c.role}`)),
          el('div', { class: 'num' }, withUsd(`${units(c.quoteAmount, qd)} ${q}`, c.quoteAmount, c.quoteMint), c.baseAmount !== '0' ? ` + ${units(c.baseAmount, TOKEN_DECIMALS)} tokens` : ''),
          button,
        );
      }),
    );
    put(claimable, ...(entries.length ? entries : [el('p', { class: 'muted', id: 'nothing-to-claim' }, 'Nothing to claim.')]));

    // Referral earnings: paid at trade time, nothing to claim.
    const r = await get(`/launchpad/referrals/${who}`).catch(() => null);
    const link = `${location.origin}${location.pathname}?ref=${who}#/`;
    const earned = r?.earned?.length
      ? await Promise.all(
          r.earned.map(async (e) => {
            const qd = await decimals(e.quoteMint);
            const q = e.quoteMint === NATIVE_MINT ? 'SOL' : 'USDC';
            return el('p', { class: 'num', 'data-quote': q }, `${units(e.amount, qd)} ${q} from ${e.trades} trade${e.trades === 1 ? '' : 's'}`);
          }),
        )
      : [el('p', { class: 'muted' }, 'No referred trades yet.')];
    put(
      referrals,
      ...earned,
      r ? el('p', { class: 'muted' }, `Paid into the wallet at trade time: ${r.shareBps / 100}% of the partner's half of each curve fee.`) : null,
      own ? el('p', {}, 'Your referral link: ', el('span', { class: 'mono wrap', id: 'referral-link' }, link)) : null,
    );

    put(launches, 
      ...(w.launches.length
        ? w.launches.map((l) => el('li', {}, el('a', { href: `#/token/${l.mint}` }, `${l.name} ($${l.symbol})`), el('span', { class: 'muted' }, ` ${l.preset} · ${age(l.createdAt)} ago`)))
        : [el('li', { class: 'muted' }, 'No launches yet.')]),
    );
    put(trades, 
      ...(w.trades.length
        ? w.trades.map((t) =>
            el(
              'tr',
              {},
              el('td', {}, explorerLink(ctx.config?.explorerUrl, 'tx', t.signature, age(t.time)) ?? age(t.time)),
              el('td', { class: t.side }, t.side),
              el('td', {}, byPool.get(t.pool) ? el('a', { href: `#/token/${byPool.get(t.pool).mint}` }, `$${byPool.get(t.pool).symbol}`) : el('span', { class: 'mono' }, short(t.pool))),
              el('td', { class: 'num' }, units(t.baseAmount, TOKEN_DECIMALS, 2)),
              el('td', {}, t.venue === 'amm' ? 'AMM' : 'curve'),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No trades yet.'))]),
    );
  }

  const airdropButton =
    own && session.wallet?.dev && ctx.config.localnet
      ? el('button', { type: 'button', id: 'airdrop', class: 'ghost' }, 'Airdrop 100 SOL and 2,000 USDC (localnet faucet)')
      : null;
  airdropButton?.addEventListener('click', async () => {
    airdropButton.disabled = true;
    showError(null);
    try {
      const r = await airdrop(me);
      status.textContent = `${units(String(r.lamports), 9)} SOL and ${units(String(r.usdc ?? 0), 6)} USDC airdropped. Transaction ${short(r.signature)}`;
    } catch (e) {
      showError(e);
    } finally {
      airdropButton.disabled = false;
    }
  });

  put(main, 
    el('h1', {}, own ? 'Your wallet' : 'Wallet'),
    el(
      'p',
      { class: 'mono wrap', id: 'wallet-page-address' },
      who,
      ' ',
      explorerLink(ctx.config?.explorerUrl, 'address', who),
      own && session.wallet?.dev ? el('span', { class: 'dev-badge' }, 'DEV WALLET: key kept in this browser, localnet only') : null,
    ),
    airdropButton,
    status,
    error,
    profilePanel(ctx, who, own),
    el('section', { class: 'panel' }, el('h2', {}, 'Claimable fees'), claimable),
    el('section', { class: 'panel' }, el('h2', {}, 'Referral earnings'), referrals),
    el(
      'section',
      { class: 'panel' },
      el('h2', {}, 'Holdings'),
      el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ['Token', 'Amount', 'Price', 'Value', 'Venue'].map((h) => el('th', { scope: 'col' }, h)))), holdings)),
    ),
    pnl.section,
    el('section', { class: 'panel' }, el('h2', {}, 'Launches'), launches),
    el(
      'section',
      { class: 'panel' },
      el('h2', {}, 'Recent trades'),
      el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ['Age', 'Side', 'Token', 'Tokens', 'Venue'].map((h) => el('th', { scope: 'col' }, h)))), trades)),
    ),
  );
  // Profit and loss loads on its own: a failure of the rest of the page does not hide it.
  await Promise.all([load(), pnl.load()]);
  const refresh = debounce(() => {
    load();
    pnl.load();
  }, 300);
  return watch({ kinds: ['trade', 'claim', 'migrate'], wallets: [who] }, { onEvent: refresh, refresh: load });
}
