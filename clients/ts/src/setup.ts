// A new cluster's launchpad set up by its upgrade authority, as `anchor test`'s validator (or any fresh
// deployment) needs before a launch: `initialize` (the signer becomes admin and partner), a local USDC-like
// mint when the cluster has none to pin, and the six pinned configs. Idempotent: what exists is kept.
import { type Address, address, generateKeyPairSigner, getAddressEncoder, getProgramDerivedAddress, type TransactionSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getInitializeMint2Instruction } from '@solana-program/token';
import * as lp from './generated/launchpad/index.js';
import { configAddress, globalAddress, LAUNCHPAD_PROGRAM_ADDRESS, NATIVE_MINT, PRESETS, TOKEN_PROGRAM } from './keys.js';
import { PINNED_PRESETS } from './presets.js';
import type { LaunchpadRpc } from './read.js';
import { send } from './send.js';

const UPGRADEABLE_LOADER = address('BPFLoaderUpgradeab1e11111111111111111111111');
const QUOTES = { sol: 0, usdc: 1 } as const;

/** A new classic SPL mint with `decimals`, `authority` its mint authority. */
export async function createMint(rpc: LaunchpadRpc, payer: TransactionSigner, authority: Address, decimals: number): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const rent = await rpc.getMinimumBalanceForRentExemption(82n).send();
  await send(rpc, payer, [
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: 82n, programAddress: TOKEN_PROGRAM }),
    getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: authority }),
  ]);
  return mint.address;
}

export interface LaunchpadSetup {
  usdcMint: Address;
  partner: Address;
  admin: Address;
  /** Whether this call initialized the program (false: it was already). */
  initialized: boolean;
}

/** Initializes the launchpad with `authority` (its upgrade authority) as admin and partner, pinning a new
 * USDC-like mint, and creates every missing pinned config. */
export async function ensureLaunchpad(rpc: LaunchpadRpc, authority: TransactionSigner): Promise<LaunchpadSetup> {
  const global = await lp.fetchMaybeGlobal(rpc, await globalAddress());
  let initialized = false;
  let usdcMint: Address;
  if (global.exists) {
    usdcMint = global.data.usdcMint;
  } else {
    usdcMint = await createMint(rpc, authority, authority.address, 6);
    const [programData] = await getProgramDerivedAddress({
      programAddress: UPGRADEABLE_LOADER,
      seeds: [getAddressEncoder().encode(LAUNCHPAD_PROGRAM_ADDRESS)],
    });
    await send(rpc, authority, [await lp.getInitializeInstructionAsync({ admin: authority, programData, usdcMint, partner: authority.address })]);
    initialized = true;
  }
  for (const p of PINNED_PRESETS) {
    const quoteMint = p.quote === 'sol' ? NATIVE_MINT : usdcMint;
    const config = await configAddress(PRESETS[p.preset], quoteMint);
    if ((await lp.fetchMaybeConfig(rpc, config)).exists) continue;
    await send(rpc, authority, [
      await lp.getCreateConfigInstructionAsync({
        admin: authority,
        config,
        quoteMint,
        preset: PRESETS[p.preset],
        quote: QUOTES[p.quote],
        sqrtStartPrice: p.sqrtStartPrice,
        segments: p.curve.segments.map((s) => ({ sqrtPriceUpper: s.sqrtPriceUpper, liquidity: s.liquidity })),
        fees: p.fees,
        threshold: p.threshold,
        creatorFeeShareBps: p.creatorFeeShareBps,
        creatorSurplusShareBps: p.creatorSurplusShareBps,
        referralShareBps: p.referralShareBps,
      }),
    ]);
  }
  const g = (await lp.fetchGlobal(rpc, await globalAddress())).data;
  return { usdcMint, partner: g.partner, admin: g.admin, initialized };
}
