// Discovery: the listing with sort, filters and search; new launches and moving progress bars arrive over
// the live feed (or the 2-second poll without it).
import { get, qs, errorText, quoteSymbol, launchImage } from '../api.js';
import { el, price, compact, usd, age, units, bps, put } from '../format.js';
import { watch, debounce } from '../feed.js';
import { star, watched, onChange as onWatchlistChange, alertPercent, setAlertPercent } from '../watchlist.js';

const PAGE = 24;
/** What `prefix` takes: the start of a mint or a symbol, ASCII letters and digits. */
const PREFIX = /^[0-9A-Za-z]{1,44}$/;

export function tokenAvatar(entry, image) {
  const box = el('div', { class: 'avatar', 'aria-hidden': 'true' }, (entry.symbol || '?').slice(0, 3));
  if (image) {
    const img = el('img', { src: image, alt: '', loading: 'lazy' });
    img.addEventListener('error', () => img.remove());
    put(box, img);
  }
  return box;
}

export function progressBar(bpsValue, label) {
  const bar = el('div', {
    class: 'progress',
    role: 'progressbar',
    'aria-valuemin': 0,
    'aria-valuemax': 100,
    'aria-valuenow': (bpsValue / 100).toFixed(2),
    'aria-label': label || 'progress to graduation',
  });
  const fill = el('div', { class: 'fill' });
  fill.style.width = `${Math.min(100, bpsValue / 100)}%`;
  bar.append(fill);
  return bar;
}

/** A shield launch's decaying fee, by mint: `{ currentFeeBps, finalFeeBps, feeChangesAt }` from its curve
 * (the chain's clock), read once per step. */
const shields = new Map();
/** The longest a shield fee decays: ten steps of a minute (the spec's 50% to 1%). */
const SHIELD_SECS = 600;

/** Whether `entry` is a shield launch whose fee may still be stepping down. */
const decaying = (entry) => entry.preset === 'shield' && entry.status === 'bonding' && Date.now() / 1000 - entry.createdAt < SHIELD_SECS + 60;

/** The card's line for a decaying shield fee: the fee now and the seconds to its next step. */
function shieldLine(mint) {
  const f = shields.get(mint);
  if (!f || f.feeChangesAt == null) return null;
  const left = Math.max(0, Math.round(f.feeChangesAt - Date.now() / 1000));
  return `Shield fee ${bps(f.currentFeeBps)}, next step in ${left} s`;
}

/** Reads the shield fee of `mint` (unless known and not yet stepped) and paints it on its card. */
async function loadShield(mint, grid) {
  const known = shields.get(mint);
  if (known && (known.feeChangesAt == null || known.feeChangesAt > Date.now() / 1000)) return;
  if (known?.loading) return;
  shields.set(mint, { ...known, loading: true });
  try {
    const c = await get(`/launchpad/curve/${mint}`);
    shields.set(mint, { currentFeeBps: c.currentFeeBps, finalFeeBps: c.finalFeeBps, feeChangesAt: c.feeChangesAt ?? null });
  } catch (e) {
    shields.delete(mint);
    console.error('shield fee', e);
  }
  paintShields(grid);
}

/** Every card's shield countdown, as of now. */
function paintShields(grid) {
  for (const box of grid.querySelectorAll('.shield-fee')) {
    const line = shieldLine(box.dataset.mint);
    box.hidden = !line;
    box.textContent = line ?? '';
  }
}

function card(entry) {
  const q = quoteSymbol(entry.quote);
  // The listing names the image of a launch built elsewhere (read from its URI by the metadata worker);
  // a launch prepared here has it in the metadata this service serves.
  const avatar = tokenAvatar(entry, entry.image || null);
  if (!entry.image) {
    launchImage(entry.mint, entry.uri).then((image) => image && avatar.replaceWith(tokenAvatar(entry, image)));
  }
  return el(
    'a',
    { class: 'card', href: `#/token/${entry.mint}`, 'data-mint': entry.mint, 'data-progress': entry.progressBps },
    el(
      'div',
      { class: 'card-head' },
      avatar,
      el(
        'div',
        {},
        el('div', { class: 'name' }, entry.name),
        el('div', { class: 'muted' }, `$${entry.symbol} · ${entry.preset} · ${q}`),
      ),
      el('span', { class: `badge ${entry.status}` }, entry.status === 'migrated' ? 'AMM' : entry.status),
      star(entry.mint, `$${entry.symbol}`, el),
    ),
    el(
      'dl',
      { class: 'stats' },
      // Market cap in dollars first (comparable across SOL and USDC launches), the quote figure beside it.
      el(
        'div',
        { class: 'mcap' },
        el('dt', {}, 'Market cap'),
        el(
          'dd',
          { class: 'mcap-usd', 'data-usd': entry.marketCapUsd ?? '' },
          usd(entry.marketCapUsd) ?? `${compact(entry.marketCap)} ${q}`,
          // A SOL launch's cap in SOL under its dollars (a USDC launch's would repeat them).
          entry.marketCapUsd != null && q !== 'USDC' ? el('span', { class: 'muted sub' }, `${compact(entry.marketCap)} ${q}`) : null,
        ),
      ),
      el('div', {}, el('dt', {}, 'Price'), el('dd', {}, usd(entry.priceUsd) ?? `${price(entry.price)} ${q}`)),
      el('div', {}, el('dt', {}, '24h vol'), el('dd', {}, `${units(entry.volume24hQuote, q === 'SOL' ? 9 : 6, 2)} ${q}`, entry.volume24hUsd != null && q !== 'USDC' ? el('span', { class: 'muted sub' }, usd(entry.volume24hUsd)) : null)),
      el('div', {}, el('dt', {}, 'Holders'), el('dd', {}, String(entry.holders))),
      el('div', {}, el('dt', {}, 'Age'), el('dd', {}, age(entry.createdAt))),
    ),
    progressBar(entry.progressBps),
    el('div', { class: 'progress-label muted' }, `${bps(entry.progressBps)} of the way to graduation`),
    decaying(entry) ? el('div', { class: 'shield-fee warning small', 'data-mint': entry.mint, hidden: !shieldLine(entry.mint) }, shieldLine(entry.mint) ?? '') : null,
  );
}

/** The listing's state kept in the address (`#/?sort=marketCap&quote=usdc`): a reload or a shared link
 * shows the same listing. */
const URL_KEYS = ['sort', 'order', 'status', 'preset', 'quote', 'q', 'list'];
const DEFAULTS = { sort: 'new', order: 'desc', status: '', preset: '', quote: '', q: '', list: '' };
const ALLOWED = {
  sort: ['new', 'marketCap', 'volume24h', 'lastTrade', 'progress'],
  order: ['asc', 'desc'],
  status: ['bonding', 'complete', 'migrated'],
  preset: ['fair', 'shield', 'distribute'],
  quote: ['sol', 'usdc'],
  list: ['watchlist'],
};

function stateFromUrl() {
  const query = location.hash.split('?')[1] || '';
  const params = new URLSearchParams(query);
  const state = { ...DEFAULTS, limit: PAGE };
  for (const k of URL_KEYS) {
    const v = params.get(k)?.trim();
    // Anything the listing would refuse is dropped: a hand-edited link still opens a listing.
    if (v && (!ALLOWED[k] || ALLOWED[k].includes(v))) state[k] = v.slice(0, 64);
  }
  return state;
}

function stateToUrl(state) {
  const params = new URLSearchParams();
  for (const k of URL_KEYS) if (state[k] && state[k] !== DEFAULTS[k]) params.set(k, state[k]);
  const query = params.toString();
  // Replaced, not pushed: the back button leaves the page rather than stepping through every filter, and no
  // `hashchange` re-renders the page.
  history.replaceState(null, '', `#/${query ? `?${query}` : ''}`);
}

/** Reloads the listing when the watchlist changes while it is filtered by it (the rendered page's). */
let reloadWatched = null;
onWatchlistChange(() => reloadWatched?.());

/** The move of a watched token's price that notifies (percent, kept in this browser). */
function alertInput() {
  const input = el('input', { type: 'number', name: 'alertPercent', min: 1, max: 1000, step: 1, 'aria-label': 'Notify when a watched token moves by this percent' });
  input.value = String(alertPercent());
  input.addEventListener('change', () => {
    if (!setAlertPercent(input.value)) input.value = String(alertPercent());
  });
  return el('label', { title: 'A notification when a watched token moves by this much (from the live feed)' }, 'Alert at ±%', input);
}

/** One line of the live ticker: a launch or a trade, in words. */
function tickerLine(event, known) {
  const who = (w) => (w ? `${w.slice(0, 4)}…` : 'someone');
  if (event.kind === 'launch') {
    known.set(event.mint, { symbol: event.symbol, quote: event.quote });
    return el('a', { href: `#/token/${event.mint}`, class: 'tick launch' }, `New: ${event.name} ($${event.symbol})`);
  }
  const k = known.get(event.mint);
  const symbol = k ? `$${k.symbol}` : `${event.mint.slice(0, 4)}…`;
  const q = quoteSymbol(k?.quote || 'sol');
  const quoteAmount = units(event.quoteAmount, q === 'SOL' ? 9 : 6, 2);
  return el(
    'a',
    { href: `#/token/${event.mint}`, class: `tick ${event.side}` },
    `${who(event.wallet)} ${event.side === 'buy' ? 'bought' : 'sold'} ${quoteAmount} ${q} of ${symbol}`,
  );
}

export async function render(main) {
  const state = stateFromUrl();
  const grid = el('div', { class: 'grid', id: 'launches', 'aria-live': 'polite' });
  const info = el('p', { class: 'muted', id: 'listing-info' }, 'Loading launches…');
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
  const solUsd = el('p', { class: 'muted small', id: 'sol-usd', hidden: true });
  const more = el('button', { type: 'button', class: 'ghost', hidden: true }, 'Show more');

  const select = (name, label, options) =>
    el(
      'label',
      {},
      label,
      el(
        'select',
        {
          name,
          onchange: (e) => {
            state[name] = e.target.value;
            state.limit = PAGE;
            load();
          },
        },
        options.map(([v, t]) => el('option', { value: v, selected: state[name] === v }, t)),
      ),
    );
  const search = el('input', {
    type: 'search',
    name: 'q',
    placeholder: 'Search name, symbol or the start of a mint',
    'aria-label': 'Search launches',
    maxlength: 64,
  });
  search.value = state.q;
  search.addEventListener(
    'input',
    debounce(() => {
      state.q = search.value.trim();
      state.limit = PAGE;
      load();
    }, 300),
  );

  // King of the hill: the bonding launch closest to graduation.
  const king = el('section', { class: 'king', id: 'king-of-the-hill', 'aria-label': 'King of the hill', hidden: true });
  // Launches and trades as they happen (the feed's events, newest first).
  const ticker = el('div', { class: 'ticker', id: 'ticker', 'aria-label': 'Live launches and trades' });
  const known = new Map();
  const TICKS = 8;

  async function loadKing() {
    const r = await get(`/launchpad/launches${qs({ status: 'bonding', sort: 'progress', limit: 1 })}`);
    const top = r.launches[0];
    king.hidden = !top;
    if (!top) return;
    const q = quoteSymbol(top.quote);
    put(king,
      el('span', { class: 'king-title' }, 'King of the hill'),
      el('a', { href: `#/token/${top.mint}`, 'data-mint': top.mint }, `${top.name} ($${top.symbol})`),
      el('span', {}, `${bps(top.progressBps)} of the way to graduation`),
      el('span', { class: 'muted' }, `market cap ${usd(top.marketCapUsd) ?? `${compact(top.marketCap)} ${q}`}`),
    );
  }

  let seq = 0;
  // The watchlist (this browser's): each watched mint read with the same filters, in the order starred.
  async function loadWatched(mine) {
    const filters = { sort: state.sort, order: state.order, status: state.status, preset: state.preset, quote: state.quote, limit: 1 };
    const pages = await Promise.all(watched().map((m) => get(`/launchpad/launches${qs({ ...filters, q: m })}`).catch(() => null)));
    if (mine !== seq) return;
    const found = pages.flatMap((r) => r?.launches ?? []);
    error.hidden = true;
    put(grid, ...found.map(card));
    put(info, found.length ? `${found.length} watched launch${found.length === 1 ? '' : 'es'}` : 'No watched launch matches: star a launch (☆) to add it to your watchlist.');
    more.hidden = true;
  }
  async function load() {
    const mine = ++seq;
    stateToUrl(state);
    loadKing().catch((e) => console.error('king of the hill', e));
    if (state.list === 'watchlist') return loadWatched(mine);
    try {
      const filters = {
        sort: state.sort,
        order: state.order,
        status: state.status,
        preset: state.preset,
        quote: state.quote,
        limit: Math.min(100, state.limit),
      };
      // A search of letters and digits is also the start of a mint or a symbol (`prefix`): those launches
      // first, then the names and symbols that contain it.
      const byPrefix = PREFIX.test(state.q) ? get(`/launchpad/launches${qs({ ...filters, prefix: state.q })}`) : null;
      const [r, p] = await Promise.all([get(`/launchpad/launches${qs({ ...filters, q: state.q })}`), byPrefix]);
      if (mine !== seq) return;
      if (p) {
        const seen = new Set(p.launches.map((e) => e.mint));
        const rest = r.launches.filter((e) => !seen.has(e.mint));
        // Both lists whole: the union counted exactly; else at least the larger.
        r.total = r.launches.length >= r.total && p.launches.length >= p.total ? p.launches.length + rest.length : Math.max(r.total, p.total);
        r.launches = [...p.launches, ...rest].slice(0, filters.limit);
      }
      error.hidden = true;
      for (const e of r.launches) known.set(e.mint, { symbol: e.symbol, quote: e.quote });
      put(grid, ...r.launches.map(card));
      for (const e of r.launches) if (decaying(e)) loadShield(e.mint, grid);
      if (!r.launches.length) {
        put(info, 
          state.q || state.status || state.preset || state.quote
            ? 'No launch matches these filters.'
            : el('span', {}, 'No launches yet. ', el('a', { href: '#/launch' }, 'Launch the first one'), '.'),
        );
      } else {
        info.textContent = `${r.total} launch${r.total === 1 ? '' : 'es'}`;
      }
      solUsd.hidden = !r.usd;
      if (r.usd) {
        solUsd.textContent = r.usd.stale
          ? `Dollar values use SOL at $${Number(r.usd.solUsd).toFixed(2)}, a price ${age(r.usd.publishTime)} old: they may be out of date.`
          : `Dollar values use SOL at $${Number(r.usd.solUsd).toFixed(2)} (Pyth).`;
        solUsd.classList.toggle('warning', r.usd.stale);
      }
      more.hidden = r.launches.length >= r.total || state.limit >= 100;
    } catch (e) {
      if (mine !== seq) return;
      error.hidden = false;
      error.textContent = errorText(e);
    }
  }
  more.addEventListener('click', () => {
    state.limit += PAGE;
    load();
  });

  put(main, 
    el('h1', {}, 'Discover launches'),
    ticker,
    king,
    el(
      'div',
      { class: 'filters' },
      search,
      select('sort', 'Sort', [
        ['new', 'Newest'],
        ['marketCap', 'Market cap'],
        ['volume24h', '24h volume'],
        ['lastTrade', 'Last trade'],
        ['progress', 'Progress (king of the hill)'],
      ]),
      select('order', 'Order', [
        ['desc', 'Descending'],
        ['asc', 'Ascending'],
      ]),
      select('status', 'Status', [
        ['', 'Any status'],
        ['bonding', 'Bonding'],
        ['complete', 'Complete'],
        ['migrated', 'On the AMM'],
      ]),
      select('preset', 'Preset', [
        ['', 'Any preset'],
        ['fair', 'Fair'],
        ['shield', 'Shield'],
        ['distribute', 'Distribute'],
      ]),
      select('quote', 'Quote', [
        ['', 'SOL or USDC'],
        ['sol', 'SOL'],
        ['usdc', 'USDC'],
      ]),
      select('list', 'Show', [
        ['', 'All launches'],
        ['watchlist', 'Watchlist'],
      ]),
      alertInput(),
    ),
    info,
    error,
    grid,
    solUsd,
    more,
  );
  await load();
  // A star or unstar elsewhere on the page (or in another view) shows in the filtered listing at once.
  reloadWatched = () => state.list === 'watchlist' && grid.isConnected && load();
  const refresh = debounce(load, 300);
  // Shield fees count down every second; a step reached reads the curve again.
  const shieldTimer = setInterval(() => {
    paintShields(grid);
    for (const box of grid.querySelectorAll('.shield-fee')) {
      const f = shields.get(box.dataset.mint);
      if (f?.feeChangesAt != null && f.feeChangesAt <= Date.now() / 1000) loadShield(box.dataset.mint, grid);
    }
  }, 1000);
  const stop = watch(
    { kinds: ['launch', 'trade', 'curve', 'complete', 'migrate'] },
    {
      onEvent: (event) => {
        if (event.kind === 'launch' || event.kind === 'trade') {
          ticker.prepend(tickerLine(event, known));
          while (ticker.children.length > TICKS) ticker.lastChild.remove();
        }
        refresh();
      },
      refresh: load,
    },
  );
  return () => {
    clearInterval(shieldTimer);
    stop?.();
  };
}
