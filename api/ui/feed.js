// Live updates: the feed's Server-Sent Events at /launchpad/stream (kinds and mints filters; EventSource
// resumes with Last-Event-ID by itself). When the stream is unavailable (an API without the feed answers
// 404, or the connection drops) the page polls the REST endpoints every 2 seconds and says so; the stream is
// retried in the background.

const POLL_MS = 2000;
const RETRY_MS = 10000;

const statusEl = () => document.getElementById('feed-status');

function show(state) {
  const e = statusEl();
  if (!e) return;
  e.dataset.state = state;
  e.textContent = {
    off: '',
    connecting: 'Connecting to the live feed…',
    live: 'Live',
    reconnecting: 'Live feed lost, reconnecting… (polling every 2 s)',
    polling: 'Polling every 2 s (live feed unavailable)',
  }[state];
  e.hidden = state === 'off';
}

/**
 * Watches `kinds` (and `mints`, `wallets`) of the feed. `onEvent(event)` gets each event; `refresh()` re-reads
 * over REST (called on every poll while the stream is down, and once after it comes back). Returns `stop()`.
 *
 * Every watcher of the page shares ONE stream (the union of their filters, each event handed to the watchers
 * it matches): a browser opens at most six connections to one host over HTTP/1.1, and a token page's panels
 * (trades, thread, watchlist alerts) in two tabs would otherwise hold all six and stall every request.
 */
const watchers = new Set();
let shared = null; // { es, key }
let lastSeq = null;
let everLive = false;
let retry = null;
let reopenSoon = null;

const MAX_FILTER_VALUES = 100;

/** The union of the watchers' filters: a list only when every watcher narrows by it. */
function union() {
  const all = [...watchers];
  const kinds = [...new Set(all.flatMap((w) => w.kinds))].sort();
  const pick = (f) => (all.every((w) => w[f].length) ? [...new Set(all.flatMap((w) => w[f]))].sort() : []);
  let mints = pick('mints');
  let wallets = pick('wallets');
  if (mints.length + wallets.length > MAX_FILTER_VALUES) {
    mints = [];
    wallets = [];
  }
  return { kinds, mints, wallets };
}

const matches = (w, kind, e) =>
  w.kinds.includes(kind) &&
  (!w.mints.length || w.mints.includes(e.mint)) &&
  (!w.wallets.length || (e.wallet != null && w.wallets.includes(e.wallet)));

function open() {
  clearTimeout(retry);
  retry = null;
  if (!watchers.size) {
    shared?.es.close();
    shared = null;
    show('off');
    return;
  }
  const { kinds, mints, wallets } = union();
  const q = new URLSearchParams();
  if (kinds.length) q.set('kinds', kinds.join(','));
  if (mints.length) q.set('mints', mints.join(','));
  if (wallets.length) q.set('wallets', wallets.join(','));
  const key = q.toString();
  if (shared && shared.key === key && shared.es.readyState !== EventSource.CLOSED) return;
  shared?.es.close();
  // A stream opened again for a changed union resumes where the last one was.
  if (lastSeq != null) q.set('since', String(lastSeq));
  show(everLive ? 'reconnecting' : 'connecting');
  const es = new EventSource(`/launchpad/stream?${q}`);
  shared = { es, key };
  es.onopen = () => {
    show('live');
    for (const w of watchers) {
      w.stopPolling();
      if (w.live) w.refresh();
      w.live = true;
    }
    everLive = true;
  };
  es.onerror = () => {
    if (shared?.es !== es) return;
    for (const w of watchers) w.startPolling();
    if (es.readyState === EventSource.CLOSED) {
      // Refused (404 without the feed, 410 for a resume point too old, any non-stream answer): poll, retry later.
      show(everLive ? 'reconnecting' : 'polling');
      shared = null;
      if (lastSeq != null) lastSeq = null;
      retry = setTimeout(open, RETRY_MS);
    } else {
      show('reconnecting');
    }
  };
  for (const kind of kinds) {
    es.addEventListener(kind, (m) => {
      let e;
      try {
        e = JSON.parse(m.data);
      } catch (err) {
        console.error('bad feed event', err);
        return;
      }
      if (typeof e.seq === 'number' && (lastSeq == null || e.seq > lastSeq)) lastSeq = e.seq;
      for (const w of [...watchers]) {
        if (!matches(w, kind, e)) continue;
        try {
          w.onEvent(e);
        } catch (err) {
          console.error('feed handler failed', err);
        }
      }
    });
  }
}

/** The shared stream follows the watchers once they settle (a page's panels register in one turn). */
function changed() {
  clearTimeout(reopenSoon);
  reopenSoon = setTimeout(open, 0);
}

export function watch({ kinds = [], mints = [], wallets = [] }, { onEvent, refresh }) {
  const w = {
    kinds,
    mints,
    wallets,
    onEvent,
    refresh,
    live: false,
    poll: null,
    startPolling() {
      if (!this.poll) this.poll = setInterval(() => this.refresh(), POLL_MS);
    },
    stopPolling() {
      clearInterval(this.poll);
      this.poll = null;
    },
  };
  watchers.add(w);
  // While the shared stream is down, a new watcher polls like the others.
  if (retry) w.startPolling();
  changed();
  return () => {
    w.stopPolling();
    watchers.delete(w);
    changed();
  };
}

/** `f` at most once per `ms`, trailing (a burst of events refreshes once). */
export function debounce(f, ms = 250) {
  let t = null;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => f(...a), ms);
  };
}
