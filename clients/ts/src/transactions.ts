// Transaction builders for the launchpad's journeys (launch, buy, sell, migrate, claims) and a sender, on
// @solana/kit alone: each builder returns the instructions of one transaction, the way the API's own builds
// are made (SOL wrapped into and unwrapped out of the wallet's wrapped-SOL account in the same transaction,
// token accounts created idempotently, a compute-unit limit). `send` (src/send.ts) sends them.
import { type Address, type Instruction, type TransactionSigner } from '@solana/kit';
import {
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getSyncNativeInstruction,
} from '@solana-program/token';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import * as lp from './generated/launchpad/index.js';
import {
  associatedTokenAddress,
  type LaunchKeys,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from './keys.js';

/** `SetComputeUnitLimit(units)` of the Compute Budget program. */
export const computeUnitLimit = (units: number): Instruction => getSetComputeUnitLimitInstruction({ units });

/** A System Program transfer of `lamports` from `from` (signs) to `to`. */
export const transferLamports = (from: TransactionSigner, to: Address, lamports: bigint): Instruction =>
  getTransferSolInstruction({ source: from, destination: to, amount: lamports });

/** `owner`'s associated account of `mint`, created if missing (paid by `payer`). */
export async function ensureTokenAccount(payer: TransactionSigner, owner: Address, mint: Address, tokenProgram: Address): Promise<[Address, Instruction]> {
  const ata = await associatedTokenAddress(owner, mint, tokenProgram);
  const ix = await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, ata, owner, mint, tokenProgram });
  return [ata, ix];
}

/** Moves `lamports` into `owner`'s wrapped-SOL account (created if needed). */
export async function wrapSol(owner: TransactionSigner, lamports: bigint): Promise<Instruction[]> {
  const [wsol, create] = await ensureTokenAccount(owner, owner.address, NATIVE_MINT, TOKEN_PROGRAM);
  return [create, transferLamports(owner, wsol, lamports), getSyncNativeInstruction({ account: wsol })];
}

/** Closes `owner`'s wrapped-SOL account: what it holds and its rent return as SOL. */
export async function unwrapSol(owner: TransactionSigner): Promise<Instruction> {
  const wsol = await associatedTokenAddress(owner.address, NATIVE_MINT, TOKEN_PROGRAM);
  return getCloseAccountInstruction({ account: wsol, destination: owner.address, owner });
}

export interface LaunchParams {
  creator: TransactionSigner;
  /** From `deriveLaunchKeys(creator, salt, preset, quoteMint)`. */
  keys: LaunchKeys;
  salt: bigint;
  name: string;
  symbol: string;
  uri: string;
  /** A first buy in the same transaction: quote offered (fee included) and the least tokens accepted. */
  firstBuy?: { amountIn: bigint; minAmountOut: bigint };
  /** Shared creator fees, set before any trade: 1 to 10 wallets, bps summing to 10,000. */
  feeShares?: { recipients: { wallet: Address; bps: number }[]; lock: boolean };
}

/** `create_launch`, optional fee shares, optional first buy. */
export async function launchInstructions(p: LaunchParams): Promise<Instruction[]> {
  const k = p.keys;
  const ixs: Instruction[] = [computeUnitLimit(400_000)];
  ixs.push(
    await lp.getCreateLaunchInstructionAsync({
      creator: p.creator,
      config: k.config,
      mint: k.mint,
      pool: k.pool,
      baseVault: k.baseVault,
      quoteMint: k.quoteMint,
      quoteVault: k.quoteVault,
      baseTokenProgram: TOKEN_2022_PROGRAM,
      quoteTokenProgram: k.quoteTokenProgram,
      name: p.name,
      symbol: p.symbol,
      uri: p.uri,
      salt: p.salt,
    }),
  );
  if (p.feeShares) {
    ixs.push(
      await lp.getSetFeeSharesInstructionAsync({
        creator: p.creator,
        pool: k.pool,
        feeShares: k.feeShares,
        recipients: p.feeShares.recipients,
        lock: p.feeShares.lock,
      }),
    );
  }
  if (p.firstBuy) ixs.push(...(await swapInstructions({ trader: p.creator, keys: k, side: 'buy', amount: p.firstBuy.amountIn, limit: p.firstBuy.minAmountOut })).slice(1));
  return ixs;
}

export interface SwapParams {
  trader: TransactionSigner;
  keys: LaunchKeys;
  side: 'buy' | 'sell';
  /** `exactIn` (default): `amount` is spent and `limit` is the least received. `exactOut`: `amount` is
   * received and `limit` the most spent. */
  mode?: 'exactIn' | 'exactOut';
  amount: bigint;
  limit: bigint;
  /** A referral's quote token account (not the trader's), paid its share of the partner's fee. */
  referralQuoteAccount?: Address;
}

/** A curve trade between the trader's associated accounts (SOL wrapped and unwrapped around it). */
export async function swapInstructions(p: SwapParams): Promise<Instruction[]> {
  const k = p.keys;
  const exactOut = p.mode === 'exactOut';
  const sol = k.quoteMint === NATIVE_MINT;
  const ixs: Instruction[] = [computeUnitLimit(200_000)];
  const quoteAccount = await associatedTokenAddress(p.trader.address, k.quoteMint, k.quoteTokenProgram);
  if (sol && p.side === 'buy') ixs.push(...(await wrapSol(p.trader, exactOut ? p.limit : p.amount)));
  else ixs.push((await ensureTokenAccount(p.trader, p.trader.address, k.quoteMint, k.quoteTokenProgram))[1]);
  const [baseAccount, createBase] = await ensureTokenAccount(p.trader, p.trader.address, k.mint, TOKEN_2022_PROGRAM);
  ixs.push(createBase);
  const accounts = {
    trader: p.trader,
    config: k.config,
    pool: k.pool,
    baseMint: k.mint,
    quoteMint: k.quoteMint,
    baseVault: k.baseVault,
    quoteVault: k.quoteVault,
    traderBaseAccount: baseAccount,
    traderQuoteAccount: quoteAccount,
    baseTokenProgram: TOKEN_2022_PROGRAM,
    quoteTokenProgram: k.quoteTokenProgram,
    referralQuoteAccount: p.referralQuoteAccount,
    side: p.side === 'buy' ? 0 : 1,
  };
  ixs.push(
    exactOut
      ? await lp.getSwapExactOutInstructionAsync({ ...accounts, amountOut: p.amount, maxAmountIn: p.limit })
      : await lp.getSwapInstructionAsync({ ...accounts, amountIn: p.amount, minAmountOut: p.limit }),
  );
  if (sol) ixs.push(await unwrapSol(p.trader));
  return ixs;
}

/** `migrate` of a completed curve into the AMM (anyone may send it; the sender pays the new accounts' rent). */
export async function migrateInstructions(migrator: TransactionSigner, k: LaunchKeys): Promise<Instruction[]> {
  return [
    computeUnitLimit(400_000),
    await lp.getMigrateInstructionAsync({
      migrator,
      config: k.config,
      pool: k.pool,
      baseMint: k.mint,
      quoteMint: k.quoteMint,
      baseVault: k.baseVault,
      quoteVault: k.quoteVault,
      ammPool: k.amm.pool,
      ammVaultA: k.amm.vaultA,
      ammVaultB: k.amm.vaultB,
      creatorPosition: k.creatorPosition,
      partnerPosition: k.partnerPosition,
      baseTokenProgram: TOKEN_2022_PROGRAM,
      quoteTokenProgram: k.quoteTokenProgram,
    }),
  ];
}

export type ClaimKind = 'trading' | 'surplus' | 'locked-lp' | 'share';

/** A claim by `claimer` (the creator role, the partner, or a fee-share recipient), paid into its associated
 * accounts (SOL arrives as SOL). `locked-lp` claims the role's locked position (`role`). */
export async function claimInstructions(
  claimer: TransactionSigner,
  k: LaunchKeys,
  kind: ClaimKind,
  opts: { role?: 'creator' | 'partner'; collectSharedLpFees?: boolean } = {},
): Promise<Instruction[]> {
  const ixs: Instruction[] = [computeUnitLimit(300_000)];
  const [quoteAccount, createQuote] = await ensureTokenAccount(claimer, claimer.address, k.quoteMint, k.quoteTokenProgram);
  const common = { config: k.config, pool: k.pool, quoteMint: k.quoteMint, quoteVault: k.quoteVault, quoteTokenProgram: k.quoteTokenProgram };
  switch (kind) {
    case 'trading':
      ixs.push(createQuote, await lp.getClaimTradingFeeInstructionAsync({ claimer, ...common, claimerQuoteAccount: quoteAccount }));
      break;
    case 'surplus':
      ixs.push(createQuote, await lp.getClaimSurplusInstructionAsync({ claimer, ...common, claimerQuoteAccount: quoteAccount }));
      break;
    case 'locked-lp': {
      const a = k.amm;
      const [toA, createA] = await ensureTokenAccount(claimer, claimer.address, a.mintA, a.tokenProgramA);
      const [toB, createB] = await ensureTokenAccount(claimer, claimer.address, a.mintB, a.tokenProgramB);
      ixs.push(
        createA,
        createB,
        await lp.getClaimLockedLpFeeInstructionAsync({
          claimer,
          config: k.config,
          pool: k.pool,
          ammPool: a.pool,
          position: opts.role === 'partner' ? k.partnerPosition : k.creatorPosition,
          mintA: a.mintA,
          mintB: a.mintB,
          ammVaultA: a.vaultA,
          ammVaultB: a.vaultB,
          claimerA: toA,
          claimerB: toB,
          tokenProgramA: a.tokenProgramA,
          tokenProgramB: a.tokenProgramB,
        }),
      );
      break;
    }
    case 'share': {
      const [baseAccount, createBase] = await ensureTokenAccount(claimer, claimer.address, k.mint, TOKEN_2022_PROGRAM);
      ixs.push(createQuote, createBase);
      if (opts.collectSharedLpFees) {
        const a = k.amm;
        ixs.push(
          await lp.getShareLockedLpFeeInstructionAsync({
            sender: claimer,
            pool: k.pool,
            feeShares: k.feeShares,
            ammPool: a.pool,
            position: k.creatorPosition,
            mintA: a.mintA,
            mintB: a.mintB,
            ammVaultA: a.vaultA,
            ammVaultB: a.vaultB,
            baseVault: k.baseVault,
            quoteVault: k.quoteVault,
            tokenProgramA: a.tokenProgramA,
            tokenProgramB: a.tokenProgramB,
          }),
        );
      }
      ixs.push(
        await lp.getClaimFeeShareInstructionAsync({
          recipient: claimer,
          pool: k.pool,
          feeShares: k.feeShares,
          baseMint: k.mint,
          quoteMint: k.quoteMint,
          baseVault: k.baseVault,
          quoteVault: k.quoteVault,
          recipientQuoteAccount: quoteAccount,
          recipientBaseAccount: baseAccount,
          baseTokenProgram: TOKEN_2022_PROGRAM,
          quoteTokenProgram: k.quoteTokenProgram,
        }),
      );
      break;
    }
  }
  if (k.quoteMint === NATIVE_MINT) ixs.push(await unwrapSol(claimer));
  return ixs;
}
