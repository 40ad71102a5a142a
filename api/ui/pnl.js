// Profit and loss from the index (GET /launchpad/wallets/{address}/pnl): the wallet page's positions table
// and the token page's "your position". Figures are the API's (exact, rounded toward zero once); the page
// only formats them.
import { get, TOKEN_DECIMALS, NATIVE_MINT } from './api.js';
import { el, units, price, put, age } from './format.js';

const quoteName = (p) => (p.quoteMint === NATIVE_MINT ? 'SOL' : 'USDC');

/** A signed dollar figure with its sign in front (`-$4.10`), or null. */
function dollars(v) {
  if (v === null || v === undefined) return null;
  const neg = v.startsWith('-');
  const [i, f = ''] = (neg ? v.slice(1) : v).split('.');
  return `${neg ? '-' : ''}$${Number(i).toLocaleString('en-US')}.${(f + '00').slice(0, 2)}`;
}

/** A quote amount in base units with its USD figure beside it; signed amounts colored by sign. */
function figure(p, amount, amountUsd, { signed = false, id } = {}) {
  const q = quoteName(p);
  const n = BigInt(amount);
  const cls = signed ? (n > 0n ? 'num gain' : n < 0n ? 'num loss' : 'num') : 'num';
  const text = `${signed && n > 0n ? '+' : ''}${units(amount, p.quoteDecimals, 6)} ${q}`;
  const d = dollars(amountUsd);
  return el('td', { class: cls, 'data-field': id, 'data-value': amount }, text, d ? el('span', { class: 'usd' }, ` (${d})`) : null);
}

/** The wallet page's positions table: a section and its `load()`. */
export function pnlPanel(who) {
  const body = el('tbody', { id: 'pnl' });
  const note = el('p', { class: 'muted small' }, 'Average cost, fees included; realized when sold, unrealized at the price now. Tokens received by transfer count at zero cost; tokens sent away keep their cost here.');
  const section = el(
    'section',
    { class: 'panel', id: 'pnl-panel', 'aria-labelledby': 'pnl-h' },
    el('h2', { id: 'pnl-h' }, 'Profit and loss'),
    el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ['Token', 'Held', 'Avg entry', 'Cost basis', 'Value', 'Realized', 'Unrealized', 'Total'].map((h) => el('th', { scope: 'col' }, h)))), body)),
    note,
  );
  async function load() {
    let r;
    try {
      r = await get(`/launchpad/wallets/${who}/pnl?limit=100`);
    } catch {
      put(body, el('tr', {}, el('td', { colspan: 8, class: 'muted' }, 'Profit and loss is unavailable right now.')));
      return;
    }
    const rows = r.positions.map((p) =>
      el(
        'tr',
        { 'data-mint': p.mint },
        el('td', {}, el('a', { href: `#/token/${p.mint}` }, `$${p.symbol}`), p.firstBuyAt ? el('div', { class: 'muted small' }, `first buy ${age(p.firstBuyAt)} ago`) : null),
        el('td', { class: 'num', 'data-field': 'tokens', 'data-value': p.tokens }, units(p.tokens, TOKEN_DECIMALS, 2)),
        el('td', { class: 'num', 'data-field': 'averageEntry', 'data-value': p.averageEntry ?? '' }, p.averageEntry ? `${price(p.averageEntry)} ${quoteName(p)}` : '–'),
        figure(p, p.costBasis, p.costBasisUsd, { id: 'costBasis' }),
        figure(p, p.value, p.valueUsd, { id: 'value' }),
        figure(p, p.realized, p.realizedUsd, { signed: true, id: 'realized' }),
        figure(p, p.unrealized, p.unrealizedUsd, { signed: true, id: 'unrealized' }),
        figure(p, p.total, p.totalUsd, { signed: true, id: 'total' }),
      ),
    );
    put(body, ...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 8, class: 'muted' }, 'No trades of launched tokens yet.'))]));
  }
  return { section, load };
}

/** The token page's "your position" for the connected wallet: a section and its `load(wallet)`. */
export function positionPanel(mint) {
  const box = el('div', { id: 'position' });
  const section = el('section', { class: 'panel', id: 'position-panel', 'aria-labelledby': 'position-h', hidden: true }, el('h2', { id: 'position-h' }, 'Your position'), box);
  async function load(wallet) {
    if (!wallet) {
      section.hidden = true;
      return;
    }
    let p;
    try {
      p = (await get(`/launchpad/wallets/${wallet}/pnl/${mint}`)).position;
    } catch {
      section.hidden = true;
      return;
    }
    section.hidden = p.buys === 0 && p.sells === 0 && p.tokens === '0';
    const row = (label, cell) => el('tr', {}, el('th', { scope: 'row' }, label), cell);
    put(
      box,
      el(
        'table',
        { class: 'kv' },
        el(
          'tbody',
          {},
          row('Held', el('td', { class: 'num', 'data-field': 'tokens', 'data-value': p.tokens }, `${units(p.tokens, TOKEN_DECIMALS, 2)} $${p.symbol}`)),
          row('Average entry', el('td', { class: 'num', 'data-field': 'averageEntry', 'data-value': p.averageEntry ?? '' }, p.averageEntry ? `${price(p.averageEntry)} ${quoteName(p)}` : '–', p.averageEntryUsd ? el('span', { class: 'usd' }, ` ($${price(p.averageEntryUsd)})`) : null)),
          row('Cost basis', figure(p, p.costBasis, p.costBasisUsd, { id: 'costBasis' })),
          row('Value now', figure(p, p.value, p.valueUsd, { id: 'value' })),
          row('Realized', figure(p, p.realized, p.realizedUsd, { signed: true, id: 'realized' })),
          row('Unrealized', figure(p, p.unrealized, p.unrealizedUsd, { signed: true, id: 'unrealized' })),
          row('Total PnL', figure(p, p.total, p.totalUsd, { signed: true, id: 'total' })),
        ),
      ),
    );
  }
  return { section, load };
}
