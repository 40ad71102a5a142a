// The live feed (`GET /launchpad/stream`, Server-Sent Events, and `GET /launchpad/ws`, a WebSocket): one
// subscription that delivers each event once, in `seq` order, and after any disconnect reconnects from the last
// `seq` it delivered (the server replays what was missed, and anything at or below that `seq` is dropped
// here), so the handler sees every event exactly once.

/** One event: `seq`, `kind` and the fields of its kind (docs/live-feed.md). */
export interface FeedEvent {
  seq: number;
  kind: 'launch' | 'trade' | 'curve' | 'complete' | 'migrate' | 'claim';
  slot: number;
  signature: string;
  time: number;
  mint: string;
  [field: string]: unknown;
}

export interface FeedOptions {
  kinds?: string[];
  mints?: string[];
  wallets?: string[];
  /** Resume after this `seq` (default: from now). */
  since?: number;
  /** `sse` (default) or `ws`. */
  transport?: 'sse' | 'ws';
  /** A WebSocket constructor, where there is no global one (Node 20: the `ws` package). */
  WebSocket?: new (url: string) => WebSocketLike;
  /** Wait before reconnecting, ms (default 500). */
  reconnectMs?: number;
  /** Errors the subscription survives (a dropped connection, a server error message): default ignored. */
  onError?: (error: unknown) => void;
}

/** The part of a WebSocket the feed client uses (the browser's and the `ws` package's both have it). */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface FeedSubscription {
  /** The `seq` of the last event delivered. */
  readonly lastSeq: number | undefined;
  /** Connections made so far (1 until the first reconnect). */
  readonly connections: number;
  /** Drops the current connection as a network failure would (the subscription reconnects and resumes). */
  drop(): void;
  close(): void;
}

/** Follows the feed at `baseUrl` (the API's), calling `onEvent` once per event in `seq` order. */
export function subscribe(baseUrl: string, options: FeedOptions, onEvent: (e: FeedEvent) => void): FeedSubscription {
  const base = baseUrl.replace(/\/$/, '');
  let last = options.since;
  let closed = false;
  let connections = 0;
  let dropCurrent: () => void = () => {};
  const onError = options.onError ?? (() => {});
  const deliver = (e: FeedEvent) => {
    if (last !== undefined && e.seq <= last) return;
    last = e.seq;
    onEvent(e);
  };
  const query = () => {
    const q = new URLSearchParams();
    if (options.kinds?.length) q.set('kinds', options.kinds.join(','));
    if (options.mints?.length) q.set('mints', options.mints.join(','));
    if (options.wallets?.length) q.set('wallets', options.wallets.join(','));
    if (last !== undefined) q.set('since', String(last));
    return q;
  };
  const wait = () => new Promise((r) => setTimeout(r, options.reconnectMs ?? 500));

  async function sse(): Promise<void> {
    const controller = new AbortController();
    dropCurrent = () => controller.abort();
    const res = await fetch(`${base}/launchpad/stream?${query()}`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    if (!res.ok || !res.body) throw new Error(`feed: ${res.status} ${await res.text()}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length) deliver(JSON.parse(data.join('\n')) as FeedEvent);
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }

  function ws(): Promise<void> {
    const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
    if (!Ctor) return Promise.reject(new Error('feed: no WebSocket here; pass options.WebSocket (e.g. the ws package)'));
    const url = `${base.replace(/^http/, 'ws')}/launchpad/ws${last !== undefined ? `?since=${last}` : ''}`;
    return new Promise((resolve, reject) => {
      const socket = new Ctor(url);
      dropCurrent = () => socket.close();
      socket.onopen = () =>
        socket.send(JSON.stringify({ op: 'subscribe', id: 'sdk', kinds: options.kinds ?? [], mints: options.mints ?? [], wallets: options.wallets ?? [] }));
      socket.onmessage = (m) => {
        const msg = JSON.parse(String(m.data));
        if (msg.type === 'error') onError(new Error(`feed: ${msg.error?.code}: ${msg.error?.message}`));
        else if (msg.type === undefined && typeof msg.seq === 'number') deliver(msg as FeedEvent);
      };
      socket.onerror = (e) => reject(e instanceof Error ? e : new Error('feed: WebSocket error'));
      socket.onclose = () => resolve();
    });
  }

  (async () => {
    while (!closed) {
      connections += 1;
      try {
        await (options.transport === 'ws' ? ws() : sse());
      } catch (e) {
        if (!closed) onError(e);
      }
      if (!closed) await wait();
    }
  })();

  return {
    get lastSeq() {
      return last;
    },
    get connections() {
      return connections;
    },
    drop: () => dropCurrent(),
    close: () => {
      closed = true;
      dropCurrent();
    },
  };
}
