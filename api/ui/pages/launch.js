// The launch form: prepare (the API builds the transaction), sign with the wallet, submit, record (lists the
// token). Fields are checked as they are typed with the API's own rules (`rules` below), errors shown on the
// field; the API checks again, and its errors land on the field they name.
import { get, post, errorView, signAndSubmit, ApiError } from '../api.js';
import { el, put, parseAmount, units } from '../format.js';
import { rules as fieldRules, imageError, parseFeeShares } from '../rules.js';
import { launchRent, metadataUri, swapCosts, SIGNATURE_FEE } from '../costs.js';

const rules = { ...fieldRules, firstBuyAmount: (v) => (v.trim() ? parseAmount(v, 6).error ?? null : null) };

const PRESETS = [
  ['fair', 'Fair', 'One curve segment with even liquidity and a fixed 1% fee: the simplest, most predictable price path.'],
  ['shield', 'Shield', 'An anti-sniper fee: 50% at launch, stepping down every minute to 1% after 10 minutes.'],
  ['distribute', 'Distribute', 'Three segments weighted 1, 4, 1: most liquidity in the middle spreads the supply across more buyers; fixed 1% fee.'],
];

/** Which field an API error is about: its code, else the field its message names. */
const CODE_FIELDS = {
  INVALID_NAME: 'name',
  INVALID_SYMBOL: 'symbol',
  INVALID_DESCRIPTION: 'description',
  INVALID_IMAGE: 'image',
  PAYLOAD_TOO_LARGE: 'image',
  INVALID_AMOUNT: 'firstBuyAmount',
  INVALID_FEE_SHARES: 'feeShares',
};
const FIELDS = ['name', 'symbol', 'description', 'image', 'website', 'twitter', 'telegram', 'firstBuyAmount', 'feeShares'];
function fieldOf(e) {
  if (!(e instanceof ApiError)) return null;
  if (CODE_FIELDS[e.code]) return CODE_FIELDS[e.code];
  const named = String(e.message).match(/`([A-Za-z]+)`/);
  return named && FIELDS.includes(named[1]) ? named[1] : null;
}

function field(label, input, hint) {
  const id = input.id || `f-${input.name}`;
  input.id = id;
  const err = el('p', { class: 'field-error', id: `err-${input.name}`, role: 'alert', hidden: true });
  input.setAttribute('aria-describedby', `err-${input.name}`);
  return el('div', { class: 'field' }, el('label', { for: id }, label), input, err, hint ? el('p', { class: 'hint muted' }, hint) : null);
}

export async function render(main, ctx) {
  const session = ctx.session;
  const input = (name, attrs = {}) => el('input', { name, autocomplete: 'off', ...attrs });
  const image = el('input', { type: 'file', name: 'image', accept: 'image/png,image/jpeg,image/gif,image/webp' });
  const preview = el('img', { class: 'preview', alt: 'Image preview', hidden: true });
  let imageData = null;
  image.addEventListener('change', () => {
    const f = image.files?.[0];
    imageData = null;
    preview.hidden = true;
    if (!f) return;
    const reader = new FileReader();
    reader.onload = () => {
      imageData = reader.result;
      preview.src = imageData;
      preview.hidden = false;
    };
    if (imageError(f)) return;
    reader.readAsDataURL(f);
  });
  const presets = el(
    'fieldset',
    { class: 'presets' },
    el('legend', {}, 'Preset'),
    PRESETS.map(([v, t, d], i) =>
      el('label', { class: 'choice' }, el('input', { type: 'radio', name: 'curvePreset', value: v, checked: i === 0 }), el('strong', {}, t), el('span', { class: 'muted' }, d)),
    ),
  );
  const quotes = el(
    'fieldset',
    { class: 'presets' },
    el('legend', {}, 'Quote'),
    el('label', { class: 'choice' }, el('input', { type: 'radio', name: 'quote', value: 'sol', checked: true }), el('strong', {}, 'SOL'), el('span', { class: 'muted' }, 'graduates at 10 SOL raised')),
    el('label', { class: 'choice' }, el('input', { type: 'radio', name: 'quote', value: 'usdc' }), el('strong', {}, 'USDC'), el('span', { class: 'muted' }, 'graduates at 750 USDC raised')),
  );
  const error = el('p', { class: 'error', id: 'launch-error', role: 'alert', hidden: true });
  // What a first buy costs with the chosen preset: on a shield launch it pays the launch-minute fee.
  const firstBuyNote = el('p', { class: 'muted', id: 'first-buy-note', 'aria-live': 'polite' });
  // The rent the launch leaves in the accounts it makes (the creator pays it), as the fields change.
  const rentNote = el('p', { class: 'muted', id: 'launch-rent', 'aria-live': 'polite' });
  const steps = el('ol', { class: 'steps', id: 'launch-steps', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'primary', id: 'launch-submit' }, 'Launch');
  const form = el(
    'form',
    { class: 'panel launch', id: 'launch-form', novalidate: true },
    field('Name', input('name', { placeholder: 'My Token' }), 'Up to 32 characters.'),
    field('Symbol', input('symbol', { placeholder: 'MYTKN', autocapitalize: 'characters' }), 'Up to 10 characters, A to Z and 0 to 9.'),
    field('Description', el('textarea', { name: 'description', rows: 3 }), 'Up to 1000 characters.'),
    field('Image', image, 'PNG, JPEG, GIF or WebP, at most 1 MiB.'),
    preview,
    field('Website', input('website', { type: 'url', placeholder: 'https://' })),
    field('X (Twitter)', input('twitter', { type: 'url', placeholder: 'https://x.com/handle' })),
    field('Telegram', input('telegram', { type: 'url', placeholder: 'https://t.me/name' })),
    presets,
    quotes,
    field('First buy', input('firstBuyAmount', { inputmode: 'decimal', placeholder: '0' }), 'Optional: bought in the same transaction, in whole SOL or USDC (a point or a comma for decimals, at most 6).'),
    firstBuyNote,
    field(
      'Share creator fees',
      el('textarea', { name: 'feeShares', rows: 3, placeholder: 'Optional: one wallet and its percent per line, e.g.\nWALLET_A 50\nWALLET_B 50' }),
      'Optional: your half of every trading fee (and of the locked LP\'s fees after graduation) split among up to 10 wallets, adding up to 100%. Each claims its own share. Without it, the fees are yours.',
    ),
    el('label', { class: 'choice' }, el('input', { type: 'checkbox', name: 'lockFeeShares', id: 'f-lockFeeShares' }), el('strong', {}, 'Lock the shares'), el('span', { class: 'muted' }, 'final: nobody, you included, can change them later')),
    el('p', { class: 'muted' }, 'Supply: 1,000,000,000 tokens with 6 decimals; no mint authority; metadata cannot change. At graduation the pool migrates to the AMM with its liquidity locked forever.'),
    rentNote,
    submit,
    error,
    steps,
  );

  function noteFirstBuy() {
    const data = new FormData(form);
    const text = String(data.get('firstBuyAmount') || '').trim();
    const a = text ? parseAmount(text, 6) : null;
    const q = data.get('quote') === 'usdc' ? 'USDC' : 'SOL';
    firstBuyNote.classList.toggle('warn', data.get('curvePreset') === 'shield' && !!a?.units);
    if (a?.error) firstBuyNote.textContent = a.error;
    else if (data.get('curvePreset') === 'shield') {
      firstBuyNote.textContent = a?.units
        ? `A shield launch charges its first minute's 50% fee on the first buy too: of ${a.text} ${q}, about half goes to fees (half of those come back to you as the creator's share, so about a quarter is lost). Buy after ten minutes to pay 1%.`
        : 'A shield launch charges 50% in its first minute, the first buy included, falling to 1% after ten minutes.';
    } else firstBuyNote.textContent = a?.units ? `= ${a.text} ${q}` : '';
  }
  form.addEventListener('input', noteFirstBuy);
  form.addEventListener('change', noteFirstBuy);

  const sol = (l) => `${units(String(l), 9, 9)} SOL`;
  /** The launch's rent, with `uri` the metadata URI (before prepare: the longest this server makes). */
  function noteRent(uri) {
    const data = new FormData(form);
    const base = ctx.config?.publicBaseUrl || location.origin;
    const launchCost = launchRent({
      name: String(data.get('name') || ''),
      symbol: String(data.get('symbol') || ''),
      uri: uri ?? metadataUri(base),
      feeShares: !!parseFeeShares(String(data.get('feeShares') || '')).shares,
    });
    const text = String(data.get('firstBuyAmount') || '').trim();
    const buying = !!(text && parseAmount(text, 6).units);
    // A first buy opens the creator's token account (its wrapped SOL account comes back in the same transaction).
    const buyRent = buying
      ? swapCosts({ side: 'buy', solQuote: data.get('quote') !== 'usdc', holdsTokenAccount: false, holdsQuoteAccount: true, completes: false, priority: 'none' }).rent
      : [];
    const parts = [...launchCost.rent, ...buyRent];
    const total = parts.reduce((t, r) => t + r.lamports, 0n);
    rentNote.dataset.lamports = String(total);
    rentNote.dataset.exact = uri ? 'true' : 'false';
    rentNote.textContent =
      `Rent: ${uri ? '' : 'about '}${sol(total)}, kept by the accounts this launch makes (${parts.map((r) => `${r.what} ${sol(r.lamports)}`).join(', ')}); ` +
      `with the network fee (${sol(SIGNATURE_FEE)}) and any priority fee, it leaves your wallet${buying ? ' besides the first buy' : ''}.`;
  }
  form.addEventListener('input', () => noteRent());
  form.addEventListener('change', () => noteRent());
  noteRent();

  /** Shows `message` on the field `name` (null clears it); returns whether it is valid. */
  function mark(name, message) {
    const box = form.querySelector(`#err-${name}`);
    const target = form.elements[name];
    if (!box || !target) return !message;
    box.hidden = !message;
    box.textContent = message ? message.replace(/`/g, '') : '';
    target.setAttribute('aria-invalid', message ? 'true' : 'false');
    return !message;
  }
  function check(name) {
    if (name === 'image') return mark('image', imageError(image.files?.[0]));
    const rule = rules[name];
    return rule ? mark(name, rule(String(form.elements[name].value ?? ''))) : true;
  }
  // As the user types: each field is checked on input (a field left empty is flagged once left).
  const touched = new Set();
  form.addEventListener('input', (ev) => {
    const name = ev.target?.name;
    if (name === 'symbol') {
      // Symbols are uppercase: shown as they will be sent.
      const at = ev.target.selectionStart;
      ev.target.value = ev.target.value.toUpperCase();
      ev.target.setSelectionRange(at, at);
    }
    if (name && (touched.has(name) || String(ev.target.value).trim())) check(name);
  });
  form.addEventListener('focusout', (ev) => {
    const name = ev.target?.name;
    if (name && rules[name]) {
      touched.add(name);
      check(name);
    }
  });
  image.addEventListener('change', () => check('image'));

  const step = (text) => {
    const li = el('li', {}, text);
    steps.append(li);
    return li;
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    put(steps, );
    if (!session.wallet) {
      error.hidden = false;
      error.textContent = 'Connect a wallet first: it signs the launch transaction.';
      return;
    }
    // Every field checked; the first wrong one takes the focus, and nothing is sent.
    const wrong = FIELDS.filter((name) => !check(name));
    if (wrong.length) {
      form.elements[wrong[0]]?.focus();
      error.hidden = false;
      error.textContent = `Fix ${wrong.length === 1 ? 'the field marked' : `the ${wrong.length} fields marked`} above first.`;
      return;
    }
    const data = new FormData(form);
    const body = {
      chainKey: 'solana',
      launchType: 'bonding-curve',
      curvePreset: data.get('curvePreset'),
      quote: data.get('quote'),
      name: String(data.get('name') || ''),
      symbol: String(data.get('symbol') || ''),
      description: String(data.get('description') || ''),
      totalSupply: '1000000000',
      creator: session.wallet.address,
    };
    for (const k of ['website', 'twitter', 'telegram']) {
      const v = String(data.get(k) || '').trim();
      if (v) body[k] = v;
    }
    const firstBuy = String(data.get('firstBuyAmount') || '').trim();
    if (firstBuy) {
      // Sent as read (`1,5` is 1.5), never as typed.
      const a = parseAmount(firstBuy, 6);
      if (a.error) {
        error.hidden = false;
        error.textContent = `First buy: ${a.error}`;
        return;
      }
      body.firstBuyAmount = a.text;
    }
    const shared = parseFeeShares(String(data.get('feeShares') || ''));
    if (shared.shares) {
      body.feeShares = shared.shares;
      body.lockFeeShares = data.get('lockFeeShares') === 'on';
    }
    submit.disabled = true;
    try {
      let s = step('Preparing: the API validates the launch and builds its transaction…');
      const prepared = await post('/launchpad/prepare', imageData ? { ...body, image: imageData } : body);
      s.textContent = `Prepared: mint ${prepared.mint}`;
      // The exact rent, now that the metadata URI (and so the mint's size) is known.
      noteRent(prepared.metadataURI);
      s = step('Signing with your wallet and submitting…');
      const signature = await signAndSubmit(session.wallet, prepared.solanaTransaction);
      s.textContent = `Launched: transaction ${signature}`;
      s = step('Recording: listing it on the launchpad…');
      const record = { ...body, tokenAddress: prepared.mint, deployTxHash: signature, metadataURI: prepared.metadataURI };
      for (let attempt = 0; ; attempt++) {
        try {
          await post('/launchpad/record', record);
          break;
        } catch (e) {
          if (!(e instanceof ApiError) || e.code !== 'NOT_CONFIRMED' || attempt >= 20) throw e;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      s.textContent = 'Listed.';
      location.hash = `#/token/${prepared.mint}`;
    } catch (e) {
      error.hidden = false;
      put(error, errorView(e, { localnet: !!ctx.config?.localnet }));
      // The API's error on the field it names, which takes the focus.
      const name = fieldOf(e);
      if (name) {
        mark(name, e.message);
        form.elements[name]?.focus();
      }
    } finally {
      submit.disabled = false;
    }
  });

  const fundNotice = el(
    'p',
    { class: 'notice', id: 'fund-notice', hidden: true },
    'This wallet has no SOL yet: ',
    ctx.config?.localnet ? el('span', {}, 'fund it from the localnet faucet on the ', el('a', { href: '#/wallet' }, 'wallet page'), '.') : 'send it some SOL to pay for the launch.',
  );
  put(main, 
    el('h1', {}, 'Launch a token'),
    session.wallet ? null : el('p', { class: 'notice' }, 'Connect a wallet (the button in the header) to launch: it signs the transaction the API builds.'),
    fundNotice,
    form,
  );
  // Only an empty wallet is told to visit the faucet.
  if (session.wallet) {
    get(`/launchpad/wallets/${session.wallet.address}`)
      .then((w) => {
        fundNotice.hidden = !(w.balances && BigInt(w.balances.sol) === 0n);
      })
      .catch(() => {});
  }
}
