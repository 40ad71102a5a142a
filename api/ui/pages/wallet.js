// A wallet: its holdings valued where each token trades now, the creator fees it can claim (claim buttons
// for the connected wallet), its launches and recent trades. The development wallet gets the localnet faucet.
import { get, post, errorView, signAndSubmit, airdrop, decimals, TOKEN_DECIMALS, NATIVE_MINT } from '../api.js';
import { el, units, price, short, age, put } from '../format.js';
import { watch, debounce } from '../feed.js';

const KINDS = {
  trading: 'Trading fees (creator share of the bonding phase)',
  surplus: 'Surplus (quote left after graduation)',
  'locked-lp': 'Locked LP fees (AMM trading fees of the locked position)',
  share: 'Shared creator fees (your share of the creator fees and the locked LP fees)',
};

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
  const own = who === me;
  const status = el('p', { class: 'ok', id: 'wallet-status', role: 'status' });
  const error = el('p', { class: 'error', id: 'wallet-error', role: 'alert', hidden: true });
  const holdings = el('tbody', { id: 'holdings' });
  const claimable = el('div', { id: 'claimable' });
  const launches = el('ul', { class: 'launch-list', id: 'my-launches' });
  const trades = el('tbody', { id: 'wallet-trades' });
  const referrals = el('div', { id: 'referrals' });

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
      status.textContent = `Claimed ${entry.kind} fees. Transaction ${short(signature)}`;
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
    try {
      w = await get(`/launchpad/wallets/${who}`);
    } catch (e) {
      showError(e);
      return;
    }
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
          el('td', { class: 'num' }, `${units(h.value, qd)} ${q}`),
          el('td', {}, h.venue === 'amm' ? 'AMM' : 'curve'),
        );
      }),
    );
    put(holdings, ...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No launched tokens held.'))]));

    const entries = await Promise.all(
      w.claimable.map(async (c) => {
        const qd = await decimals(c.quoteMint);
        const q = c.quoteMint === NATIVE_MINT ? 'SOL' : 'USDC';
        const button = own
          ? el('button', { type: 'button', class: 'primary small', id: `claim-${c.kind}-${c.pool}`, 'data-kind': c.kind }, 'Claim')
          : null;
        button?.addEventListener('click', () => claim(c, button));
        return el(
          'div',
          { class: 'claim-row', 'data-kind': c.kind, 'data-pool': c.pool },
          el('div', {}, el('strong', {}, KINDS[c.kind] || c.kind), el('div', { class: 'muted' }, el('a', { href: `#/token/${c.mint}` }, `token ${short(c.mint)}`), ` · as ${c.role}`)),
          el('div', { class: 'num' }, `${units(c.quoteAmount, qd)} ${q}`, c.baseAmount !== '0' ? ` + ${units(c.baseAmount, TOKEN_DECIMALS)} tokens` : ''),
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
              el('td', {}, age(t.time)),
              el('td', { class: t.side }, t.side),
              el('td', { class: 'mono' }, short(t.pool)),
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
      own && session.wallet?.dev ? el('span', { class: 'dev-badge' }, 'DEV WALLET: key kept in this browser, localnet only') : null,
    ),
    airdropButton,
    status,
    error,
    el('section', { class: 'panel' }, el('h2', {}, 'Claimable fees'), claimable),
    el('section', { class: 'panel' }, el('h2', {}, 'Referral earnings'), referrals),
    el(
      'section',
      { class: 'panel' },
      el('h2', {}, 'Holdings'),
      el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ['Token', 'Amount', 'Price', 'Value', 'Venue'].map((h) => el('th', { scope: 'col' }, h)))), holdings)),
    ),
    el('section', { class: 'panel' }, el('h2', {}, 'Launches'), launches),
    el(
      'section',
      { class: 'panel' },
      el('h2', {}, 'Recent trades'),
      el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ['Age', 'Side', 'Pool', 'Tokens', 'Venue'].map((h) => el('th', { scope: 'col' }, h)))), trades)),
    ),
  );
  await load();
  const refresh = debounce(load, 300);
  return watch({ kinds: ['trade', 'claim', 'migrate'], wallets: [who] }, { onEvent: refresh, refresh: load });
}
