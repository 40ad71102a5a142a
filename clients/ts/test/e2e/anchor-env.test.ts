// What `anchor test` does, reproduced where there is no SBF toolchain: a cluster with the programs only
// deployed (this repository's localnet with `--deploy-only`, as solana-test-validator starts them with
// `[test] upgradeable = true`), a wallet file as the provider's, and the SDK journey run with
// ANCHOR_PROVIDER_URL and ANCHOR_WALLET set, as Anchor runs Anchor.toml's test script: it must take its cluster
// and payer from them and set the launchpad up as that wallet.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSolanaRpc, getAddressDecoder } from '@solana/kit';
import { binary, freePort, waitFor } from './cluster.js';

const pkg = fileURLToPath(new URL('../..', import.meta.url));

test('the SDK journey runs as `anchor test` runs it', { skip: !!process.env.ANCHOR_PROVIDER_URL && 'already under anchor test' }, async () => {
  // A wallet file in the Solana CLI's format: 64 bytes, the secret seed then the public key.
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const dir = mkdtempSync(join(tmpdir(), 'sdk-anchor-'));
  const wallet = join(dir, 'id.json');
  writeFileSync(wallet, JSON.stringify([...seed, ...pub]));
  const authority = getAddressDecoder().decode(pub);

  const [rpcPort, grpcPort] = [await freePort(), await freePort()];
  const validator = spawn(binary('localnet'), ['--rpc-addr', `127.0.0.1:${rpcPort}`, '--grpc-addr', `127.0.0.1:${grpcPort}`, '--oracle-secs', '0', '--deploy-only', authority], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  after(() => validator.kill('SIGKILL'));
  const url = `http://127.0.0.1:${rpcPort}`;
  const rpc = createSolanaRpc(url);
  await waitFor('the validator', async () => (await rpc.getSlot().send()) >= 0n);
  // solana-test-validator funds the provider wallet; so does this.
  await rpc.requestAirdrop(authority, 1_000_000_000_000n as never).send();
  await waitFor('the wallet funded', async () => (await rpc.getBalance(authority).send()).value > 0n, 30);

  // A test run of its own (not a subtest of this one: node's runner nests runs that inherit its context).
  const env: NodeJS.ProcessEnv = { ...process.env, ANCHOR_PROVIDER_URL: url, ANCHOR_WALLET: wallet };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync('node', ['--import', 'tsx', '--test', 'test/e2e/sdk-journey.test.ts'], {
    cwd: pkg,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /# pass 1/);
  // It set the launchpad up as the wallet: the wallet is the admin and the partner.
  const { fetchGlobal } = await import('../../src/generated/launchpad/index.js');
  const { globalAddress } = await import('../../src/keys.js');
  const global = (await fetchGlobal(rpc, await globalAddress())).data;
  assert.equal(global.admin, authority);
  assert.equal(global.partner, authority);
});
