// Discovery: the listing with sort, filters and search; new launches and moving progress bars arrive over
// the live feed (or the 2-second poll without it).
import { get, qs, errorText, quoteSymbol, launchImage } from '../api.js';
import { el, price, compact, age, units, bps, put } from '../format.js';
import { watch, debounce } from '../feed.js';

const PAGE = 24;

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

function card(entry) {
  const q = quoteSymbol(entry.quote);
  const avatar = tokenAvatar(entry, null);
  launchImage(entry.mint, entry.uri).then((image) => image && avatar.replaceWith(tokenAvatar(entry, image)));
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
    ),
    el(
      'dl',
      { class: 'stats' },
      el('div', {}, el('dt', {}, 'Price'), el('dd', {}, `${price(entry.price)} ${q}`)),
      el('div', {}, el('dt', {}, 'Market cap'), el('dd', {}, `${compact(entry.marketCap)} ${q}`)),
      el('div', {}, el('dt', {}, '24h vol'), el('dd', {}, `${units(entry.volume24hQuote, q === 'SOL' ? 9 : 6, 2)} ${q}`)),
      el('div', {}, el('dt', {}, 'Holders'), el('dd', {}, String(entry.holders))),
      el('div', {}, el('dt', {}, 'Age'), el('dd', {}, age(entry.createdAt))),
    ),
    progressBar(entry.progressBps),
    el('div', { class: 'progress-label muted' }, `${bps(entry.progressBps)} of the way to graduation`),
  );
}

export async function render(main) {
  const state = { sort: 'new', order: 'desc', status: '', preset: '', quote: '', q: '', limit: PAGE };
  const grid = el('div', { class: 'grid', id: 'launches', 'aria-live': 'polite' });
  const info = el('p', { class: 'muted', id: 'listing-info' }, 'Loading launches…');
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
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
    placeholder: 'Search name, symbol or mint',
    'aria-label': 'Search launches',
    maxlength: 64,
  });
  search.addEventListener(
    'input',
    debounce(() => {
      state.q = search.value.trim();
      state.limit = PAGE;
      load();
    }, 300),
  );

  let seq = 0;
  async function load() {
    const mine = ++seq;
    try {
      const r = await get(
        `/launchpad/launches${qs({
          sort: state.sort,
          order: state.order,
          status: state.status,
          preset: state.preset,
          quote: state.quote,
          q: state.q,
          limit: Math.min(100, state.limit),
        })}`,
      );
      if (mine !== seq) return;
      error.hidden = true;
      put(grid, ...r.launches.map(card));
      if (!r.launches.length) {
        put(info, 
          state.q || state.status || state.preset || state.quote
            ? 'No launch matches these filters.'
            : el('span', {}, 'No launches yet. ', el('a', { href: '#/launch' }, 'Launch the first one'), '.'),
        );
      } else {
        info.textContent = `${r.total} launch${r.total === 1 ? '' : 'es'}`;
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
    ),
    info,
    error,
    grid,
    more,
  );
  await load();
  const refresh = debounce(load, 300);
  return watch({ kinds: ['launch', 'trade', 'curve', 'complete', 'migrate'] }, { onEvent: refresh, refresh: load });
}
