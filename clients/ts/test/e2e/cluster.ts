// The cluster the end-to-end tests run on. Under `anchor test` (ANCHOR_PROVIDER_URL and ANCHOR_WALLET set):
// the validator Anchor started, with the wallet as payer and (on a fresh validator) as the launchpad's upgrade
// authority, which sets the launchpad up. Otherwise: this repository's localnet, started here with the programs
// only deployed (`--deploy-only`), exactly as such a fresh cluster, set up the same way.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Address, createKeyPairSignerFromBytes, createSolanaRpc, generateKeyPairSigner, type KeyPairSigner, lamports } from '@solana/kit';
import { ensureLaunchpad, type LaunchpadRpc, type LaunchpadSetup, send, transferLamports } from '../../src/index.js';

export const repo = fileURLToPath(new URL('../../../..', import.meta.url));
const targetDir = process.env.CARGO_TARGET_DIR ?? `${repo}/target`;

export interface Cluster {
  rpc: LaunchpadRpc;
  rpcUrl: string;
  payer: KeyPairSigner;
  setup: LaunchpadSetup;
  /** `anchor` (the validator `anchor test` started) or `localnet`. */
  kind: 'anchor' | 'localnet';
  stop(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A binary of this workspace, built if missing (`LOCALNET_BIN`, `DEV_BIN` override). */
export function binary(name: string): string {
  const env = process.env[`${name.toUpperCase()}_BIN`];
  if (env) return env;
  const path = `${targetDir}/debug/${name}`;
  if (!existsSync(path)) execFileSync('cargo', ['build', '-q', '-p', name], { cwd: repo, stdio: 'inherit' });
  return path;
}

export async function waitFor(what: string, ok: () => Promise<boolean>, secs = 120): Promise<void> {
  const end = Date.now() + secs * 1000;
  for (;;) {
    try {
      if (await ok()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`${what} not ready after ${secs} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** SOL for `to`: the faucet where there is one, else a transfer from the payer. */
export async function fund(c: Pick<Cluster, 'rpc' | 'payer'>, to: Address, sol: bigint): Promise<void> {
  const amount = sol * 1_000_000_000n;
  try {
    const sig = await c.rpc.requestAirdrop(to, lamports(amount)).send();
    await waitFor('airdrop', async () => {
      const { value } = await c.rpc.getSignatureStatuses([sig]).send();
      return value[0]?.confirmationStatus === 'confirmed' || value[0]?.confirmationStatus === 'finalized';
    }, 30);
  } catch {
    await send(c.rpc, c.payer, [transferLamports(c.payer, to, amount)]);
  }
}

export async function cluster(): Promise<Cluster> {
  const url = process.env.ANCHOR_PROVIDER_URL;
  if (url) {
    const path = (process.env.ANCHOR_WALLET ?? '~/.config/solana/id.json').replace(/^~/, homedir());
    const payer = await createKeyPairSignerFromBytes(new Uint8Array(JSON.parse(readFileSync(path, 'utf8'))));
    const rpc = createSolanaRpc(url);
    return { rpc, rpcUrl: url, payer, setup: await ensureLaunchpad(rpc, payer), kind: 'anchor', stop: () => {} };
  }
  const authority = await generateKeyPairSigner();
  const [rpcPort, grpcPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    binary('localnet'),
    ['--rpc-addr', `127.0.0.1:${rpcPort}`, '--grpc-addr', `127.0.0.1:${grpcPort}`, '--oracle-secs', '0', '--deploy-only', authority.address],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const rpc = createSolanaRpc(rpcUrl);
  await waitFor('localnet', async () => (await rpc.getSlot().send()) >= 0n);
  const c = { rpc, payer: authority };
  await fund(c, authority.address, 1_000n);
  return { rpc, rpcUrl, payer: authority, setup: await ensureLaunchpad(rpc, authority), kind: 'localnet', stop: () => child.kill('SIGKILL') };
}
