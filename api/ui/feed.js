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
 * Watches `kinds` (and `mints`) of the feed. `onEvent(event)` gets each event; `refresh()` re-reads over REST
 * (called on every poll while the stream is down, and once after it comes back). Returns `stop()`.
 */
export function watch({ kinds = [], mints = [], wallets = [] }, { onEvent, refresh }) {
  let es = null;
  let poll = null;
  let retry = null;
  let stopped = false;
  let everLive = false;

  const startPolling = () => {
    if (!poll) poll = setInterval(() => !stopped && refresh(), POLL_MS);
  };
  const stopPolling = () => {
    clearInterval(poll);
    poll = null;
  };

  const open = () => {
    if (stopped) return;
    const q = new URLSearchParams();
    if (kinds.length) q.set('kinds', kinds.join(','));
    if (mints.length) q.set('mints', mints.join(','));
    if (wallets.length) q.set('wallets', wallets.join(','));
    show(everLive ? 'reconnecting' : 'connecting');
    es = new EventSource(`/launchpad/stream?${q}`);
    es.onopen = () => {
      show('live');
      stopPolling();
      if (everLive) refresh();
      everLive = true;
    };
    es.onerror = () => {
      if (stopped) return;
      startPolling();
      if (es.readyState === EventSource.CLOSED) {
        // Refused (404 without the feed, 410 for a resume point too old, any non-stream answer): poll, retry later.
        show(everLive ? 'reconnecting' : 'polling');
        es = null;
        retry = setTimeout(open, RETRY_MS);
      } else {
        show('reconnecting');
      }
    };
    for (const kind of kinds) {
      es.addEventListener(kind, (m) => {
        try {
          onEvent(JSON.parse(m.data));
        } catch (e) {
          console.error('bad feed event', e);
        }
      });
    }
  };
  open();

  return () => {
    stopped = true;
    es?.close();
    stopPolling();
    clearTimeout(retry);
    show('off');
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
