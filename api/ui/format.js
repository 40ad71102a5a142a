// Numbers for people: base-unit integer strings scaled by their decimals, prices and market caps as decimal
// strings, ages and addresses. BigInt only for amounts (never floats on base units).

const group = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `amount` (integer string, base units) as a decimal string with `decimals`, at most `maxFrac` fraction digits. */
export function units(amount, decimals, maxFrac = 4) {
  if (amount === null || amount === undefined || amount === '') return '–';
  let v = BigInt(amount);
  const neg = v < 0n;
  if (neg) v = -v;
  const scale = 10n ** BigInt(decimals);
  const whole = v / scale;
  let frac = (v % scale).toString().padStart(decimals, '0');
  // Small amounts keep their first significant digits.
  let keep = maxFrac;
  if (whole === 0n) {
    const firstNonZero = frac.search(/[1-9]/);
    if (firstNonZero >= 0) keep = Math.max(maxFrac, firstNonZero + 3);
  }
  frac = frac.slice(0, Math.min(keep, decimals)).replace(/0+$/, '');
  const text = group.format(whole) + (frac ? '.' + frac : '');
  return (neg ? '-' : '') + text;
}

/** A human decimal `text` as base units with `decimals`; null when it is not a plain non-negative number. */
export function parseUnits(text, decimals) {
  const t = String(text ?? '').trim().replace(/,/g, '');
  if (!/^\d*(\.\d*)?$/.test(t) || t === '' || t === '.') return null;
  const [w, f = ''] = t.split('.');
  if (f.length > decimals) return null;
  return BigInt((w || '0') + f.padEnd(decimals, '0')).toString();
}

/** A price (decimal string or number, whole quote per whole token) with 4 significant digits. */
export function price(p) {
  if (p === null || p === undefined || p === '') return '–';
  const n = Number(p);
  if (!Number.isFinite(n)) return String(p);
  if (n === 0) return '0';
  if (Math.abs(n) >= 1) return n.toLocaleString('en-US', { maximumFractionDigits: 4 });
  const digits = Math.min(20, -Math.floor(Math.log10(Math.abs(n))) + 3);
  return n.toFixed(digits).replace(/0+$/, '');
}

/** A large decimal (market cap, whole quote) compactly: 1.23K, 4.5M. */
export function compact(v) {
  if (v === null || v === undefined || v === '') return '–';
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  if (n !== 0 && Math.abs(n) < 1) return price(n);
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 }).format(n);
}

/** Seconds since `unix` as 12s, 5m, 3h, 2d. */
export function age(unix, now = Date.now() / 1000) {
  if (!unix) return '–';
  const s = Math.max(0, Math.floor(now - unix));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** An address as Abcd…wxyz. */
export function short(address) {
  if (!address) return '–';
  return address.length > 10 ? `${address.slice(0, 4)}…${address.slice(-4)}` : address;
}

/** Basis points as a percent: 150 -> 1.5%. */
export function bps(v) {
  return `${(Number(v) / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;
}

/** A fraction ("0.378465325246672") as a percent with two decimals. */
export function share(f) {
  return `${(Number(f) * 100).toFixed(2)}%`;
}

/** Creates an element: el('div', {class: 'x', onclick: fn}, child, 'text', ...). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Replaces `node`'s children, leaving out null, undefined and false (DOM's replaceChildren would print them). */
export function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
