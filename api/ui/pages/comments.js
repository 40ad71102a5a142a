// The token page's thread: signed comments and replies (docs/api.md, "Signed messages"), newest or top first,
// live from the feed (`kind: comment`), with the authors' profile names and holder badges. Text is shown as
// text (text nodes), never as HTML. Also the profile names the page shows beside holders.

import { get, post, qs, errorText, request } from '../api.js';
import { el, put, age, short, units } from '../format.js';
import { watch } from '../feed.js';

const enc = new TextEncoder();

async function sha256Hex(text) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(text)));
  return [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function nonce() {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** The comment message exactly as docs/api.md writes it. */
export async function commentMessage({ domain, wallet, mint, replyTo, text, nonce, expiresAt }) {
  return `${domain} wants you to post a comment with your Solana account:\n${wallet}\n\nToken: ${mint}\n` +
    `Reply to: ${replyTo ?? 'none'}\nText SHA-256: ${await sha256Hex(text)}\nNonce: ${nonce}\nExpiration Time: ${expiresAt}`;
}

/** The profile message exactly as docs/api.md writes it (`avatarHash`: hex SHA-256 of the image bytes, or null). */
export function profileMessage({ domain, wallet, name, avatarHash, nonce, expiresAt }) {
  return `${domain} wants you to set your profile with your Solana account:\n${wallet}\n\nName: ${name}\n` +
    `Avatar SHA-256: ${avatarHash ?? 'none'}\nNonce: ${nonce}\nExpiration Time: ${expiresAt}`;
}

/** Display names and avatars by wallet, asked once per wallet per page view. */
const profiles = new Map();
export async function profileNames(wallets) {
  const missing = [...new Set(wallets)].filter((w) => w && !profiles.has(w)).slice(0, 100);
  if (missing.length) {
    try {
      const r = await get(`/launchpad/profiles${qs({ wallets: missing.join(',') })}`);
      missing.forEach((w) => profiles.set(w, null));
      r.profiles.forEach((p) => profiles.set(p.wallet, p));
    } catch {
      // Names are decoration: without them the page shows addresses.
    }
  }
  return profiles;
}

/** A wallet as a link: its display name (and avatar) when it has one, else its short address. */
export function who(wallet, profile) {
  return el(
    'a',
    { href: `#/wallet/${wallet}`, class: 'who', title: wallet },
    profile?.avatar ? el('img', { class: 'avatar-xs', src: profile.avatar, alt: '' }) : null,
    profile?.name ?? short(wallet),
  );
}

/** Signs and posts a comment with the connected wallet. */
async function send(wallet, mint, text, replyTo) {
  if (!wallet.signMessage) throw new Error(`${wallet.name} cannot sign messages`);
  const n = nonce();
  const expiresAt = Math.floor(Date.now() / 1000) + 300;
  const message = await commentMessage({ domain: location.host, wallet: wallet.address, mint, replyTo, text, nonce: n, expiresAt });
  const signature = await wallet.signMessage(enc.encode(message));
  return post(`/launchpad/tokens/${mint}/comments`, { wallet: wallet.address, text, replyTo: replyTo ?? undefined, nonce: n, expiresAt, signature });
}

/** The thread panel of `mint`; returns `{ node, stop }`. */
export function commentsPanel(ctx, mint, { symbol = '', decimals = 6 } = {}) {
  const session = ctx.session;
  let order = 'newest';
  let comments = [];
  let next = null;
  const list = el('ol', { class: 'comments', id: 'comments' });
  const empty = el('p', { class: 'muted', id: 'comments-empty' }, 'No comments yet.');
  const status = el('p', { class: 'muted small', id: 'comment-status', role: 'status' });
  const text = el('textarea', { id: 'comment-text', maxlength: 500, rows: 3, placeholder: 'Say something (plain text, 500 characters)', 'aria-label': 'Comment' });
  const more = el('button', { type: 'button', class: 'ghost', id: 'comments-more', hidden: true }, 'More');
  let replyTo = null;
  const replying = el('p', { class: 'small', id: 'comment-replying', hidden: true });

  const entry = (c, names) =>
    el(
      'div',
      { class: 'comment-body' },
      el(
        'p',
        { class: 'comment-meta small' },
        who(c.wallet, names.get(c.wallet) ?? (c.name ? { name: c.name, avatar: c.avatar } : null)),
        BigInt(c.holding || '0') > 0n ? el('span', { class: 'badge holder', title: `held ${units(c.holding, decimals)} ${symbol} when posting` }, 'holder') : null,
        el('span', { class: 'muted' }, ` ${age(c.createdAt)}`),
      ),
      el('p', { class: 'comment-text' }, c.text),
    );

  async function paint() {
    const names = await profileNames(comments.flatMap((c) => [c.wallet, ...c.replies.map((r) => r.wallet)]));
    empty.hidden = comments.length > 0;
    more.hidden = !next;
    put(
      list,
      comments.map((c) =>
        el(
          'li',
          { 'data-id': c.id },
          entry(c, names),
          el('button', { type: 'button', class: 'ghost small', onclick: () => { replyTo = c.id; replying.hidden = false; put(replying, `Replying to #${c.id} `, el('button', { type: 'button', class: 'ghost small', onclick: () => { replyTo = null; replying.hidden = true; } }, 'cancel')); text.focus(); } }, `Reply${c.replyCount ? ` (${c.replyCount})` : ''}`),
          c.replies.length ? el('ol', { class: 'replies' }, c.replies.map((r) => el('li', { 'data-id': r.id }, entry(r, names)))) : null,
        ),
      ),
    );
  }

  async function load(append = false) {
    const r = await get(`/launchpad/tokens/${mint}/comments${qs({ order, limit: 20, cursor: append ? next : undefined })}`);
    comments = append ? [...comments, ...r.comments] : r.comments;
    next = r.nextCursor;
    await paint();
  }

  const orderButtons = ['newest', 'top'].map((o) =>
    el('button', { type: 'button', class: 'chip', 'data-order': o, 'aria-pressed': String(o === order), onclick: (e) => { order = o; orderButtons.forEach((b) => b.setAttribute('aria-pressed', String(b === e.currentTarget))); load(); } }, o === 'newest' ? 'Newest' : 'Top'),
  );
  more.addEventListener('click', () => load(true));

  const submit = el('button', { type: 'submit', id: 'comment-post' }, 'Post');
  const form = el(
    'form',
    { id: 'comment-form' },
    replying,
    text,
    submit,
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const wallet = session.wallet;
    if (!wallet) {
      status.textContent = 'Connect a wallet to comment: it signs the comment, nothing else.';
      return;
    }
    submit.disabled = true;
    status.textContent = 'Sign the comment in your wallet…';
    try {
      await send(wallet, mint, text.value, replyTo);
      text.value = '';
      replyTo = null;
      replying.hidden = true;
      status.textContent = 'Posted.';
      await load();
    } catch (err) {
      status.textContent = errorText(err);
    } finally {
      submit.disabled = false;
    }
  });

  const node = el(
    'section',
    { class: 'panel', id: 'comments-panel', 'aria-labelledby': 'comments-h' },
    el('h2', { id: 'comments-h' }, 'Thread'),
    el('div', { class: 'chips', role: 'group', 'aria-label': 'Comment order' }, orderButtons),
    form,
    empty,
    list,
    more,
  );
  load().catch((e) => (status.textContent = errorText(e)));
  const stop = watch(
    { kinds: ['comment'], mints: [mint] },
    {
      onEvent: (e) => {
        if (e.kind !== 'comment' || comments.some((c) => c.id === e.id || c.replies.some((r) => r.id === e.id))) return;
        const c = { id: e.id, mint, wallet: e.wallet, name: e.name, avatar: null, text: e.text, replyTo: e.replyTo, holding: e.holding, createdAt: e.time, replyCount: 0, replies: [] };
        if (e.replyTo == null) {
          if (order === 'newest') comments = [c, ...comments];
          else return void load();
        } else {
          const parent = comments.find((p) => p.id === e.replyTo);
          if (!parent) return;
          parent.replies = [...parent.replies, c];
          parent.replyCount += 1;
        }
        paint();
      },
      refresh: () => load(),
    },
  );
  return { node, stop };
}

/** The wallet page's profile: name, avatar, "launched N tokens"; an editor when the wallet is the connected one. */
export function profilePanel(ctx, wallet, own) {
  const head = el('div', { id: 'profile-view' }, 'Loading profile…');
  const status = el('p', { class: 'muted small', id: 'profile-status', role: 'status' });
  const name = el('input', { id: 'profile-name', maxlength: 24, placeholder: 'Display name (3 to 24 characters)', 'aria-label': 'Display name' });
  const file = el('input', { id: 'profile-avatar', type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp', 'aria-label': 'Avatar' });
  const save = el('button', { type: 'submit', id: 'profile-save' }, 'Save profile');
  const editor = own ? el('form', { id: 'profile-form' }, name, file, save, status) : null;

  async function load() {
    const p = await get(`/launchpad/profiles/${wallet}`);
    profiles.set(wallet, p.name ? p : null);
    put(
      head,
      p.avatar ? el('img', { class: 'avatar', src: p.avatar, alt: '', width: 64, height: 64 }) : null,
      el('strong', { id: 'profile-display-name' }, p.name ?? 'No name set'),
      el('p', { class: 'muted small', id: 'profile-launches' }, `Launched ${p.launchCount} token${p.launchCount === 1 ? '' : 's'}`),
      p.launches.length ? el('p', { class: 'small' }, 'Created by this wallet: ', p.launches.map((l, i) => [i ? ', ' : '', el('a', { href: `#/token/${l.mint}` }, l.symbol)])) : null,
    );
    if (own && p.name && !name.value) name.value = p.name;
  }

  editor?.addEventListener('submit', async (e) => {
    e.preventDefault();
    const w = ctx.session.wallet;
    if (!w?.signMessage) {
      status.textContent = 'Connect a wallet that signs messages.';
      return;
    }
    save.disabled = true;
    try {
      let avatar;
      let avatarHash = null;
      const f = file.files?.[0];
      if (f) {
        const bytes = new Uint8Array(await f.arrayBuffer());
        const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
        avatarHash = [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
        let bin = '';
        bytes.forEach((b) => (bin += String.fromCharCode(b)));
        avatar = btoa(bin);
      }
      const n = nonce();
      const expiresAt = Math.floor(Date.now() / 1000) + 300;
      status.textContent = 'Sign the profile in your wallet…';
      const message = profileMessage({ domain: location.host, wallet: w.address, name: name.value, avatarHash, nonce: n, expiresAt });
      const signature = await w.signMessage(enc.encode(message));
      await request('PUT', `/launchpad/profiles/${w.address}`, { name: name.value, avatar, nonce: n, expiresAt, signature });
      status.textContent = 'Saved.';
      await load();
    } catch (err) {
      status.textContent = errorText(err);
    } finally {
      save.disabled = false;
    }
  });

  load().catch((e) => put(head, errorText(e)));
  return el('section', { class: 'panel', id: 'profile-panel' }, el('h2', {}, 'Profile'), head, editor);
}
