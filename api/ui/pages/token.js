// A token's page: chart (interval switch, volume), curve progress and what is left to graduation, the fee
// now (the shield fee as it decays), trades, top holders and links, and the trade panel. After migration the
// same page continues on the AMM (`venue` of /launchpad/curve).
import { get, post, qs, errorView, quoteSymbol, launchImage, signAndSubmit, TOKEN_DECIMALS, decimals, ApiError, referrer } from '../api.js';
import { el, price, compact, usd, age, units, bps, short, share, parseAmount, put, explorerLink } from '../format.js';
import { watch, debounce } from '../feed.js';
import { candleChart } from '../chart.js';
import { swapCosts, maxSolBuy, stillAsShown, graduates, PRIORITY_LEVELS } from '../costs.js';
import { tokenAvatar, progressBar } from './discover.js';
import { creatorPanel } from './creator.js';
import { positionPanel } from '../pnl.js';
import { star } from '../watchlist.js';
import { commentsPanel, profileNames, who } from './comments.js';

const INTERVALS = ['1s', '15s', '1m', '5m', '15m', '1h', '4h', '1d'];
const SLIPPAGES = [50, 100, 200, 500, 1000];
/** Price impact above this needs an explicit confirmation before the wallet is asked to sign. */
export const IMPACT_CONFIRM = 0.1;

/** Wrapped SOL's mint: a launch quoted in SOL. */
const SOL_MINT = 'So11111111111111111111111111111111111111112';
/** A quote on screen older than this is read again (the panel also re-quotes on every trade of the token). */
const QUOTE_FRESH_MS = 10_000;

function stat(label, value, id) {
  return el('div', {}, el('dt', {}, label), el('dd', { id }, value));
}

function safeLink(href, text) {
  try {
    const u = new URL(href);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  } catch {
    return null;
  }
  return el('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, text);
}

export async function render(main, ctx, mint) {
  const session = ctx.session;
  const signal = ctx.signal;
  // `--explorer-url`: mints, wallets and transactions link to it (none unless the server names one).
  const explorer = ctx.config?.explorerUrl ?? null;
  const wayOut = () =>
    el('p', {}, el('a', { href: '#/', id: 'missing-discover' }, 'Back to Discover'), ' · ', el('a', { href: '#/launch' }, 'Launch a token'));
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(mint)) {
    put(main, el('section', { class: 'panel', id: 'token-missing' }, el('h1', {}, 'Not a token address'), el('p', {}, `“${mint}” is not a Solana address.`), wayOut()));
    return null;
  }
  // A launch just recorded may take a moment to reach the index: checked again, less and less often, for
  // about 30 s (seven requests), with a way out meanwhile; then the page says so and stops asking.
  const AGAIN_MS = [1000, 2000, 3000, 5000, 8000, 11000];
  let tokenView;
  let curve;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) return null;
    try {
      tokenView = await get(`/launchpad/tokens/${mint}`);
      curve = await get(`/launchpad/curve/${mint}`);
      break;
    } catch (e) {
      if (e.code !== 'NOT_FOUND') throw e;
      if (attempt >= AGAIN_MS.length) {
        const again = el('button', { type: 'button', class: 'ghost', id: 'missing-retry', onclick: () => window.dispatchEvent(new HashChangeEvent('hashchange')) }, 'Check again');
        put(main, el('section', { class: 'panel', id: 'token-missing' }, el('h1', {}, 'No launch with this address'), el('p', { class: 'mono' }, mint), el('p', { class: 'muted' }, 'The index has no launch with this mint. A launch just sent shows up within seconds of confirming.'), again, wayOut()));
        return null;
      }
      put(main, el('section', { class: 'panel', id: 'token-missing' }, el('h1', {}, 'Looking for this token…'), el('p', { class: 'mono' }, mint), el('p', { class: 'muted' }, 'Not in the index yet: a launch just sent shows up within seconds of confirming. Checking again for a few more seconds.'), wayOut()));
      await new Promise((r) => setTimeout(r, AGAIN_MS[attempt]));
    }
  }
  if (signal?.aborted) return null;
  const qd = await decimals(curve.quoteMint);
  const q = quoteSymbol(curve.quote);
  let view = tokenView;
  let cur = curve;
  let interval = '1m';

  // Header
  const avatar = tokenAvatar(view, view.image);
  const links = el('p', { class: 'links' });
  const copyMint = el('button', { type: 'button', class: 'ghost small', id: 'copy-mint', title: `Copy ${mint}` }, 'Copy');
  copyMint.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(mint);
      copyMint.textContent = 'Copied';
    } catch {
      copyMint.textContent = 'Select the address to copy it';
    }
    setTimeout(() => (copyMint.textContent = 'Copy'), 2000);
  });
  /** The header's links: the creator and the fee shares as the index has them now (they change by
   * handover and by the creator's updates). */
  function paintLinks() {
    put(links,
      safeLink(view.links?.website, 'Website'),
      safeLink(view.links?.twitter, 'X'),
      safeLink(view.links?.telegram, 'Telegram'),
      el('a', { href: `#/wallet/${view.creator}`, id: 'token-creator', 'data-creator': view.creator }, `Creator ${short(view.creator)}`),
      view.feeShares
        ? el(
            'span',
            {
              id: 'fee-shares',
              class: 'muted',
              title: view.feeShares.recipients.map((r) => `${r.wallet}: ${r.bps / 100}%`).join('\n'),
            },
            `Creator fees shared by ${view.feeShares.recipients.length} wallet${view.feeShares.recipients.length === 1 ? '' : 's'}${view.feeShares.locked ? ' (locked)' : ''}`,
          )
        : null,
      el('span', { class: 'muted mono', title: mint }, `Mint ${short(mint)}`, ' ', copyMint, ' ', explorerLink(explorer, 'address', mint)),
    );
  }
  paintLinks();
  const venue = el('span', { id: 'venue', class: 'badge' });
  const head = el(
    'div',
    { class: 'token-head' },
    avatar,
    el(
      'div',
      {},
      el('h1', {}, view.name, ' ', el('span', { class: 'muted' }, `$${view.symbol}`), ' ', venue, ' ', star(mint, `$${view.symbol}`, el)),
      view.description ? el('p', { class: 'desc' }, view.description) : null,
      links,
    ),
  );

  // Market stats
  const stats = el('dl', { class: 'stats wide', id: 'token-stats' });
  // Curve panel
  const curveBox = el('section', { class: 'panel', id: 'curve-panel', 'aria-labelledby': 'curve-h' });
  // Chart
  const chartBox = el('div', { class: 'chart', id: 'chart', role: 'img', 'aria-describedby': 'chart-summary' });
  // The chart in words, for screen readers and anyone who wants the number: the latest price and its change.
  const chartSummary = el('p', { class: 'muted small', id: 'chart-summary', 'aria-live': 'off' });
  const chartEmpty = el('p', { class: 'muted chart-empty', hidden: true }, 'No trades yet: the chart starts with the first one.');
  const intervalButtons = INTERVALS.map((i) =>
    el(
      'button',
      {
        type: 'button',
        class: 'chip',
        'data-interval': i,
        'aria-pressed': String(i === interval),
        onclick: () => {
          interval = i;
          intervalButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.interval === i)));
          chart?.refit();
          loadCandles();
        },
      },
      i,
    ),
  );
  // Trades and holders
  const tradesBody = el('tbody', { id: 'trades' });
  const tradesEmpty = el('p', { class: 'muted', hidden: true }, 'No trades yet.');
  const holdersList = el('ol', { class: 'holders', id: 'holders' });
  const holdersInfo = el('p', { class: 'muted' });
  // The creator role's tools, for the wallet that holds it (or is proposed for it).
  const creatorBox = el('div', { id: 'creator-box' });
  // The last creator action's outcome, kept across the panel's redraws.
  const creatorDone = el('p', { class: 'ok', id: 'creator-done', role: 'status' });
  let creatorKey = '';
  function paintCreator() {
    // Redrawn only when what it shows changed, so a half-typed address survives the live refreshes.
    const key = JSON.stringify([session.wallet?.address, view.creator, view.pendingCreator, view.feeShares]);
    if (key === creatorKey) return;
    creatorKey = key;
    put(creatorBox, creatorDone, creatorPanel({
      view,
      session,
      localnet: !!ctx.config?.localnet,
      onDone: (message, signature, confirmed) => {
        creatorDone.textContent = message;
        creatorDone.dataset.signature = signature;
        delete creatorDone.dataset.confirmed;
        // Confirmed when the live feed reports it (`roleChanged`), which also redraws the header and panel;
        // the feed may have been quicker than the wallet's confirmation.
        creatorConfirm = { signature, message: confirmed };
        if (roleSignatures.has(signature)) confirmCreator(signature);
      },
    }));
  }
  // The creator action awaiting its feed event: `{ signature, message }`.
  let creatorConfirm = null;
  // Role events seen (a refresh that began before one keeps the event's newer state), and their transactions.
  let roleEpoch = 0;
  const roleSignatures = new Set();
  function confirmCreator(signature) {
    if (creatorConfirm?.signature !== signature) return;
    creatorDone.textContent = `${creatorConfirm.message} Transaction ${short(signature)}`;
    creatorDone.dataset.confirmed = 'true';
    creatorConfirm = null;
  }
  /** A `creator` or `fee-shares` event of this token: the state after it, painted at once. */
  function roleChanged(e) {
    roleEpoch++;
    view = e.kind === 'creator'
      ? { ...view, creator: e.creator, pendingCreator: e.pendingCreator ?? null }
      : { ...view, feeShares: { recipients: e.recipients, locked: e.locked } };
    paintLinks();
    paintHolders();
    paintCreator();
    roleSignatures.add(e.signature);
    confirmCreator(e.signature);
  }

  // Trade panel
  let side = 'buy';
  // "Receive exactly": the field is the amount out (exact), the input is quoted with a maximum.
  let exactOut = false;
  let slippageBps = 100;
  let priority = 'medium';
  // The quote on screen: `{ request, best, at }` (what a click signs for), null when none is shown.
  let lastQuote = null;
  // Max was the last thing that set the amount (a graduating Max then also leaves the migration's rent).
  let maxMode = false;
  const amount = el('input', {
    id: 'trade-amount',
    name: 'amount',
    inputmode: 'decimal',
    autocomplete: 'off',
    placeholder: '0.0',
    'aria-describedby': 'trade-quote',
  });
  const amountLabel = el('label', { for: 'trade-amount' });
  const exactOutBox = el('input', {
    type: 'checkbox',
    id: 'trade-exact-out',
    onchange: (e) => {
      exactOut = e.target.checked;
      amount.value = '';
      lastQuote = null;
      paintPanel();
      echo();
      showQuote(null);
    },
  });
  // What the field was read as (`= 1.5 SOL`), or why it cannot be: the amount sent is the one shown here.
  const amountEcho = el('p', { class: 'muted', id: 'trade-amount-echo', 'aria-live': 'polite' });
  // A costly trade (high price impact, a fee above the launch's final fee) waits for this box.
  const confirmBox = el('input', { type: 'checkbox', id: 'trade-confirm' });
  const confirmText = el('span', { id: 'trade-confirm-text' });
  const confirmRow = el('label', { class: 'confirm warn', id: 'trade-confirm-row', hidden: true }, confirmBox, confirmText);
  const balance = el('p', { class: 'muted', id: 'trade-balance' });
  const quoteBox = el('dl', { class: 'quote', id: 'trade-quote', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', id: 'trade-submit', class: 'primary' });
  const tradeError = el('p', { class: 'error', id: 'trade-error', role: 'alert', hidden: true });
  const tradeStatus = el('p', { class: 'ok', id: 'trade-status', role: 'status' });
  const sideButtons = ['buy', 'sell'].map((s) =>
    el(
      'button',
      {
        type: 'button',
        class: `tab ${s}`,
        id: `side-${s}`,
        'aria-pressed': String(s === side),
        onclick: () => {
          side = s;
          sideButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.id === `side-${s}`)));
          amount.value = '';
          lastQuote = null;
          paintPanel();
          echo();
          showQuote(null);
        },
      },
      s === 'buy' ? 'Buy' : 'Sell',
    ),
  );
  const slippage = el(
    'select',
    {
      id: 'slippage',
      onchange: (e) => {
        customSlippage.hidden = e.target.value !== 'custom';
        if (e.target.value === 'custom') return customSlippage.focus();
        slippageBps = Number(e.target.value);
        requote();
      },
    },
    SLIPPAGES.map((s) => el('option', { value: s, selected: s === slippageBps }, bps(s))),
    el('option', { value: 'custom' }, 'Custom…'),
  );
  // A tolerance of its own, in percent with up to two decimals (0.01% to 50%, as the API accepts).
  const customSlippage = el('input', { id: 'slippage-custom', inputmode: 'decimal', placeholder: 'e.g. 3.5 (%)', 'aria-label': 'Custom slippage tolerance in percent', hidden: true });
  customSlippage.addEventListener('input', () => {
    const a = parseAmount(customSlippage.value.replace('%', ''), 2);
    const v = a.units ? Number(a.units) : NaN;
    const ok = v >= 1 && v <= 5000;
    customSlippage.setAttribute('aria-invalid', String(!ok));
    if (ok) {
      slippageBps = v;
      requote();
    }
  });
  const prioritySelect = el(
    'select',
    {
      id: 'priority',
      onchange: (e) => {
        priority = e.target.value;
        if (lastQuote) showQuote(lastQuote.best);
      },
    },
    PRIORITY_LEVELS.map((p) => el('option', { value: p.level, selected: p.level === priority }, p.label)),
  );
  let held = '0';
  // The wallet's SOL and USDC as the chain has them (the wallet view's `balances`), null until read.
  let funds = null;
  /** What the transaction costs in SOL beside its amount (`swapCosts`) for `best` (null: before a quote). */
  function costsOf(best) {
    return swapCosts({
      side,
      solQuote: cur.quoteMint === SOL_MINT,
      holdsTokenAccount: BigInt(held) > 0n,
      holdsQuoteAccount: BigInt(funds?.usdc ?? '0') > 0n,
      completes: graduates(best),
      priority,
    });
  }
  /** What the wallet can spend of the quote on a buy: all its USDC, or its SOL less everything the
   * transaction also takes (`completes`: the buy graduates the curve and pays the migration's rent). */
  function spendable(completes) {
    if (!funds) return null;
    if (cur.quoteMint !== SOL_MINT) return BigInt(funds.usdc ?? '0');
    return maxSolBuy(funds.sol, costsOf(completes ? { refund: '1' } : null));
  }
  // An amount the page wrote (Max, a share of the balance): shown grouped as the balances are, read back as
  // exactly the units it was written from (`1,500` alone would read two ways if typed).
  let written = null;
  const setUnits = (value, dec, max = false) => {
    amount.value = units(String(value), dec, dec);
    written = { value: amount.value, units: String(value), text: amount.value.replace(/,/g, ''), side, exactOut, dec };
    maxMode = max;
    confirmBox.checked = false;
    echo();
    requote();
  };
  const quick = el('div', { class: 'chips quick', id: 'trade-quick', role: 'group', 'aria-label': 'Quick amounts' });
  function paintQuick() {
    const chip = (label, onclick, id) => el('button', { type: 'button', class: 'chip', id, onclick }, label);
    if (side === 'buy') {
      const steps = cur.quoteMint === SOL_MINT ? ['0.1', '0.5', '1'] : ['10', '50', '100'];
      put(quick,
        ...steps.map((v) => chip(`${v} ${q}`, () => {
          amount.value = v;
          maxMode = false;
          confirmBox.checked = false;
          echo();
          requote();
        }, `quick-${v.replace('.', '_')}`)),
        chip('Max', () => {
          const max = spendable(false);
          if (max !== null) setUnits(max, qd, true);
        }, 'trade-max'),
      );
    } else {
      put(quick,
        ...[25, 50, 75, 100].map((pct) => chip(pct === 100 ? 'Max' : `${pct}%`, () => setUnits((BigInt(held) * BigInt(pct)) / 100n, TOKEN_DECIMALS), pct === 100 ? 'trade-max' : `quick-${pct}`)),
      );
    }
    quick.hidden = exactOut || (!session.wallet && side === 'sell');
  }
  const form = el(
    'form',
    { class: 'panel trade', id: 'trade-form', 'aria-labelledby': 'trade-h', novalidate: true },
    el('h2', { id: 'trade-h' }, 'Trade'),
    el('div', { class: 'tabs', role: 'group', 'aria-label': 'Side' }, sideButtons),
    el('label', { class: 'check', for: 'trade-exact-out' }, exactOutBox, ' Receive exactly this amount'),
    amountLabel,
    amount,
    quick,
    amountEcho,
    balance,
    el('div', { class: 'trade-settings' },
      el('label', { for: 'slippage' }, 'Slippage tolerance', slippage, customSlippage),
      el('label', { for: 'priority' }, 'Priority fee', prioritySelect)),
    quoteBox,
    confirmRow,
    submit,
    tradeError,
    tradeStatus,
  );

  function tokens() {
    return side === 'buy'
      ? { tokenIn: cur.quoteMint, tokenOut: mint, inDec: qd, outDec: TOKEN_DECIMALS, inSym: q, outSym: view.symbol }
      : { tokenIn: mint, tokenOut: cur.quoteMint, inDec: TOKEN_DECIMALS, outDec: qd, inSym: view.symbol, outSym: q };
  }

  function paintPanel() {
    const t = tokens();
    amountLabel.textContent = exactOut
      ? side === 'buy' ? `You receive exactly (${view.symbol})` : `You receive exactly (${q})`
      : side === 'buy' ? `You pay (${q})` : `You sell (${view.symbol})`;
    paintQuick();
    submit.textContent = session.wallet
      ? `${side === 'buy' ? 'Buy' : 'Sell'} ${view.symbol}${cur.venue === 'amm' ? ' on the AMM' : ''}`
      : 'Connect a wallet to trade';
    submit.disabled = !session.wallet;
    if (!session.wallet) balance.textContent = '';
    else if (side === 'sell') balance.textContent = `You hold ${units(held, TOKEN_DECIMALS)} ${view.symbol}`;
    else if (!funds) balance.textContent = '';
    else {
      const quoteHeld = cur.quoteMint === SOL_MINT ? funds.sol : funds.usdc ?? '0';
      balance.textContent = `Balance: ${units(quoteHeld, qd)} ${q}${cur.quoteMint === SOL_MINT ? '' : ` · ${units(funds.sol, 9)} SOL for fees`}`;
    }
    void t;
  }

  /** The amount field as read: `{ units, text }`, or `{ error }` (a sell of more than the wallet holds too). */
  function typed() {
    const t = tokens();
    const dec = exactOut ? t.outDec : t.inDec;
    const mine = written && written.value === amount.value && written.side === side && written.exactOut === exactOut && written.dec === dec;
    const a = mine
      ? { units: written.units, text: written.text }
      : parseAmount(amount.value, exactOut ? t.outDec : t.inDec);
    if (!exactOut && a.units && side === 'sell' && session.wallet && BigInt(a.units) > BigInt(held)) {
      return { error: `You hold ${units(held, TOKEN_DECIMALS)} ${t.inSym}: sell at most that (Max).` };
    }
    return a;
  }

  function echo() {
    const t = tokens();
    const a = amount.value.trim() ? typed() : null;
    amountEcho.classList.toggle('error', !!a?.error);
    amountEcho.textContent = !a ? '' : a.error ? a.error : `= ${a.text} ${exactOut ? t.outSym : t.inSym}`;
  }

  function request() {
    const t = tokens();
    const a = typed();
    const amount = a.units;
    if (!amount || amount === '0') return null;
    const r = exactOut
      ? { chainKey: 'solana', tokenIn: t.tokenIn, tokenOut: t.tokenOut, swapMode: 'ExactOut', amountOut: amount, slippageBps }
      : { chainKey: 'solana', tokenIn: t.tokenIn, tokenOut: t.tokenOut, amountIn: amount, slippageBps };
    if (session.wallet) r.taker = session.wallet.address;
    return r;
  }

  function showError(e) {
    tradeError.hidden = !e;
    const t = tokens();
    if (!e) put(tradeError, );
    else {
      put(tradeError, errorView(e, {
        localnet: !!ctx.config?.localnet,
        side,
        exactOut,
        outSymbol: t.outSym,
        symbol: view.symbol,
        heldText: side === 'sell' && session.wallet ? `${units(held, TOKEN_DECIMALS)} ${t.inSym}` : null,
      }));
    }
  }

  /** Why a quote needs a confirmation before signing (null: it does not): `{ text, kinds }`. */
  function costlyWhy(best, impact) {
    const why = [];
    const kinds = [];
    if (impact !== null && impact > IMPACT_CONFIRM) {
      why.push(`a ${(impact * 100).toFixed(2)}% price impact`);
      kinds.push('impact');
    }
    const feeBps = best.poolFee?.bps ?? 0;
    if (best.dexId === 'launchpad-solana' && feeBps > cur.finalFeeBps) {
      why.push(`a ${bps(feeBps)} launch fee (it falls to ${bps(cur.finalFeeBps)})`);
      kinds.push('fee');
    }
    return why.length ? { text: why.join(' and '), kinds: kinds.join(' ') } : null;
  }

  function costly(best, impact) {
    return costlyWhy(best, impact)?.text ?? null;
  }

  function showQuote(best) {
    const why = best ? costlyWhy(best, impactOf(best)) : null;
    const warning = why?.text ?? null;
    confirmRow.hidden = !why;
    if (why) {
      // A new kind of reason is asked again; the same one keeps the answer as the numbers move.
      if (confirmText.dataset.kinds !== why.kinds) confirmBox.checked = false;
      confirmText.dataset.kinds = why.kinds;
      confirmText.textContent = ` I accept ${why.text} on this trade.`;
    }
    quoteBox.classList.toggle('warn', !!warning);
    if (!best) {
      delete quoteBox.dataset.amountIn;
      delete quoteBox.dataset.amountOut;
    }
    if (!best) {
      put(quoteBox, );
      return;
    }
    const t = tokens();
    const fee = BigInt(best.poolFee?.amount || '0');
    const feeIn = best.poolFee?.token === t.tokenIn;
    const refund = BigInt(best.refund || '0');
    const impact = impactOf(best);
    const feeSym = feeIn ? t.inSym : t.outSym;
    const feeDec = feeIn ? t.inDec : t.outDec;
    const costs = costsOf(best);
    const sol = (l) => `${units(String(l), 9, 9)} SOL`;
    const solLaunch = cur.quoteMint === SOL_MINT;
    // What leaves the wallet: the amount it pays (a buy's is net of any refund; exact out: at most its
    // maximum), and in SOL the fees and the rent of the accounts the transaction opens.
    const pays = BigInt(exactOut ? best.maxAmountIn ?? best.amountIn : best.amountIn);
    const solUsd = (l) => (solLaunch ? quoteUsd(String(l), 9) : null);
    const total = side === 'buy' && solLaunch
      ? withUsd(sol(pays + costs.total), String(pays + costs.total), 9)
      : side === 'buy'
        ? withUsd(`${units(String(pays), qd)} ${q} + ${sol(costs.total)}`, String(pays))
        : [sol(costs.total), solUsd(costs.total) ? el('span', { class: 'usd' }, `(${solUsd(costs.total)})`) : null];
    // A sell's proceeds in dollars beside what it receives; a buy's are beside its total.
    const route = best.dexId === 'launchpad-solana' ? 'Launch fee, bonding curve' : best.dexId === 'launchpad-amm-solana' ? 'AMM fee' : `Fee, ${best.dexId}`;
    put(quoteBox,
      exactOut ? stat('You pay', `≈ ${units(best.amountIn, t.inDec)} ${t.inSym}`, 'quote-in') : null,
      exactOut && best.maxAmountIn
        ? stat(`At most, at ${bps(slippageBps)} slippage`, `${units(best.maxAmountIn, t.inDec)} ${t.inSym}`, 'quote-max-in')
        : null,
      stat(exactOut ? 'You receive exactly' : 'You receive', side === 'sell'
        ? withUsd(`${exactOut ? '' : '≈ '}${units(best.amountOut, t.outDec)} ${t.outSym}`, best.amountOut)
        : `${exactOut ? '' : '≈ '}${units(best.amountOut, t.outDec)} ${t.outSym}`, 'quote-out'),
      exactOut ? null : stat(`Minimum at ${bps(slippageBps)} slippage`, `${units(best.minAmountOut, t.outDec)} ${t.outSym}`, 'quote-min'),
      stat(`${route} (${bps(best.poolFee?.bps ?? 0)})`, `${units(best.poolFee?.amount || '0', feeDec)} ${feeSym}`, 'quote-fee'),
      stat('Price impact', impact === null ? '–' : `${(Math.max(0, impact) * 100).toFixed(2)}%`, 'quote-impact'),
      refund > 0n || graduates(best)
        ? stat('Graduates', `${refund > 0n ? `${units(String(refund), qd)} ${q} of what you offer comes back: ` : ''}this buy completes the curve and moves the token to the AMM`, 'quote-refund')
        : null,
      stat('Network fee', sol(costs.network), 'quote-network'),
      stat(`Priority fee (${PRIORITY_LEVELS.find((p) => p.level === priority).label})`, costs.priority > 0n ? `at most ${sol(costs.priority)}` : sol(0n), 'quote-priority'),
      ...costs.rent.map((r) => stat(`Rent: ${r.what}`, sol(r.lamports), `quote-rent-${r.what.split(' ')[0]}`)),
      stat('Total from your wallet', total, 'quote-total'),
    );
    quoteBox.dataset.costLamports = String(costs.total);
  }

  /** Dollars of `amount` base units of the launch's quote (SOL or USDC), by the oracle the API prices
   * the token with (`priceUsd` over `price`); null without a price. Display only. */
  function quoteUsd(amount, dec = qd) {
    const rate = Number(view.priceUsd) / Number(view.price);
    if (!(rate > 0) || amount === null || amount === undefined) return null;
    return usd(String((Number(amount) / 10 ** dec) * rate));
  }
  /** `text` with its dollars beside it, when known. */
  function withUsd(text, amount, dec = qd) {
    const d = quoteUsd(amount, dec);
    return d ? [text, el('span', { class: 'usd' }, `(${d})`)] : text;
  }

  /** The price impact of a quote against the spot price (null when it cannot be told). */
  function impactOf(best) {
    const t = tokens();
    const fee = BigInt(best.poolFee?.amount || '0');
    const feeIn = best.poolFee?.token === t.tokenIn;
    // `amountIn` is what the swap uses: a graduating buy's is already net of its refund.
    const netIn = BigInt(best.amountIn) - (feeIn ? fee : 0n);
    const netOut = BigInt(best.amountOut) + (feeIn ? 0n : fee);
    const spot = Number(cur.price);
    if (!(spot > 0 && netIn > 0n && netOut > 0n)) return null;
    const exec =
      side === 'buy'
        ? Number(netIn) / 10 ** qd / (Number(netOut) / 10 ** TOKEN_DECIMALS)
        : Number(netOut) / 10 ** qd / (Number(netIn) / 10 ** TOKEN_DECIMALS);
    return side === 'buy' ? exec / spot - 1 : 1 - exec / spot;
  }

  let quoteSeq = 0;
  async function fetchQuote() {
    const r = request();
    const mine = ++quoteSeq;
    if (!r) {
      lastQuote = null;
      showQuote(null);
      return null;
    }
    try {
      const res = await post('/swap/quote', r);
      if (mine !== quoteSeq) return null;
      // Max on a buy that graduates the curve: the migration's rent is left aside too.
      if (maxMode && side === 'buy' && !exactOut && graduates(res.best) && cur.quoteMint === SOL_MINT) {
        const max = spendable(true);
        if (max !== null && BigInt(r.amountIn) > max) {
          setUnits(max, qd, true);
          return null;
        }
      }
      lastQuote = { request: r, best: res.best, at: Date.now() };
      showError(null);
      showQuote(res.best);
      // The amount the quote was asked for, as sent: what the field's echo says.
      if (r.amountIn) quoteBox.dataset.amountIn = r.amountIn;
      else quoteBox.dataset.amountOut = r.amountOut;
      return lastQuote;
    } catch (e) {
      if (mine !== quoteSeq) return null;
      lastQuote = null;
      showQuote(null);
      showError(e);
      return null;
    }
  }
  const requote = debounce(fetchQuote, 250);
  amount.addEventListener('input', () => {
    maxMode = false;
    tradeStatus.textContent = '';
    confirmBox.checked = false;
    echo();
    requote();
  });

  /** Why the wallet cannot pay for `r` (a sentence), before anything is signed; null when it can or its
   * balances are unknown (the chain then has the last word). */
  function shortOfFunds(r, best) {
    if (!funds) return null;
    const sol = BigInt(funds.sol);
    // Exact out may take up to its maximum.
    const amountIn = BigInt(r.amountIn ?? best?.maxAmountIn ?? best?.amountIn ?? '0');
    const costs = costsOf(best);
    // While it runs the transaction also lends the temporary wrapped-SOL account its rent (returned).
    const solNeeded = costs.total + costs.returned;
    if (side === 'buy' && cur.quoteMint === SOL_MINT) {
      if (amountIn + solNeeded > sol) {
        return `Your wallet has ${units(funds.sol, 9, 9)} SOL; this buy needs ${units(String(amountIn + solNeeded), 9, 9)} SOL with fees and rent.`;
      }
      return null;
    }
    if (side === 'buy' && amountIn > BigInt(funds.usdc ?? '0')) {
      return `Your wallet has ${units(funds.usdc ?? '0', qd)} ${q}; this buy needs ${units(String(amountIn), qd)} ${q}.`;
    }
    if (sol < solNeeded) {
      return `Your wallet has ${units(funds.sol, 9, 9)} SOL; this trade needs ${units(String(solNeeded), 9, 9)} SOL for fees and rent.`;
    }
    return null;
  }

  /** A quote for `r` as the API gives it now, without touching the panel. */
  async function quoteNow(r) {
    return (await post('/swap/quote', r)).best;
  }

  /** The panel's figures, stopped: the new quote is shown and the user clicks again to accept it. */
  function askAgain(fresh, request, why) {
    ++quoteSeq;
    lastQuote = { request, best: fresh, at: Date.now() };
    showQuote(fresh);
    const t = tokens();
    const words = {
      less: `The price moved since this quote: you would now receive about ${units(fresh.amountOut, t.outDec)} ${t.outSym}, below the minimum that was shown.`,
      dearer: `The price moved since this quote: it would now cost about ${units(fresh.amountIn, t.inDec)} ${t.inSym}, above the maximum that was shown.`,
      graduates: 'The curve moved since this quote: this buy now completes it, and pays the rent of the AMM pool it opens.',
      'no-longer-graduates': 'The curve moved since this quote: this buy no longer completes it.',
    }[why];
    tradeStatus.textContent = '';
    tradeError.hidden = false;
    put(tradeError, el('span', { class: 'explained', id: 'trade-moved', 'data-why': why }, words, el('strong', { class: 'next-step' }, ` Check the new figures and click ${side === 'buy' ? 'Buy' : 'Sell'} again.`)));
  }

  let submitting = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!session.wallet) return;
    submitting = true;
    // A re-quote still in flight never repaints the figures being signed.
    ++quoteSeq;
    submit.disabled = true;
    showError(null);
    // What is on screen as the user clicks: the transaction is built with exactly its minimum (exact out:
    // its maximum), or not at all.
    const shown = lastQuote;
    const r = request();
    try {
      if (!r) {
        tradeStatus.textContent = '';
        showError(new Error(typed().error || 'Enter an amount.'));
        return;
      }
      if (!shown || JSON.stringify(shown.request) !== JSON.stringify(r)) {
        // No figures on screen for this amount yet: show them first.
        tradeStatus.textContent = '';
        if (await fetchQuote()) {
          tradeError.hidden = false;
          put(tradeError, el('span', { class: 'explained', id: 'trade-moved', 'data-why': 'new' }, 'Here is the quote for this amount.', el('strong', { class: 'next-step' }, ' Check it and click again.')));
        }
        return;
      }
      const lacking = shortOfFunds(shown.request, shown.best);
      if (lacking) {
        tradeStatus.textContent = '';
        tradeError.hidden = false;
        put(tradeError, el('span', { class: 'explained', id: 'trade-unfunded' }, lacking,
          ctx.config?.localnet ? el('strong', { class: 'next-step' }, ' ', el('a', { href: '#/wallet' }, 'Get SOL and USDC from the faucet'), '.') : null));
        return;
      }
      const warning = costly(shown.best, impactOf(shown.best));
      if (warning && !confirmBox.checked) {
        tradeStatus.textContent = '';
        showError(new Error(`This trade has ${warning}: tick the box above to go ahead, or trade a smaller amount.`));
        confirmBox.focus();
        return;
      }
      // The quote shown may be old, or the pool moved: it is read again, and signed only when it still
      // gives what was shown.
      tradeStatus.textContent = 'Checking the price…';
      const fresh = await quoteNow(r);
      const check = stillAsShown(shown.best, fresh, exactOut);
      if (!check.ok) {
        askAgain(fresh, r, check.why);
        return;
      }
      tradeStatus.textContent = 'Building the transaction…';
      const buildBody = {
        request: r,
        route: fresh.route,
        minAmountOut: shown.best.minAmountOut,
        priorityLevel: priority,
      };
      if (exactOut) buildBody.maxAmountIn = shown.best.maxAmountIn;
      // The referral this browser arrived with is paid by curve trades; a referral the chain cannot pay
      // (no account yet, or the trader itself) never stops the trade.
      const ref = referrer();
      let built;
      try {
        built = await post('/swap/build', ref && ref !== session.wallet.address ? { ...buildBody, referrer: ref } : buildBody);
      } catch (e) {
        if (!(e instanceof ApiError) || !['REFERRER_ACCOUNT_MISSING', 'SELF_REFERRAL'].includes(e.code)) throw e;
        built = await post('/swap/build', buildBody);
      }
      // The signed figures, kept for anyone checking the page against the chain.
      tradeStatus.dataset.minAmountOut = buildBody.minAmountOut;
      tradeStatus.dataset.priorityLevel = buildBody.priorityLevel;
      if (buildBody.maxAmountIn) tradeStatus.dataset.maxAmountIn = buildBody.maxAmountIn;
      const fees = BigInt(built.estimatedGas?.lamports ?? '0');
      tradeStatus.textContent = `Waiting for your wallet to sign (fees at most ${units(String(fees), 9, 9)} SOL)…`;
      const signature = await signAndSubmit(session.wallet, built.solanaTransaction);
      put(tradeStatus, `${side === 'buy' ? 'Bought' : 'Sold'}${built.migrates ? ': the curve graduated and migrated to the AMM' : ''}. Transaction ${short(signature)} `, explorerLink(explorer, 'tx', signature));
      tradeStatus.dataset.signature = signature;
      amount.value = '';
      maxMode = false;
      lastQuote = null;
      echo();
      showQuote(null);
      refresh();
      window.dispatchEvent(new Event('launchpad:balances'));
    } catch (e) {
      tradeStatus.textContent = '';
      showError(e);
    } finally {
      submitting = false;
      submit.disabled = !session.wallet;
    }
  });

  // Painting
  function paintStats() {
    put(stats, 
      stat('Market cap', usd(view.marketCapUsd) ?? `${compact(view.marketCap)} ${q}`, 'stat-mcap'),
      stat('Market cap in ' + q, `${compact(view.marketCap)} ${q}`, 'stat-mcap-quote'),
      stat('Price', `${price(view.price)} ${q}`, 'stat-price'),
      stat('Price in USD', usd(view.priceUsd) ?? '–', 'stat-price-usd'),
      stat('All-time high', view.athPrice ? `${price(view.athPrice)} ${q}` : '–'),
      stat('24h change', view.priceChange24h ? `${view.priceChange24h}%` : '–'),
      stat('24h volume', `${units(view.volume24hQuote, qd, 2)} ${q}${view.volume24hUsd != null ? ` (${usd(view.volume24hUsd)})` : ''}`),
      stat('24h trades', String(view.trades24h ?? 0)),
      stat('Holders', String(view.holders?.holderCount ?? 0), 'stat-holders'),
      stat('Age', age(view.createdAt)),
    );
  }

  // The shield fee's next step, counted down (by this browser's clock against the chain's `feeChangesAt`).
  const feeCountdown = el('span', { id: 'fee-countdown' });
  function paintCountdown() {
    if (cur.feeChangesAt == null) return;
    const left = Math.max(0, Math.round(cur.feeChangesAt - Date.now() / 1000));
    feeCountdown.textContent = `Next step in ${left} s.`;
  }
  function paintCurve() {
    paintCountdown();
    const amm = cur.venue === 'amm';
    venue.textContent = amm ? 'AMM' : cur.status === 'complete' ? 'Graduated, migrating' : 'Bonding curve';
    venue.className = `badge ${cur.status}`;
    const left = BigInt(cur.graduationThreshold) - BigInt(cur.quoteRaised);
    // The fee as the chain charges it: the API reads it at the chain's clock, which can differ from this
    // browser's; `feeChangesAt` is set while it still decays.
    const decaying = !amm && cur.feeChangesAt != null;
    put(curveBox, 
      el('h2', { id: 'curve-h' }, amm ? 'Graduated' : 'Bonding curve'),
      progressBar(cur.progressBps, 'curve progress to graduation'),
      el('p', { class: 'big', id: 'progress-text' }, `${bps(cur.progressBps)}`),
      el(
        'dl',
        { class: 'stats' },
        stat('Raised', `${units(cur.quoteRaised, qd)} of ${units(cur.graduationThreshold, qd)} ${q}`, 'curve-raised'),
        amm
          ? stat('Trading on', 'the AMM (liquidity locked forever)', 'curve-left')
          : stat('Left to graduation', `${units(left > 0n ? String(left) : '0', qd)} ${q}`, 'curve-left'),
        // The fee of the pool a trade goes through now: the AMM pool's after migration, the curve's before.
        amm
          ? stat('AMM fee', cur.ammFeeBps != null ? bps(cur.ammFeeBps) : '–', 'current-fee')
          : stat('Fee now', bps(cur.currentFeeBps), 'current-fee'),
        amm ? null : stat('Final fee', bps(cur.finalFeeBps), 'final-fee'),
        stat('Preset', cur.preset),
      ),
      decaying
        ? el('p', { class: 'muted', id: 'fee-decay' }, `Launch fee by the chain's clock: ${bps(cur.currentFeeBps)} now, a step lower every minute until ${bps(cur.finalFeeBps)}. `, feeCountdown)
        : null,
      amm && cur.ammPool ? el('p', { class: 'muted mono' }, `AMM pool ${short(cur.ammPool)}`) : null,
    );
  }

  function paintTrades(list) {
    tradesEmpty.hidden = list.length > 0;
    put(tradesBody, 
      ...list.map((t) =>
        el(
          'tr',
          { class: `trade-row ${t.side}`, 'data-signature': t.signature },
          el('td', {}, explorerLink(explorer, 'tx', t.signature, age(t.time)) ?? age(t.time)),
          el('td', { class: t.side }, t.side),
          el('td', { class: 'trader' }, el('a', { href: `#/wallet/${t.wallet}` }, short(t.wallet))),
          el('td', { class: 'num' }, units(t.baseAmount, TOKEN_DECIMALS, 2)),
          el('td', { class: 'num' }, withUsd(units(t.quoteAmount, qd), t.quoteAmount)),
          el('td', { class: 'num' }, price(t.priceAfter)),
          el('td', {}, t.venue === 'amm' ? 'AMM' : 'curve'),
        ),
      ),
    );
    // Traders' profile names, once known (addresses until then), as on the holders.
    profileNames(list.map((t) => t.wallet)).then((names) => {
      tradesBody.querySelectorAll('td.trader > a[href^="#/wallet/"]').forEach((a) => {
        const wallet = a.getAttribute('href').slice('#/wallet/'.length);
        if (names.get(wallet)) a.replaceWith(who(wallet, names.get(wallet)));
      });
    });
  }

  function paintHolders() {
    const h = view.holders;
    if (!h) return;
    holdersInfo.textContent = `${h.holderCount} holder${h.holderCount === 1 ? '' : 's'} · top 10 hold ${share(h.top10Share)} · creator ${share(h.creatorShare)}`;
    // The pools' vaults first, labelled (they hold what is for sale, not a holder's tokens), then wallets.
    const vaults = (h.vaults ?? []).map((v) =>
      el(
        'li',
        { class: 'vault', 'data-kind': v.kind },
        el('span', { class: 'mono', title: v.tokenAccount }, v.kind === 'curve' ? 'Bonding curve' : 'AMM pool'),
        el('span', { class: 'badge' }, 'vault'),
        el('span', { class: 'num' }, share(v.share)),
      ),
    );
    put(holdersList,
      ...vaults,
      ...h.holders.slice(0, 10).map((x) =>
        el(
          'li',
          {},
          el('a', { href: `#/wallet/${x.owner}` }, short(x.owner)),
          x.owner === view.creator ? el('span', { class: 'badge creator' }, 'creator') : null,
          session.wallet?.address === x.owner ? el('span', { class: 'badge you' }, 'you') : null,
          el('span', { class: 'num' }, share(x.share)),
        ),
      ),
    );
    // Holders' profile names, once known (addresses until then).
    const owners = h.holders.slice(0, 10).map((x) => x.owner);
    profileNames(owners).then((names) => {
      holdersList.querySelectorAll('li > a[href^="#/wallet/"]').forEach((a) => {
        const owner = a.getAttribute('href').slice('#/wallet/'.length);
        if (names.get(owner)) a.replaceWith(who(owner, names.get(owner)));
      });
    });
  }

  let chart = null;
  async function loadCandles() {
    const r = await get(`/launchpad/candles/${mint}${qs({ interval, limit: 300 })}`);
    chartEmpty.hidden = r.candles.length > 0;
    chart?.set(r.candles, qd);
    const last = r.candles[r.candles.length - 1];
    chartBox.setAttribute('aria-label', `Price chart, ${interval} candles`);
    chartSummary.textContent = last
      ? `Latest price ${price(view.price)} ${q} per ${view.symbol}${view.priceUsd ? ` (${usd(view.priceUsd)})` : ''}; 24h change ${view.priceChange24h ? `${view.priceChange24h}%` : '–'}; ${r.candles.length} ${interval} candle${r.candles.length === 1 ? '' : 's'} shown.`
      : '';
  }

  async function loadHeld() {
    if (!session.wallet) {
      held = '0';
      return;
    }
    const w = await get(`/launchpad/wallets/${session.wallet.address}`);
    held = w.holdings.find((h) => h.mint === mint)?.amount || '0';
    funds = w.balances ?? null;
  }

  let busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    const epoch = roleEpoch;
    try {
      const [v, c, t] = await Promise.all([
        get(`/launchpad/tokens/${mint}`),
        get(`/launchpad/curve/${mint}`),
        get(`/launchpad/trades/${mint}?limit=30`),
        loadCandles(),
        loadHeld(),
      ]);
      // A role event that arrived meanwhile is newer than this answer's creator and shares.
      view = epoch === roleEpoch ? v : { ...v, creator: view.creator, pendingCreator: view.pendingCreator, feeShares: view.feeShares };
      cur = c;
      paintLinks();
      paintStats();
      paintCurve();
      paintTrades(t.trades);
      paintHolders();
      paintPanel();
      paintCreator();
    } catch (e) {
      console.error('refresh failed', e);
    } finally {
      busy = false;
    }
  }

  // The thread: signed comments, live.
  const thread = commentsPanel(ctx, mint, { symbol: view.symbol, decimals: TOKEN_DECIMALS });
  // The connected wallet's position in this token (average entry, PnL), read again with the page.
  const position = positionPanel(mint);
  const loadPosition = () => position.load(session.wallet?.address);
  put(main, 
    head,
    stats,
    el(
      'div',
      { class: 'token-grid' },
      el(
        'div',
        { class: 'col' },
        el('section', { class: 'panel', id: 'chart-panel', 'aria-label': 'Chart' }, el('div', { class: 'chips', role: 'group', 'aria-label': 'Candle interval' }, intervalButtons), el('p', { class: 'muted small' }, `Price in ${q} per ${view.symbol}; volume in ${q}`), chartBox, chartSummary, chartEmpty),
        el(
          'section',
          { class: 'panel', id: 'trades-panel', 'aria-labelledby': 'trades-h' },
          el('h2', { id: 'trades-h' }, 'Trades'),
          el(
            'div',
            { class: 'table-wrap' },
            el(
              'table',
              {},
              el('thead', {}, el('tr', {}, ['Age', 'Side', 'Wallet', view.symbol, q, 'Price', 'Venue'].map((h) => el('th', { scope: 'col' }, h)))),
              tradesBody,
            ),
          ),
          tradesEmpty,
        ),
        thread.node,
      ),
      el(
        'div',
        { class: 'col side' },
        form,
        position.section,
        curveBox,
        el('section', { class: 'panel', id: 'holders-panel', 'aria-labelledby': 'holders-h' }, el('h2', { id: 'holders-h' }, 'Top holders'), holdersInfo, holdersList),
        creatorBox,
      ),
    ),
  );
  chart = candleChart(chartBox);
  launchImage(mint, view.metadataUri).then((image) => !view.image && image && avatar.replaceWith(tokenAvatar(view, image)));
  paintStats();
  paintCurve();
  paintPanel();
  paintHolders();
  paintCreator();
  await refresh();
  loadPosition();
  if (signal?.aborted) {
    chart?.remove();
    return null;
  }
  const refreshSoon = debounce(refresh, 200);
  const positionSoon = debounce(loadPosition, 500);
  // Every trade of this token moves its price: the quote on screen is read again at once (and the page's
  // figures with it), so what a click signs is what the pool gives now.
  const stop = watch(
    { kinds: ['trade', 'curve', 'complete', 'migrate'], mints: [mint] },
    {
      onEvent: () => {
        refreshSoon();
        positionSoon();
        if (lastQuote && !submitting) requote();
      },
      refresh: () => {
        refresh();
        if (lastQuote && !submitting) requote();
      },
    },
  );
  // The creator role and the fee shares: pushed by the feed (`creator`, `fee-shares`) with the state after the
  // change, painted at once without reading the token again.
  const stopRoles = watch({ kinds: ['creator', 'fee-shares'], mints: [mint] }, { onEvent: roleChanged, refresh });
  const unsub = session.onChange(() => {
    paintPanel();
    loadPosition();
  });
  // A decaying launch fee changes with the chain's time, trade or no trade: the curve (and the quote on
  // screen) are read again every few seconds while it decays; any quote is read again once it is old.
  let ticks = 0;
  const feeTimer = setInterval(() => {
    // Holders (a transfer is no trade) and the dollar price move without a feed event of this token: read
    // again every 15 s besides.
    if (cur.feeChangesAt != null || ++ticks % 3 === 0) refreshSoon();
    const stale = lastQuote && Date.now() - lastQuote.at > QUOTE_FRESH_MS;
    if (!submitting && lastQuote && (cur.feeChangesAt != null || stale)) requote();
  }, 5000);
  const countdownTimer = setInterval(paintCountdown, 1000);
  return () => {
    clearInterval(countdownTimer);
    clearInterval(feeTimer);
    stop();
    stopRoles();
    thread.stop();
    unsub();
    chart?.remove();
  };
}
