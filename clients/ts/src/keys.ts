// Every address of one launch, derived as the programs derive them (`crates/sdk`'s `LaunchKeys` and
// `AmmKeys`): the mint from its creator and salt, the pool and vaults, the config of a (preset, quote), the
// AMM pool it migrates into (mints ordered by their bytes), its vaults and the two locked positions.
import {
  type Address,
  address,
  getAddressEncoder,
  getProgramDerivedAddress,
  getU64Encoder,
  getUtf8Encoder,
} from '@solana/kit';
import { LAUNCHPAD_PROGRAM_ADDRESS } from './generated/launchpad/index.js';
import { AMM_PROGRAM_ADDRESS } from './generated/amm/index.js';

export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
export const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
/** Wrapped SOL: the quote mint of every SOL launch. */
export const NATIVE_MINT = address('So11111111111111111111111111111111111111112');
export { LAUNCHPAD_PROGRAM_ADDRESS, AMM_PROGRAM_ADDRESS };

/** The presets and quotes as the programs number them (`curve::Preset`, `curve::QuoteAsset`). */
export const PRESETS = { fair: 0, distribute: 1, shield: 2 } as const;
export type PresetName = keyof typeof PRESETS;
/** AMM position ids of the two locked positions a migration opens. */
export const CREATOR_POSITION_ID = 0n;
export const PARTNER_POSITION_ID = 1n;

const utf8 = getUtf8Encoder();
const addr = getAddressEncoder();
const u64 = getU64Encoder();

/** A seed: text (`'pool'`), an address (`{ address }`), a u64 (little-endian) or raw bytes. */
type Seed = string | { address: Address } | bigint | Uint8Array;

async function pda(program: Address, seeds: Seed[]): Promise<Address> {
  const bytes = seeds.map((s) =>
    typeof s === 'bigint' ? u64.encode(s) : s instanceof Uint8Array ? s : typeof s === 'string' ? utf8.encode(s) : addr.encode(s.address),
  );
  const [found] = await getProgramDerivedAddress({ programAddress: program, seeds: bytes });
  return found;
}
const A = (address: Address) => ({ address });

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export const associatedTokenAddress = (owner: Address, mint: Address, tokenProgram: Address): Promise<Address> =>
  pda(ASSOCIATED_TOKEN_PROGRAM, [A(owner), A(tokenProgram), A(mint)]);

export const globalAddress = () => pda(LAUNCHPAD_PROGRAM_ADDRESS, ['global']);
export const configAddress = (preset: number, quoteMint: Address) =>
  pda(LAUNCHPAD_PROGRAM_ADDRESS, ['config', Uint8Array.of(preset), A(quoteMint)]);
/** The mint a creator launches with `salt` (`["mint", creator, salt_le]`). */
export const mintAddress = (creator: Address, salt: bigint) => pda(LAUNCHPAD_PROGRAM_ADDRESS, ['mint', A(creator), salt]);
export const poolAddress = (mint: Address) => pda(LAUNCHPAD_PROGRAM_ADDRESS, ['pool', A(mint)]);
export const feeSharesAddress = (pool: Address) => pda(LAUNCHPAD_PROGRAM_ADDRESS, ['fee_shares', A(pool)]);
export const eventAuthority = () => pda(LAUNCHPAD_PROGRAM_ADDRESS, ['__event_authority']);
export const ammEventAuthority = () => pda(AMM_PROGRAM_ADDRESS, ['__event_authority']);

/** Byte order of two addresses (the AMM orders a pool's mints by it). */
export function compareAddresses(a: Address, b: Address): number {
  const x = addr.encode(a);
  const y = addr.encode(b);
  for (let i = 0; i < 32; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

export interface AmmKeys {
  pool: Address;
  mintA: Address;
  mintB: Address;
  vaultA: Address;
  vaultB: Address;
  tokenProgramA: Address;
  tokenProgramB: Address;
}

/** The AMM pool `creator` (a launch's pool, for a migration) makes for two mints, in the AMM's order. */
export async function ammKeys(creator: Address, x: [Address, Address], y: [Address, Address]): Promise<AmmKeys> {
  const [[mintA, tokenProgramA], [mintB, tokenProgramB]] = compareAddresses(x[0], y[0]) < 0 ? [x, y] : [y, x];
  const pool = await pda(AMM_PROGRAM_ADDRESS, ['pool', A(creator), A(mintA), A(mintB)]);
  return {
    pool,
    mintA,
    mintB,
    vaultA: await pda(AMM_PROGRAM_ADDRESS, ['vault', A(pool), A(mintA)]),
    vaultB: await pda(AMM_PROGRAM_ADDRESS, ['vault', A(pool), A(mintB)]),
    tokenProgramA,
    tokenProgramB,
  };
}

export const positionAddress = (ammPool: Address, owner: Address, id: bigint) =>
  pda(AMM_PROGRAM_ADDRESS, ['position', A(ammPool), A(owner), id]);

/** Every address of one launch. */
export interface LaunchKeys {
  creator: Address;
  config: Address;
  mint: Address;
  pool: Address;
  baseVault: Address;
  quoteMint: Address;
  quoteVault: Address;
  quoteTokenProgram: Address;
  feeShares: Address;
  amm: AmmKeys;
  creatorPosition: Address;
  partnerPosition: Address;
}

/** The keys of the launch of `mint` by `creator` on `config` against `quoteMint`. */
export async function launchKeys(creator: Address, config: Address, quoteMint: Address, mint: Address): Promise<LaunchKeys> {
  const pool = await poolAddress(mint);
  const amm = await ammKeys(pool, [mint, TOKEN_2022_PROGRAM], [quoteMint, TOKEN_PROGRAM]);
  return {
    creator,
    config,
    mint,
    pool,
    baseVault: await pda(LAUNCHPAD_PROGRAM_ADDRESS, ['base_vault', A(pool)]),
    quoteMint,
    quoteVault: await pda(LAUNCHPAD_PROGRAM_ADDRESS, ['quote_vault', A(pool)]),
    quoteTokenProgram: TOKEN_PROGRAM,
    feeShares: await feeSharesAddress(pool),
    amm,
    creatorPosition: await positionAddress(amm.pool, pool, CREATOR_POSITION_ID),
    partnerPosition: await positionAddress(amm.pool, pool, PARTNER_POSITION_ID),
  };
}

/** The keys of a new launch: `creator`'s mint with `salt`, on the config of `preset` against `quoteMint`. */
export async function deriveLaunchKeys(creator: Address, salt: bigint, preset: PresetName, quoteMint: Address): Promise<LaunchKeys> {
  return launchKeys(creator, await configAddress(PRESETS[preset], quoteMint), quoteMint, await mintAddress(creator, salt));
}
