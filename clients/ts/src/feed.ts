// The live feed (`GET /launchpad/stream`, Server-Sent Events, and `GET /launchpad/ws`, a WebSocket): one
// subscription that delivers each event once, in `seq` order, typed by kind (amounts as `bigint`), and after
// any disconnect reconnects from the last `seq` it delivered (the server replays what was missed, and
// anything at or below that `seq` is dropped here), so the handler sees every event exactly once. Without
// `kinds` it follows every kind, on both transports. Errors are reported to `onError` (by default logged
// with `console.error`); one the server will answer again on every reconnect (a bad filter, a resume point
// no longer kept) ends the subscription (`FeedError.fatal`). `drop()` is not an error.
import type { Address } from '@solana/kit';

interface FeedEnvelope {
  /** Strictly increasing in commit order (numbers may skip). */
  seq: number;
  slot: number;
  signature: string;
  /** Unix seconds: the block time the program saw. */
  time: number;
  mint: Address;
}

export type FeedKind = 'launch' | 'trade' | 'curve' | 'complete' | 'migrate' | 'claim' | 'comment' | 'creator' | 'fee-shares';
export const FEED_KINDS: readonly FeedKind[] = ['launch', 'trade', 'curve', 'complete', 'migrate', 'claim', 'comment', 'creator', 'fee-shares'];

export interface LaunchFeedEvent extends FeedEnvelope {
  kind: 'launch';
  creator: Address;
  name: string;
  symbol: string;
  uri: string;
  preset: string;
  quote: 'sol' | 'usdc';
  quoteMint: Address;
  pool: Address;
  config: Address;
}
export interface TradeFeedEvent extends FeedEnvelope {
  kind: 'trade';
  venue: 'curve' | 'amm';
  pool: Address;
  side: 'buy' | 'sell';
  wallet: Address;
  amountIn: bigint;
  amountOut: bigint;
  baseAmount: bigint;
  quoteAmount: bigint;
  fee: bigint;
  feeToken: 'base' | 'quote';
  /** Quote per token after the trade, 18 decimals rounded down. */
  priceAfter: string;
  cursor: string;
  /** Curve trades: progress after the trade, 0 to 10000; `null` on the AMM. */
  progressBps: number | null;
}
export interface CurveFeedEvent extends FeedEnvelope {
  kind: 'curve';
  pool: Address;
  progressBps: number;
  quoteRaised: bigint;
  currentFeeBps: number;
  price: string;
  baseReserve: bigint;
  quoteReserve: bigint;
  complete: boolean;
}
export interface CompleteFeedEvent extends FeedEnvelope {
  kind: 'complete';
  pool: Address;
  trader: Address;
}
export interface MigrateFeedEvent extends FeedEnvelope {
  kind: 'migrate';
  pool: Address;
  ammPool: Address;
  baseAmount: bigint;
  quoteAmount: bigint;
}
export interface ClaimFeedEvent extends FeedEnvelope {
  kind: 'claim';
  pool: Address;
  wallet: Address;
  claimKind: 'trading' | 'surplus' | 'locked-lp';
  amount: bigint;
  baseAmount: bigint;
}

/** A signed comment or reply posted on the token (its `signature` is the signed message's). */
export interface CommentFeedEvent extends FeedEnvelope {
  kind: 'comment';
  id: number;
  wallet: Address;
  /** The author's display name, or `null`. */
  name: string | null;
  /** `null`, or the top-level comment this replies to. */
  replyTo: number | null;
  /** Plain text: render it as text. */
  text: string;
  /** The author's balance of the token when posting, base units. */
  holding: bigint;
}
/** The creator role proposed (or the proposal withdrawn) or accepted: the role as it stands after. */
export interface CreatorFeedEvent extends FeedEnvelope {
  kind: 'creator';
  pool: Address;
  change: 'proposed' | 'withdrawn' | 'accepted';
  /** The role's holder after the change. */
  creator: Address;
  /** The wallet proposed after the change, or `null`. */
  pendingCreator: Address | null;
  /** The holder before an acceptance; `null` for a proposal. */
  previousCreator: Address | null;
}
/** The creator role set how the creator fees are shared: the whole list after the change. */
export interface FeeSharesFeedEvent extends FeedEnvelope {
  kind: 'fee-shares';
  pool: Address;
  /** The creator role's holder, who set them. */
  creator: Address;
  recipients: { wallet: Address; bps: number }[];
  /** Final: they can no longer change. */
  locked: boolean;
}

/** One event (docs/live-feed.md), discriminated by `kind`. */
export type FeedEvent =
  | LaunchFeedEvent
  | TradeFeedEvent
  | CurveFeedEvent
  | CompleteFeedEvent
  | MigrateFeedEvent
  | ClaimFeedEvent
  | CommentFeedEvent
  | CreatorFeedEvent
  | FeeSharesFeedEvent;

/** The integer-string fields of each kind, read as `bigint`. */
const AMOUNTS: Record<FeedKind, readonly string[]> = {
  launch: [],
  trade: ['amountIn', 'amountOut', 'baseAmount', 'quoteAmount', 'fee'],
  curve: ['quoteRaised', 'baseReserve', 'quoteReserve'],
  complete: [],
  migrate: ['baseAmount', 'quoteAmount'],
  claim: ['amount', 'baseAmount'],
  comment: ['holding'],
  creator: [],
  'fee-shares': [],
};

/** An event object as the server sends it, typed (amounts as `bigint`); throws on an unknown kind. */
export function parseFeedEvent(raw: Record<string, unknown>): FeedEvent {
  const kind = raw.kind as FeedKind;
  const amounts = AMOUNTS[kind];
  if (!amounts || typeof raw.seq !== 'number') throw new FeedError(`feed: not an event: ${JSON.stringify(raw).slice(0, 200)}`, 'INVALID_EVENT', false);
  const e: Record<string, unknown> = { ...raw };
  for (const f of amounts) if (typeof e[f] === 'string') e[f] = BigInt(e[f] as string);
  return e as unknown as FeedEvent;
}

/** An error of the feed: `code` is the server's (`INVALID_PARAMS`, `RESUME_TOO_OLD`, ...) or the client's
 * (`CONNECTION`, `HTTP_<status>`); `fatal`: the subscription ended on it. */
export class FeedError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly fatal: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FeedError';
  }
}

export interface FeedOptions {
  /** Kinds to receive (default: every kind). */
  kinds?: FeedKind[];
  mints?: string[];
  wallets?: string[];
  /** Resume after this `seq` (default: from now). */
  since?: number;
  /** `sse` (default) or `ws`. */
  transport?: 'sse' | 'ws';
  /** A WebSocket constructor, where there is no global one (Node 20: `WebSocket` of the `ws` package). */
  WebSocket?: new (url: string) => WebSocketLike;
  /** Wait before reconnecting, ms (default 500). */
  reconnectMs?: number;
  /** Errors: a dropped connection, a server's error message, a fatal refusal (default: `console.error`). */
  onError?: (error: FeedError) => void;
}

/** The part of a WebSocket the feed client uses: the browser's and the `ws` package's both fit it. */
export interface WebSocketLike {
  onopen: ((ev: never) => void) | null;
  onmessage: ((ev: never) => void) | null;
  onclose: ((ev: never) => void) | null;
  onerror: ((ev: never) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface FeedSubscription {
  /** The `seq` of the last event delivered. */
  readonly lastSeq: number | undefined;
  /** Connections made so far (1 until the first reconnect). */
  readonly connections: number;
  /** Resolves when the subscription ended: `close()`, or a fatal error (its `FeedError`, also given to `onError`). */
  readonly closed: Promise<FeedError | undefined>;
  /** Drops the current connection as a network failure would (the subscription reconnects and resumes). */
  drop(): void;
  close(): void;
}

/** Server errors that every reconnect would meet again: the subscription ends on them. */
const FATAL = new Set(['INVALID_PARAMS', 'INVALID_ADDRESS', 'RESUME_TOO_OLD', 'INVALID_JSON', 'TOO_MANY_SUBSCRIPTIONS']);

/** Follows the feed at `baseUrl` (the API's), calling `onEvent` once per event in `seq` order. */
export function subscribe(baseUrl: string, options: FeedOptions, onEvent: (e: FeedEvent) => void): FeedSubscription {
  const base = baseUrl.replace(/\/$/, '');
  let last = options.since;
  let closed = false;
  let connections = 0;
  let dropCurrent: () => void = () => {};
  let finish: (e: FeedError | undefined) => void = () => {};
  const done = new Promise<FeedError | undefined>((r) => (finish = r));
  const report = options.onError ?? ((e: FeedError) => console.error(e));
  const fail = (e: FeedError) => {
    report(e);
    if (e.fatal && !closed) {
      closed = true;
      dropCurrent();
      finish(e);
    }
  };
  const deliver = (raw: Record<string, unknown>) => {
    const e = parseFeedEvent(raw);
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

  /** One SSE connection; resolves when it ends (the server closed it, or `drop()`). */
  async function sse(): Promise<void> {
    const controller = new AbortController();
    dropCurrent = () => controller.abort();
    try {
      const res = await fetch(`${base}/launchpad/stream?${query()}`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      if (!res.ok || !res.body) {
        const text = await res.text();
        let code = `HTTP_${res.status}`;
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? code;
        } catch {
          // not the error envelope
        }
        throw new FeedError(`feed: ${res.status} ${text}`, code, FATAL.has(code));
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let data: string[] = [];
      let event = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (data.length) {
              const object = JSON.parse(data.join('\n')) as Record<string, unknown>;
              if (event === 'lagged') fail(new FeedError('feed: dropped as a slow consumer; resuming', 'SLOW_CONSUMER', false));
              else if (event !== 'shutdown') deliver(object);
            }
            data = [];
            event = '';
          } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          else if (line.startsWith('event:')) event = line.slice(6).trim();
        }
      }
    } catch (e) {
      if (controller.signal.aborted) return; // drop() or close(): not an error
      throw e;
    }
  }

  /** One WebSocket connection; resolves when it closes. */
  function ws(): Promise<void> {
    const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
    if (!Ctor) return Promise.reject(new FeedError('feed: no WebSocket here; pass options.WebSocket (e.g. the ws package)', 'NO_WEBSOCKET', true));
    const url = `${base.replace(/^http/, 'ws')}/launchpad/ws${last !== undefined ? `?since=${last}` : ''}`;
    return new Promise((resolve, reject) => {
      const socket = new Ctor(url);
      let dropped = false;
      dropCurrent = () => {
        dropped = true;
        socket.close();
      };
      const subscribeMessage: Record<string, unknown> = { op: 'subscribe', id: 'sdk' };
      // Absent lists: every kind, any mint, any wallet.
      if (options.kinds?.length) subscribeMessage.kinds = options.kinds;
      if (options.mints?.length) subscribeMessage.mints = options.mints;
      if (options.wallets?.length) subscribeMessage.wallets = options.wallets;
      socket.onopen = () => socket.send(JSON.stringify(subscribeMessage));
      socket.onmessage = ((m: { data: unknown }) => {
        const msg = JSON.parse(String(m.data)) as Record<string, unknown> & { type?: string; error?: { code?: string; message?: string } };
        if (msg.type === undefined) return deliver(msg);
        if (msg.type === 'error') {
          const code = msg.error?.code ?? 'UNKNOWN';
          fail(new FeedError(`feed: ${code}: ${msg.error?.message}`, code, FATAL.has(code)));
        } else if (msg.type === 'lagged') fail(new FeedError('feed: dropped as a slow consumer; resuming', 'SLOW_CONSUMER', false));
      }) as never;
      socket.onerror = ((e: unknown) => {
        if (!dropped) reject(new FeedError('feed: WebSocket error', 'CONNECTION', false, { cause: e }));
      }) as never;
      socket.onclose = (() => resolve()) as never;
    });
  }

  (async () => {
    while (!closed) {
      connections += 1;
      try {
        await (options.transport === 'ws' ? ws() : sse());
      } catch (e) {
        if (!closed) fail(e instanceof FeedError ? e : new FeedError(`feed: ${e instanceof Error ? e.message : String(e)}`, 'CONNECTION', false, { cause: e }));
      }
      if (!closed) await wait();
    }
    finish(undefined);
  })();

  return {
    get lastSeq() {
      return last;
    },
    get connections() {
      return connections;
    },
    closed: done,
    drop: () => dropCurrent(),
    close: () => {
      closed = true;
      dropCurrent();
      finish(undefined);
    },
  };
}
