// The creator role's tools on a token page, for the wallet that holds the role (or is proposed for it): hand
// the role to another wallet (two steps: propose, then that wallet accepts), and share the creator fees
// among up to 10 wallets or change them until they are locked. Every action is an unsigned transaction the
// API builds and the connected wallet signs.
import { post, errorView, signAndSubmit } from '../api.js';
import { el, put, short } from '../format.js';
import { parseFeeShares } from '../rules.js';

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The panel for `view` (the token view) and the connected wallet, or null when it holds no role here. */
export function creatorPanel({ view, session, localnet, onDone }) {
  const me = session.wallet?.address;
  if (!me || (me !== view.creator && me !== view.pendingCreator)) return null;
  const status = el('p', { class: 'ok', id: 'creator-status', role: 'status' });
  const error = el('p', { class: 'error', id: 'creator-error', role: 'alert', hidden: true });
  const showError = (e) => {
    error.hidden = !e;
    put(error, e ? errorView(e, { localnet }) : '');
  };
  /** Builds, signs and sends one action; `confirmed` is the success message the page shows once the live
   * feed reports the transaction indexed. */
  async function act(button, what, path, body, confirmed) {
    button.disabled = true;
    showError(null);
    status.textContent = `${what}: building the transaction…`;
    try {
      const built = await post(path, body);
      status.textContent = `${what}: waiting for your wallet to sign…`;
      const signature = await signAndSubmit(session.wallet, built.solanaTransaction);
      status.textContent = `${what}: sent. Transaction ${short(signature)}`;
      status.dataset.signature = signature;
      // The page keeps the message where a redrawn panel cannot take it away, and confirms it when the
      // feed reports the change.
      onDone?.(`${what}: sent (transaction ${short(signature)}), waiting for it to be confirmed…`, signature, confirmed);
    } catch (e) {
      status.textContent = '';
      showError(e);
    } finally {
      button.disabled = false;
    }
  }

  const parts = [];
  if (me === view.pendingCreator) {
    const accept = el('button', { type: 'button', class: 'primary', id: 'creator-accept' }, 'Accept the creator role');
    accept.addEventListener('click', () => act(accept, 'Accepting the creator role', '/launchpad/creator/accept', { pool: view.pool, newCreator: me }, 'You hold the creator role now: its fees are yours to claim.'));
    parts.push(el('p', {}, `${short(view.creator)} proposed you as this token's creator: from acceptance on, its creator fees and the locked position's fees are yours to claim.`), accept);
  }
  if (me === view.creator) {
    const to = el('input', { name: 'newCreator', id: 'f-newCreator', autocomplete: 'off', placeholder: 'wallet address' });
    const propose = el('button', { type: 'button', class: 'ghost', id: 'creator-propose' }, 'Propose');
    propose.addEventListener('click', () => {
      const wallet = to.value.trim();
      if (!BASE58_ADDRESS.test(wallet)) return showError(new Error('Give the wallet address to hand the creator role to.'));
      act(propose, 'Proposing the handover', '/launchpad/creator/propose', { pool: view.pool, creator: me, newCreator: wallet }, `Handover proposed to ${short(wallet)}: the role passes when that wallet accepts.`);
    });
    parts.push(
      el('h3', {}, 'Hand over the creator role'),
      view.pendingCreator ? el('p', { class: 'muted', id: 'creator-pending' }, `Proposed: ${view.pendingCreator}, until it accepts (a new proposal replaces it).`) : null,
      el('div', { class: 'field' }, el('label', { for: 'f-newCreator' }, 'New creator'), to, el('p', { class: 'hint muted' }, 'Nothing changes until that wallet accepts on this page.')),
      propose,
    );
    if (!view.feeShares?.locked) {
      const current = (view.feeShares?.recipients ?? []).map((r) => `${r.wallet} ${r.bps / 100}`).join('\n');
      const shares = el('textarea', { name: 'feeShares', id: 'f-creatorFeeShares', rows: 3, placeholder: 'WALLET_A 50\nWALLET_B 50' }, current);
      const lock = el('input', { type: 'checkbox', name: 'lockFeeShares', id: 'f-creatorLock' });
      const save = el('button', { type: 'button', class: 'ghost', id: 'fee-shares-save' }, view.feeShares ? 'Update the shares' : 'Share the creator fees');
      save.addEventListener('click', () => {
        const parsed = parseFeeShares(shares.value);
        if (parsed.error || !parsed.shares) return showError(new Error(parsed.error ?? 'Name at least one wallet and its percent.'));
        const n = parsed.shares.length;
        act(save, 'Setting the fee shares', '/launchpad/fee-shares', { pool: view.pool, creator: me, recipients: parsed.shares, lock: lock.checked }, `Fee shares saved: creator fees shared by ${n} wallet${n === 1 ? '' : 's'}${lock.checked ? ', locked' : ''}.`);
      });
      parts.push(
        el('h3', {}, 'Share the creator fees'),
        el('div', { class: 'field' }, el('label', { for: 'f-creatorFeeShares' }, 'Recipients'), shares, el('p', { class: 'hint muted' }, 'One wallet and its percent per line, up to 10, adding up to 100%. Fees earned from now on follow the new shares; your unclaimed fees are claimed to you first.')),
        el('label', { class: 'choice' }, lock, el('strong', {}, 'Lock them'), el('span', { class: 'muted' }, 'final: nobody can change them again')),
        save,
      );
    }
  }
  return el('section', { class: 'panel', id: 'creator-panel', 'aria-labelledby': 'creator-h' }, el('h2', { id: 'creator-h' }, 'Creator'), ...parts, status, error);
}
