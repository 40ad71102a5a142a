// Explorer links (api/ui/format.js `explorerHref`): the server's `--explorer-url` template filled with the
// kind of page and the address or signature; none without a template (a localnet's default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../../api/ui/format.js', import.meta.url), 'utf8');
const { explorerHref } = await import(`data:text/javascript,${encodeURIComponent(source)}`);

const MINT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

test('a template names the page of an address or of a transaction', () => {
  const t = 'https://explorer.solana.com/{kind}/{id}?cluster=devnet';
  assert.equal(explorerHref(t, 'address', MINT), `https://explorer.solana.com/address/${MINT}?cluster=devnet`);
  assert.equal(explorerHref(t, 'tx', SIG), `https://explorer.solana.com/tx/${SIG}?cluster=devnet`);
  // A custom RPC's explorer: every placeholder filled, the rest kept as written.
  const custom = 'https://explorer.solana.com/{kind}/{id}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899';
  assert.equal(explorerHref(custom, 'tx', SIG), `https://explorer.solana.com/tx/${SIG}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899`);
});

test('no template, or nothing to link: no link', () => {
  assert.equal(explorerHref(null, 'tx', SIG), null);
  assert.equal(explorerHref('', 'address', MINT), null);
  assert.equal(explorerHref('https://x/{kind}/{id}', 'tx', ''), null);
});

test('whatever the id holds stays inside its path segment', () => {
  assert.equal(explorerHref('https://x/{kind}/{id}', 'address', 'a/../b?c'), 'https://x/address/a%2F..%2Fb%3Fc');
});
