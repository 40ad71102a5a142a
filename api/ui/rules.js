// The launch form's checks, the API's own rules (api/src/routes/launch.rs `LaunchRequest::validate`) as the
// page applies them while the user types. No imports: tested alone (tests/ui/rules.test.mjs).

/** Most characters of a name, a symbol, a description, a link (the API's limits). */
const MAX_NAME = 32;
const MAX_SYMBOL = 10;
const MAX_DESCRIPTION = 1000;
const MAX_LINK = 200;
const MAX_IMAGE_BYTES = 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** An https URL on a dotted domain (and, with `hosts`, exactly a profile there), as the API accepts. */
function linkError(value, hosts) {
  const v = value.trim();
  if (!v) return null;
  const rule = hosts ? `an https link to a profile on ${hosts.join(' or ')}` : 'an https link';
  let u;
  try {
    u = new URL(v);
  } catch {
    return `Must be ${rule}.`;
  }
  const host = u.hostname.toLowerCase().replace(/^www\./, '');
  const dotted = /\.[a-z]/i.test(host) && !/^[\d.]+$/.test(host);
  const profile = !hosts || (hosts.includes(host) && /^\/[A-Za-z0-9_+-]+\/?$/.test(u.pathname) && !u.search && !u.hash);
  if (u.protocol !== 'https:' || u.username || u.password || !dotted || !profile || v.length > MAX_LINK) return `Must be ${rule}.`;
  return null;
}

/** Each field's check: the message to show, or null. The API applies the same rules. */
export const rules = {
  name: (v) => {
    const n = [...v].length;
    if (!v.trim()) return 'Give the token a name.';
    if (n > MAX_NAME) return `At most ${MAX_NAME} characters (now ${n}).`;
    if (/[\u0000-\u001f\u007f]/.test(v)) return 'No control characters.';
    return null;
  },
  symbol: (v) => {
    if (!v) return 'Give the token a symbol.';
    if (v.length > MAX_SYMBOL) return `At most ${MAX_SYMBOL} characters.`;
    if (!/^[A-Z0-9]+$/.test(v)) return 'Letters A to Z and digits 0 to 9 only.';
    return null;
  },
  description: (v) => ([...v].length > MAX_DESCRIPTION ? `At most ${MAX_DESCRIPTION} characters.` : null),
  website: (v) => linkError(v),
  twitter: (v) => linkError(v, ['x.com', 'twitter.com']),
  telegram: (v) => linkError(v, ['t.me']),
};

/** The image's check: type and size, before anything is read. */
export function imageError(file) {
  if (!file) return null;
  if (!IMAGE_TYPES.includes(file.type)) return 'PNG, JPEG, GIF or WebP only.';
  if (file.size > MAX_IMAGE_BYTES) return `At most 1 MiB (this one is ${(file.size / 1024 / 1024).toFixed(2)} MiB).`;
  return null;
}

/** Most recipients of shared creator fees (the program's `MAX_FEE_RECIPIENTS`). */
const MAX_FEE_RECIPIENTS = 10;
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * The launch form's "share creator fees" text: one recipient per line, its wallet then its percent (`50`,
 * `33.33`, `33,34`, `25%`: at most two decimals, read as basis points). Blank: no sharing. Returns
 * `{ shares: [{ wallet, bps }] | null, error: string | null }`; the shares must name 1 to 10 distinct wallets,
 * each above 0%, summing to exactly 100% (the API and the program check the same).
 */
export function parseFeeShares(text) {
  const lines = String(text || '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (!lines.length) return { shares: null, error: null };
  if (lines.length > MAX_FEE_RECIPIENTS) return { shares: null, error: `At most ${MAX_FEE_RECIPIENTS} recipients (now ${lines.length}).` };
  const shares = [];
  for (const [i, line] of lines.entries()) {
    const m = /^([^\s:;]+)[\s:;]+(\d{1,3})(?:[.,](\d{1,2}))?\s*%?$/.exec(line);
    if (!m) return { shares: null, error: `Line ${i + 1}: a wallet address, then its percent (e.g. 50 or 33.33).` };
    const [, wallet, whole, frac = ''] = m;
    if (!BASE58_ADDRESS.test(wallet)) return { shares: null, error: `Line ${i + 1}: "${wallet}" is not a Solana address.` };
    if (shares.some((s) => s.wallet === wallet)) return { shares: null, error: `Line ${i + 1}: ${wallet} is named twice.` };
    const bps = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
    if (bps <= 0) return { shares: null, error: `Line ${i + 1}: a share must be above 0%.` };
    shares.push({ wallet, bps });
  }
  const total = shares.reduce((t, s) => t + s.bps, 0);
  if (total !== 10_000) return { shares: null, error: `The shares add up to ${total / 100}%; they must add up to exactly 100%.` };
  return { shares, error: null };
}

rules.feeShares = (v) => parseFeeShares(v).error;
