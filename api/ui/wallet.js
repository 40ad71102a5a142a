// Wallets. The Wallet Standard (the `wallet-standard:app-ready` / `wallet-standard:register-wallet` window
// events) finds Phantom, Solflare, Backpack and any other standard wallet; they sign with
// `solana:signTransaction`. On a localnet only, a development wallet kept in this browser: an Ed25519 keypair
// made by WebCrypto, stored in localStorage, funded by the localnet's faucet. No key ever leaves the browser.

const DEV_KEY = 'launchpad.devWallet.v1';
const CHOSEN_KEY = 'launchpad.wallet';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 (Bitcoin alphabet) of `bytes`. */
export function base58(bytes) {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

function b64(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}
function unb64(s) {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** A compact-u16 at `offset`: [value, bytes read]. */
function compactU16(bytes, offset) {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[offset + i];
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw new Error('bad compact-u16');
}

/**
 * Where a serialized (legacy or v0) transaction keeps its signatures and message, and which signer slot
 * belongs to `address`.
 */
export function signerSlot(tx, address) {
  const [count, len] = compactU16(tx, 0);
  const sigStart = len;
  const messageStart = sigStart + 64 * count;
  let o = messageStart;
  if (tx[o] & 0x80) o += 1; // versioned message prefix
  const required = tx[o];
  o += 3;
  const [keys, klen] = compactU16(tx, o);
  o += klen;
  for (let i = 0; i < Math.min(required, keys); i++) {
    if (base58(tx.subarray(o + 32 * i, o + 32 * (i + 1))) === address) {
      if (i >= count) throw new Error('the transaction has fewer signature slots than signers');
      return { slot: i, sigStart, messageStart };
    }
  }
  throw new Error(`the transaction does not ask ${address} to sign`);
}

/** The development wallet: WebCrypto Ed25519, the keypair in localStorage. */
export class DevWallet {
  static async load(create) {
    const stored = localStorage.getItem(DEV_KEY);
    let privateKey;
    let publicRaw;
    if (stored) {
      const { pkcs8, pub } = JSON.parse(stored);
      privateKey = await crypto.subtle.importKey('pkcs8', unb64(pkcs8), { name: 'Ed25519' }, false, ['sign']);
      publicRaw = unb64(pub);
    } else if (create) {
      const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
      const pkcs8 = await crypto.subtle.exportKey('pkcs8', pair.privateKey);
      publicRaw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      localStorage.setItem(DEV_KEY, JSON.stringify({ pkcs8: b64(pkcs8), pub: b64(publicRaw) }));
      privateKey = pair.privateKey;
    } else {
      return null;
    }
    return new DevWallet(privateKey, base58(publicRaw));
  }

  constructor(key, address) {
    this.key = key;
    this.address = address;
    this.name = 'Development wallet';
    this.dev = true;
  }

  async signTransaction(tx) {
    const { slot, sigStart, messageStart } = signerSlot(tx, this.address);
    const sig = new Uint8Array(await crypto.subtle.sign('Ed25519', this.key, tx.subarray(messageStart)));
    const out = new Uint8Array(tx);
    out.set(sig, sigStart + 64 * slot);
    return out;
  }

  /** Signs a text message's bytes (a comment, a profile: docs/api.md); the signature in base58. */
  async signMessage(bytes) {
    return base58(new Uint8Array(await crypto.subtle.sign('Ed25519', this.key, bytes)));
  }

  async disconnect() {}
}

/** A Wallet Standard wallet's account. */
class StandardWallet {
  constructor(wallet, account, chain) {
    this.wallet = wallet;
    this.account = account;
    this.address = account.address;
    this.name = wallet.name;
    this.chain = chain;
    this.dev = false;
  }

  async signTransaction(tx) {
    const feature = this.wallet.features['solana:signTransaction'];
    const [out] = await feature.signTransaction({ transaction: tx, account: this.account, chain: this.chain });
    return new Uint8Array(out.signedTransaction);
  }

  /** Signs a text message's bytes with the wallet's `solana:signMessage`; the signature in base58. */
  get signMessage() {
    const feature = this.wallet.features['solana:signMessage'];
    if (!feature) return undefined;
    return async (bytes) => {
      const [out] = await feature.signMessage({ message: bytes, account: this.account });
      return base58(new Uint8Array(out.signature));
    };
  }

  async disconnect() {
    await this.wallet.features['standard:disconnect']?.disconnect();
  }
}

/** Wallet Standard discovery: the wallets that can sign Solana transactions. */
const standard = new Set();
const listeners = new Set();
function register(...wallets) {
  for (const w of wallets) {
    const solana = (w.chains || []).some((c) => c.startsWith('solana:'));
    if (solana && w.features?.['solana:signTransaction'] && w.features?.['standard:connect']) standard.add(w);
  }
  listeners.forEach((f) => f());
  return () => {
    wallets.forEach((w) => standard.delete(w));
    listeners.forEach((f) => f());
  };
}
window.addEventListener('wallet-standard:register-wallet', ({ detail: callback }) => {
  try {
    callback({ register });
  } catch (e) {
    console.error('a wallet failed to register', e);
  }
});
window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register } }));

export const standardWallets = () => [...standard];
export const onWalletsChanged = (f) => listeners.add(f);

/** The connected wallet, shared by every page. */
export const session = {
  wallet: null,
  localnet: false,
  subscribers: new Set(),
  set(w) {
    this.wallet = w;
    if (w) localStorage.setItem(CHOSEN_KEY, w.dev ? 'dev' : w.name);
    else localStorage.removeItem(CHOSEN_KEY);
    this.subscribers.forEach((f) => f(w));
  },
  onChange(f) {
    this.subscribers.add(f);
    return () => this.subscribers.delete(f);
  },
  async connectDev() {
    if (!this.localnet) throw new Error('the development wallet exists on a localnet only');
    this.set(await DevWallet.load(true));
  },
  async connectStandard(w) {
    const { accounts } = await w.features['standard:connect'].connect();
    const account = accounts.find((a) => (a.chains || w.chains).some((c) => c.startsWith('solana:'))) || accounts[0];
    if (!account) throw new Error(`${w.name} shared no account`);
    const chain = this.localnet ? 'solana:localnet' : 'solana:mainnet';
    this.set(new StandardWallet(w, account, chain));
  },
  async disconnect() {
    await this.wallet?.disconnect();
    this.set(null);
  },
  /** Reconnects the wallet chosen last time (the dev wallet at once; a standard wallet once it registers). */
  async restore() {
    const chosen = localStorage.getItem(CHOSEN_KEY);
    if (chosen === 'dev' && this.localnet) {
      const w = await DevWallet.load(false);
      if (w) this.set(w);
    }
  },
};
