// The same journey through the REST API with the SDK's typed client (prepare, sign, submit, record; quote,
// build, submit; graduation with migration in the build; a claim), against the development stack (localnet,
// indexer, API), while the feed client follows the trades over SSE and over WebSocket: each receives every
// trade once, in order, including across a dropped connection. Skipped under `anchor test` (its validator has
// no indexer or API); DEV_BIN overrides the stack's binary.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { createLaunchpadApi, type FeedError, type FeedEvent, NATIVE_MINT, signAndSubmit, subscribe, unwrap } from '../../src/index.js';
import { WebSocket } from 'ws';
import { binary, freePort, waitFor } from './cluster.js';

const anchor = !!process.env.ANCHOR_PROVIDER_URL;

test('the journey through the REST client, followed by the feed client', { skip: anchor && 'anchor test: no API on its validator' }, async () => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sdk-rest-'));
  const child = spawn(
    binary('dev'),
    ['--dir', join(dir, '.dev'), '--listen', `127.0.0.1:${port}`, '--rpc-port', '0', '--grpc-port', '0', '--jupiter-base-url', '', '--kyberswap-base-url', '', '--lifi-base-url', '', '--relay-base-url', ''],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '100000' } },
  );
  after(() => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  const api = createLaunchpadApi(base);
  await waitFor('the development stack', async () => (await fetch(`${base}/health`)).ok, 300);

  const [creator, trader] = [await generateKeyPairSigner(), await generateKeyPairSigner()];
  // The development stack's faucet (a page endpoint, not in the OpenAPI document).
  for (const w of [creator, trader]) {
    const r = await fetch(`${base}/ui/airdrop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: w.address }) });
    assert.equal(r.status, 200, await r.text());
  }

  // The feed, over both transports, from now.
  const sse: FeedEvent[] = [];
  const ws: FeedEvent[] = [];
  const options = { kinds: ['trade' as const], wallets: [trader.address] };
  const errors: FeedError[] = [];
  const onError = (e: FeedError) => errors.push(e);
  const overSse = subscribe(base, { ...options, onError }, (e) => sse.push(e));
  // Node 20 has no global WebSocket: the `ws` package's (a browser passes none); its type fits the option's.
  const overWs = subscribe(base, { ...options, onError, transport: 'ws', WebSocket }, (e) => ws.push(e));
  // No `kinds`: every kind, on both transports.
  const everySse: FeedEvent[] = [];
  const everyWs: FeedEvent[] = [];
  const allSse = subscribe(base, { onError }, (e) => everySse.push(e));
  const allWs = subscribe(base, { onError, transport: 'ws', WebSocket }, (e) => everyWs.push(e));
  after(() => {
    for (const s of [overSse, overWs, allSse, allWs]) s.close();
  });

  // A filter the server refuses: reported (not swallowed) and the subscription ends, on both transports.
  for (const transport of ['sse', 'ws'] as const) {
    const refused: FeedError[] = [];
    const bad = subscribe(base, { kinds: ['nope' as never], transport, WebSocket, onError: (e) => refused.push(e) }, () => assert.fail('no event'));
    const ended = await bad.closed;
    assert.equal(ended?.code, 'INVALID_PARAMS', `${transport}: ${ended?.message}`);
    assert.equal(ended?.fatal, true);
    assert.deepEqual(refused, [ended], `${transport}: reported once`);
  }

  // Launch: prepare, sign, submit, record.
  const launch = {
    chainKey: 'solana', launchType: 'bonding-curve', curvePreset: 'fair', quote: 'sol', name: 'REST Token', symbol: 'REST',
    description: 'through the SDK', totalSupply: '1000000000', creator: creator.address,
  };
  const prepared = await unwrap(api.POST('/launchpad/prepare', { body: launch as never }));
  const deployed = await signAndSubmit(api, creator, prepared.solanaTransaction);
  assert.equal(deployed.confirmed, true);
  const record = { ...launch, tokenAddress: prepared.mint, deployTxHash: deployed.signature, metadataURI: prepared.metadataURI };
  await waitFor('the launch recorded', async () => (await api.POST('/launchpad/record', { body: record as never })).response.ok, 60);
  const mint = prepared.mint;

  // Trades through quote, build and submit; the feed is dropped after the first.
  async function trade(wallet: KeyPairSigner, tokenIn: string, tokenOut: string, amountIn: string) {
    const request = { chainKey: 'solana', tokenIn, tokenOut, amountIn, slippageBps: 100, taker: wallet.address };
    const quoted = await unwrap(api.POST('/swap/quote', { body: request as never })) as { best: { route: unknown; minAmountOut: string } };
    const built = await unwrap(api.POST('/swap/build', { body: { request, route: quoted.best.route, minAmountOut: quoted.best.minAmountOut } as never })) as { solanaTransaction: string; migrates?: boolean };
    const sent = await signAndSubmit(api, wallet, built.solanaTransaction);
    assert.equal(sent.confirmed, true);
    // The relay answers once the index holds the trade: the next quote is made on the state after it.
    assert.equal(sent.indexed, true);
    return { signature: sent.signature as string, migrates: !!built.migrates };
  }
  await waitFor('the curve indexed', async () => (await api.GET('/launchpad/curve/{mint}', { params: { path: { mint } } })).response.ok, 60);
  const signatures = [(await trade(trader, NATIVE_MINT, mint, '500000000')).signature];
  await waitFor('the first trade on both feeds', async () => sse.length === 1 && ws.length === 1, 30);
  overSse.drop();
  overWs.drop();
  signatures.push((await trade(trader, NATIVE_MINT, mint, '700000000')).signature);
  const curve = await unwrap(api.GET('/launchpad/curve/{mint}', { params: { path: { mint } } }));
  assert.equal(curve.status, 'bonding');
  // The graduating buy migrates in the same transaction.
  const graduating = await trade(trader, NATIVE_MINT, mint, '12000000000');
  assert.equal(graduating.migrates, true);
  signatures.push(graduating.signature);
  await waitFor('every trade on both feeds', async () => sse.length >= 3 && ws.length >= 3, 60);
  for (const [name, events, sub] of [['sse', sse, overSse], ['ws', ws, overWs]] as const) {
    assert.deepEqual(events.map((e) => e.signature), signatures, `${name}: every trade once, in order`);
    assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1].seq), `${name}: seq increases`);
    assert.ok(sub.connections >= 2, `${name}: resumed after the drop`);
  }
  const after2 = await unwrap(api.GET('/launchpad/curve/{mint}', { params: { path: { mint } } }));
  assert.equal(after2.status, 'migrated');
  // drop() is not an error: nothing was reported.
  assert.deepEqual(errors, []);
  // Every kind arrived on the subscriptions without `kinds`, typed, amounts as bigint.
  const kindsOf = (events: FeedEvent[]) => [...new Set(events.filter((e) => e.mint === mint).map((e) => e.kind))].sort();
  await waitFor('every kind without `kinds`', async () => ['sse', 'ws'].every((_, i) => kindsOf([everySse, everyWs][i]).join() === 'complete,curve,launch,migrate,trade'), 60);
  for (const events of [everySse, everyWs]) {
    const trade = events.find((e) => e.kind === 'trade' && e.signature === signatures[0]);
    assert.ok(trade && trade.kind === 'trade');
    assert.equal(trade.amountIn, 500_000_000n);
    assert.equal(typeof trade.amountOut, 'bigint');
    const launched = events.find((e) => e.kind === 'launch' && e.mint === mint);
    assert.ok(launched && launched.kind === 'launch' && launched.creator === creator.address);
    const migrated = events.find((e) => e.kind === 'migrate' && e.mint === mint);
    assert.ok(migrated && migrated.kind === 'migrate' && typeof migrated.quoteAmount === 'bigint' && migrated.quoteAmount > 0n);
  }

  // The creator claims its trading fees through the API.
  const fees = await unwrap(api.GET('/launchpad/fees', { params: { query: { creator: creator.address } } }));
  const trading = fees.fees.find((f) => f.kind === 'trading');
  assert.ok(trading && BigInt(trading.quoteAmount) > 0n, JSON.stringify(fees));
  const claim = await unwrap(api.POST('/launchpad/claim', { body: { creator: creator.address, pool: trading.pool, kind: 'trading' } as never }));
  assert.equal((await signAndSubmit(api, creator, claim.solanaTransaction)).confirmed, true);
  await waitFor('the claim indexed', async () => {
    const f = await unwrap(api.GET('/launchpad/fees', { params: { query: { creator: creator.address } } }));
    return !f.fees.some((x) => x.kind === 'trading');
  }, 30);
});
