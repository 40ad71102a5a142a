// The package as a bot author gets it: `npm pack` (its contents checked: the builds, declarations, source
// maps with their sources, LICENSE, nothing else), installed into a project of its own with only
// `@solana/kit`, `ws` and TypeScript; every example of docs/sdk.md and of the README type-checked there with
// `strict` and `skipLibCheck: false`, the CommonJS build required and type-checked from a `.cts`, then the
// examples run in order against the development stack (localnet, indexer, API): launch (and find it listed
// without prepare or record: `prepared: false`), buy, sell, exact out,
// decoded errors, events, trading across graduation, claims, the feed with no `kinds` resumed from a `seq`.
// Skipped under `anchor test` (no API there); DEV_BIN overrides the stack's binary.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binary, freePort, waitFor } from './cluster.js';

const pkg = fileURLToPath(new URL('../..', import.meta.url));
const docs = fileURLToPath(new URL('../../../../docs/sdk.md', import.meta.url));
const anchor = !!process.env.ANCHOR_PROVIDER_URL;

/** The ```ts blocks of a markdown file that start with `// example: <name>`, in order. */
export function examples(markdown: string): { name: string; code: string }[] {
  return [...markdown.matchAll(/```ts\n\/\/ example: ([\w-]+)\n([\s\S]*?)```/g)].map((m) => ({ name: m[1], code: m[2] }));
}

/** Every file of `dir`, relative. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(dir, join(prefix, d.name)) : [join(prefix, d.name)]));
}

test('the packed SDK: contents, ESM and CommonJS, strict types, and docs/sdk.md run against the development stack', { skip: anchor && 'anchor test: no API on its validator' }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'sdk-packed-'));
  // Pack (the build runs as `prepack`).
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const [{ filename, files }] = JSON.parse(out.slice(out.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  const paths = files.map((f) => f.path).sort();
  for (const p of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'dist/math/index.js', 'dist/cjs/math/index.js']) {
    assert.ok(paths.includes(p), `${p} packed`);
  }
  assert.deepEqual(paths.filter((p) => !(p.startsWith('dist/') || ['LICENSE', 'README.md', 'package.json'].includes(p))), [], 'nothing but dist/, LICENSE, README.md, package.json');
  assert.ok(!paths.some((p) => /\.test\.|node_modules|^src\//.test(p)), 'no tests, no sources outside the maps');

  // A project of its own: the tarball, kit, ws and TypeScript (from the npm cache when it has them).
  const project = join(work, 'bot');
  mkdirSync(join(project, 'examples'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bot', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(work, filename), '@solana/kit@8.4.0', 'ws@8.18.3', '@types/ws@8.18.1', '@types/node@20.19.43', 'typescript@5.9.3'], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const installed = join(project, 'node_modules/@launchpad-dev/sdk');
  // Source maps carry their sources (the package ships no src/).
  for (const f of walk(installed).filter((f) => f.endsWith('.js.map'))) {
    const map = JSON.parse(readFileSync(join(installed, f), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
    assert.ok(map.sourcesContent && map.sourcesContent.length === map.sources.length && map.sourcesContent.every((s) => typeof s === 'string' && s.length > 0), `${f}: sources inlined`);
  }
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.peerDependencies['@solana/kit'], '^8.4.0');
  assert.equal(manifest.dependencies['@solana/kit'], undefined, 'kit is a peer, not a dependency');
  assert.equal(manifest.engines.node, '>=20.18.0');

  // The examples, type-checked strictly, and a CommonJS user (a .cts: the `require` types).
  const all = examples(readFileSync(docs, 'utf8'));
  assert.deepEqual(all.map((e) => e.name), ['launch', 'listed', 'quote-and-buy', 'sell', 'exact-out', 'errors', 'events', 'graduate', 'claims', 'feed']);
  for (const e of all) writeFileSync(join(project, 'examples', `${e.name}.ts`), e.code);
  // The README's examples (whole programs too), type-checked only.
  const readme = [...readFileSync(join(installed, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(readme.length >= 3, 'the README has its examples');
  readme.forEach((code, i) => writeFileSync(join(project, 'examples', `readme-${i}.ts`), code));
  writeFileSync(
    join(project, 'examples', 'require.cts'),
    "import sdk = require('@launchpad-dev/sdk');\nconst trade: typeof sdk.trade = sdk.trade;\nif (typeof trade !== 'function' || typeof sdk.ProgramError !== 'function') throw new Error('the CommonJS build lacks trade');\nconsole.log('cjs ok');\n",
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, outDir: 'build', types: ['node'] },
      include: ['examples'],
    }),
  );
  const tsc = spawnSync('node', [join(project, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
  assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
  const cjs = spawnSync('node', ['build/require.cjs'], { cwd: project, encoding: 'utf8' });
  assert.equal(cjs.stdout.trim(), 'cjs ok', cjs.stderr);

  // The development stack, and a funded wallet file.
  const [port, rpcPort] = [await freePort(), await freePort()];
  const child = spawn(
    binary('dev'),
    ['--dir', join(work, '.dev'), '--listen', `127.0.0.1:${port}`, '--rpc-port', String(rpcPort), '--grpc-port', '0', '--jupiter-base-url', '', '--kyberswap-base-url', '', '--lifi-base-url', '', '--relay-base-url', ''],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '100000' } },
  );
  after(() => child.kill('SIGKILL'));
  const api = `http://127.0.0.1:${port}`;
  await waitFor('the development stack', async () => (await fetch(`${api}/health`)).ok, 300);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const walletFile = join(work, 'id.json');
  writeFileSync(walletFile, JSON.stringify([...seed, ...pub]));
  const { getAddressDecoder } = await import('@solana/kit');
  const address = getAddressDecoder().decode(pub);
  const airdrop = await fetch(`${api}/ui/airdrop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address }) });
  assert.equal(airdrop.status, 200, await airdrop.text());

  // Each example in order, as its reader would run it.
  const env: NodeJS.ProcessEnv = { ...process.env, RPC_URL: `http://127.0.0.1:${rpcPort}`, API_URL: api, WALLET: walletFile };
  const expect: Record<string, RegExp[]> = {
    launch: [/^mint (\w{32,44})$/m],
    // Built and sent through the SDK alone (no prepare, no record), and listed.
    listed: [/^listed \w{32,44} as EXMPL, prepared: false$/m],
    'quote-and-buy': [/^curve: 500000000 lamports buy [1-9]\d* tokens \(fee [1-9]\d* at \d+ bps\), at least [1-9]\d*$/m, /^bought [1-9]\d* in \w+$/m],
    sell: [/^sold [1-9]\d* tokens for [1-9]\d* lamports$/m],
    'exact-out': [/^bought exactly 1000000000000 tokens for [1-9]\d* lamports \(at most [1-9]\d*\)$/m],
    errors: [
      /^launchpad SlippageExceeded \(6014\) at instruction #\d+: Slippage exceeded: output below the minimum$/m,
      /^launchpad NotEntitled \(6020\) at instruction #\d+: /m,
    ],
    events: [/^EvtSwap: 100000000 in, [1-9]\d* out, fee [1-9]\d*, progress \d+ bps$/m],
    graduate: [/^curve buy of [1-9]\d*, refund [1-9]\d*, migrates: true$/m, /^amm sell of [1-9]\d* for [1-9]\d*$/m],
    claims: [/^claimed trading as creator: [1-9]\d* quote, 0 tokens in \w+$/m, /^claimed surplus as creator: [1-9]\d* quote/m],
    feed: [/^#\d+ launch$/m, /^#\d+ curve buy 500000000 -> [1-9]\d*$/m, /^#\d+ complete$/m, /^#\d+ amm sell [1-9]\d* -> [1-9]\d*$/m, /^resume later with since: \d+$/m],
  };
  for (const e of all) {
    const run = spawnSync('node', [`build/${e.name}.js`], { cwd: project, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, `${e.name}:\n${run.stdout}\n${run.stderr}`);
    t.diagnostic(`${e.name}: ${run.stdout.trim().split('\n').join(' | ')}`);
    for (const want of expect[e.name]) assert.match(run.stdout, want, `${e.name}`);
    if (e.name === 'launch') env.MINT = /^mint (\w+)$/m.exec(run.stdout)![1];
  }
});
