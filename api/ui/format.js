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

const SPACES = /[\u00a0\u2009\u202f]/g;

/**
 * A decimal amount as a person typed it, in base units with `decimals`: `{ units, text }` (`text`: the amount
 * as read, with a point) or `{ error }`. Either `.` or `,` is the decimal mark; thousands may be grouped by
 * spaces, `'` or `_`, or by the mark not used for decimals (`1,000.5`, `1.000,5`, `1 000,5`), and then every
 * group has three digits. Text that reads two ways (`1,500`: one and a half, or fifteen hundred?) is refused,
 * never guessed; nothing typed is silently dropped.
 */
export function parseAmount(input, decimals) {
  let t = String(input ?? '').trim().replace(SPACES, ' ');
  if (t === '') return { error: 'Enter an amount.' };
  if (!/^[0-9 .,'_]+$/.test(t)) return { error: 'Use digits, with a point or a comma for decimals.' };
  const count = (c) => t.split(c).length - 1;
  const [dots, commas] = [count('.'), count(',')];
  let mark = null;
  if (dots && commas) {
    // Both: the last one is the decimal mark and the other groups thousands.
    mark = t.lastIndexOf('.') > t.lastIndexOf(',') ? '.' : ',';
    if (count(mark) > 1) return { error: 'More than one decimal mark.' };
    t = t.split(mark === '.' ? ',' : '.').join(' ');
  } else if (dots + commas === 1) {
    mark = dots ? '.' : ',';
    const [before, after] = t.split(mark);
    // `1,500` alone is one and a half to some and fifteen hundred to others (`1234,500` and `0,500` are not:
    // no thousands group starts that way).
    if (/^[1-9]\d{0,2}$/.test(before) && /^\d{3}$/.test(after)) {
      const whole = before + after;
      const decimal = `${before}.${after}`.replace(/0+$/, '');
      return { error: `“${input}” reads two ways: write ${whole} or ${decimal}.` };
    }
  } else if (dots + commas > 1) {
    // Several of one mark and none of the other: thousands groups (`1,000,000`).
    t = t.split(dots ? '.' : ',').join(' ');
  }
  let [whole, frac = ''] = mark ? t.split(mark) : [t, ''];
  if (/[ '_]/.test(frac)) return { error: 'Group thousands only before the decimal mark.' };
  if (/[ '_]/.test(whole)) {
    const groups = whole.split(/[ '_]/);
    if (!/^\d{1,3}$/.test(groups[0]) || groups.slice(1).some((g) => !/^\d{3}$/.test(g))) {
      return { error: 'Thousands are grouped by three digits.' };
    }
    whole = groups.join('');
  }
  if (!/^\d*$/.test(whole) || !/^\d*$/.test(frac) || whole + frac === '') return { error: 'Enter an amount.' };
  if (frac.length > decimals) return { error: `At most ${decimals} decimals.` };
  const units = BigInt((whole || '0') + frac.padEnd(decimals, '0')).toString();
  return { units, text: `${whole.replace(/^0+(?=\d)/, '') || '0'}${frac ? `.${frac}` : ''}` };
}

/**
 * A price (a decimal string as the API sends it, or a number; whole quote per whole token) for people: 4
 * significant digits; below 0.0001 in scientific notation with the exponent written out (`0.000000004122`
 * is `4.122e-9`), so tiny prices stay short, and two of them side by side compare by their exponents (no
 * count of zeros to misread by a factor of ten). The digits are cut from the decimal text, never rounded
 * through a float.
 */
export function price(p) {
  if (p === null || p === undefined || p === '') return '–';
  const text = typeof p === 'number' ? (Number.isFinite(p) ? p.toFixed(20) : '') : String(p).trim();
  const m = text.match(/^(-?)(\d+)(?:\.(\d*))?$/);
  if (!m) return String(p);
  const [, sign, whole, frac = ''] = m;
  if (/^0*$/.test(whole + frac)) return '0';
  if (!/^0+$/.test(whole)) {
    const n = Number(`${whole}.${frac}`);
    return sign + n.toLocaleString('en-US', { maximumFractionDigits: n >= 1000 ? 2 : 4 });
  }
  const zeros = frac.match(/^0*/)[0].length;
  const digits = frac.slice(zeros, zeros + 4).replace(/0+$/, '');
  if (zeros < 4) return `${sign}0.${'0'.repeat(zeros)}${digits}`;
  return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e-${zeros + 1}`;
}

/** A large decimal (market cap, whole quote) compactly: 1.23K, 4.5M. */
export function compact(v) {
  if (v === null || v === undefined || v === '') return '–';
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  if (n !== 0 && Math.abs(n) < 1) return price(n);
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 }).format(n);
}

/**
 * Dollars for people (a decimal string from the API's `...Usd` fields): `$4.26K`, `$1.2M`, `$12.5`; below a
 * dollar as a price (`$4.213e-7`). `null` without a value, so callers can fall back to the quote figure.
 */
export function usd(v) {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n)) return null;
  // A figure the page computed may come in exponent form (`1.549e-7`): read as the number it is.
  if (n !== 0 && Math.abs(n) < 1) return `$${price(/e/i.test(String(v)) ? n : v)}`;
  return `$${compact(v)}`;
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

/**
 * The explorer page of `id` from the server's `--explorer-url` template (`{kind}`: `address`, or `tx` for a
 * transaction's signature; `{id}`: the address or signature), or null without a template.
 */
export function explorerHref(template, kind, id) {
  if (!template || !id) return null;
  return template.replaceAll('{kind}', kind === 'tx' ? 'tx' : 'address').replaceAll('{id}', encodeURIComponent(id));
}

/** A link opening `id` in the configured explorer (a new tab), or null when none is configured. */
export function explorerLink(template, kind, id, label = 'Explorer ↗') {
  const href = explorerHref(template, kind, id);
  return href ? el('a', { href, class: 'explorer', target: '_blank', rel: 'noopener noreferrer', 'data-explorer': kind, title: `Open in the explorer: ${id}` }, label) : null;
}
