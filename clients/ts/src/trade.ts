// One trade path for a mint whatever its phase: the launch's state chooses the venue. On the curve (bonding),
// a quote at the chain's clock and a curve swap; a buy that completes the curve migrates it in the same
// transaction (as the API's build does). Graduated but not yet migrated: the migration and an AMM swap in one
// transaction, priced on the pool the migration makes. Migrated: an AMM swap. Exact in or exact out, buys and
// sells, with the trader's token accounts created as needed and SOL wrapped and unwrapped around the trade.
import { type Address, type Instruction, type Signature, type TransactionSigner } from '@solana/kit';
import * as ammIx from './generated/amm/index.js';
import { PoolStatus } from './generated/launchpad/index.js';
import { associatedTokenAddress, NATIVE_MINT, TOKEN_2022_PROGRAM } from './keys.js';
import * as m from './math/index.js';
import { chainTime, fetchLaunch, type Launch, type LaunchpadRpc, quote, type ReadOptions, readAccounts, withSlippage } from './read.js';
import { type SendOptions, send, withComputeBudget } from './send.js';
import { computeUnitLimit, ensureTokenAccount, migrateInstructions, swapInstructions, unwrapSol, wrapSol } from './transactions.js';

export type Venue = 'curve' | 'amm';

export interface TradeRequest {
  mint: Address;
  side: m.Side;
  /** `exactIn` (default): `amount` is spent. `exactOut`: `amount` is received. */
  mode?: 'exactIn' | 'exactOut';
  amount: bigint;
  /** Tolerance on the quote (bps): the least received (exact in) or the most spent (exact out). */
  slippageBps: number;
  /** Curve trades only: a referral's quote token account, paid its share of the partner's fee. */
  referralQuoteAccount?: Address;
}

/** What a trade does, as the program computes it now. */
export interface TradeQuote {
  venue: Venue;
  side: m.Side;
  mode: 'exactIn' | 'exactOut';
  /** What the trader pays (fee included; a graduating buy's refund excluded). */
  amountIn: bigint;
  /** What the trader receives. */
  amountOut: bigint;
  fee: bigint;
  feeBps: number;
  /** The instruction's bound: the least out (exact in) or the most in (exact out), at `slippageBps`. */
  limit: bigint;
  /** Curve buys: the part of the offer that stays with the trader because the buy completes the curve. */
  refund: bigint;
  /** The transaction migrates the launch into the AMM (a completing buy, or a graduated launch's trade). */
  migrates: boolean;
  launch: Launch;
}

export interface TradePlan extends TradeQuote {
  instructions: Instruction[];
}

/** The AMM pool a launch's migration makes (reserves and fee), before it exists. */
function poolAfterMigration(l: Launch): Pick<ammIx.AmmPool, 'reserveA' | 'reserveB' | 'feeBps' | 'mintA'> {
  const plan = m.planMigration(l.pool.baseReserve, l.pool.quoteReserve, l.pool.sqrtPrice, l.config.creatorSurplusShareBps);
  const [base, quoteAmount] = [plan.basePerPosition * 2n, plan.quotePerPosition * 2n];
  const baseIsA = l.keys.amm.mintA === l.keys.mint;
  return { mintA: l.keys.amm.mintA, reserveA: baseIsA ? base : quoteAmount, reserveB: baseIsA ? quoteAmount : base, feeBps: m.DEFAULT_SWAP_FEE_BPS };
}

/** Quotes `r` on the venue the launch's state chooses (`launch`: one already read, else read now). */
export async function quoteTrade(rpc: LaunchpadRpc, r: TradeRequest, o: ReadOptions & { launch?: Launch } = {}): Promise<TradeQuote> {
  const mode = r.mode ?? 'exactIn';
  const launch = o.launch ?? (await fetchLaunch(rpc, r.mint, o));
  const bound = (amountIn: bigint, amountOut: bigint) =>
    mode === 'exactIn' ? withSlippage(amountOut, r.slippageBps, 'minOut') : withSlippage(amountIn, r.slippageBps, 'maxIn');
  if (launch.pool.status === PoolStatus.Bonding) {
    const q = quote(launch, r.side, r.amount, await chainTime(rpc, o), mode);
    return {
      venue: 'curve', side: r.side, mode, amountIn: q.amountIn, amountOut: q.amountOut, fee: q.fee, feeBps: q.feeBps,
      limit: bound(q.amountIn, q.amountOut), refund: q.refund, migrates: r.side === 'buy' && q.completes, launch,
    };
  }
  let pool: Pick<ammIx.AmmPool, 'reserveA' | 'reserveB' | 'feeBps' | 'mintA'>;
  if (launch.pool.status === PoolStatus.Migrated) {
    const read = await readAccounts(rpc, [launch.keys.amm.pool], { ...o, minContextSlot: launch.slot });
    if (!read.data[0]) throw new Error(`the AMM pool ${launch.keys.amm.pool} of ${r.mint} does not exist`);
    pool = ammIx.getAmmPoolDecoder().decode(read.data[0]);
  } else {
    pool = poolAfterMigration(launch);
  }
  const tokenIn = r.side === 'buy' ? launch.keys.quoteMint : launch.keys.mint;
  const aToB = pool.mintA === tokenIn;
  const [reserveIn, reserveOut] = aToB ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA];
  const s = mode === 'exactIn' ? m.ammSwapExactIn(reserveIn, reserveOut, r.amount, pool.feeBps) : m.ammSwapExactOut(reserveIn, reserveOut, r.amount, pool.feeBps);
  return {
    venue: 'amm', side: r.side, mode, amountIn: s.amountIn, amountOut: s.amountOut, fee: s.fee, feeBps: pool.feeBps,
    limit: bound(s.amountIn, s.amountOut), refund: 0n, migrates: launch.pool.status === PoolStatus.Complete, launch,
  };
}

/** An AMM swap between `trader`'s associated accounts of the launch's two mints (SOL wrapped and unwrapped). */
async function ammSwapInstructions(trader: TransactionSigner, l: Launch, side: m.Side, mode: 'exactIn' | 'exactOut', amount: bigint, limit: bigint): Promise<Instruction[]> {
  const k = l.keys;
  const a = k.amm;
  const sol = k.quoteMint === NATIVE_MINT;
  const ixs: Instruction[] = [];
  if (sol && side === 'buy') ixs.push(...(await wrapSol(trader, mode === 'exactOut' ? limit : amount)));
  else ixs.push((await ensureTokenAccount(trader, trader.address, k.quoteMint, k.quoteTokenProgram))[1]);
  ixs.push((await ensureTokenAccount(trader, trader.address, k.mint, TOKEN_2022_PROGRAM))[1]);
  const tokenIn = side === 'buy' ? k.quoteMint : k.mint;
  const accounts = {
    trader,
    pool: a.pool,
    mintA: a.mintA,
    mintB: a.mintB,
    vaultA: a.vaultA,
    vaultB: a.vaultB,
    traderA: await associatedTokenAddress(trader.address, a.mintA, a.tokenProgramA),
    traderB: await associatedTokenAddress(trader.address, a.mintB, a.tokenProgramB),
    tokenProgramA: a.tokenProgramA,
    tokenProgramB: a.tokenProgramB,
    aToB: a.mintA === tokenIn,
  };
  ixs.push(
    mode === 'exactOut'
      ? await ammIx.getSwapExactOutInstructionAsync({ ...accounts, amountOut: amount, maxAmountIn: limit })
      : await ammIx.getSwapInstructionAsync({ ...accounts, amountIn: amount, minAmountOut: limit }),
  );
  if (sol) ixs.push(await unwrapSol(trader));
  return ixs;
}

/** Quotes `r` and builds its transaction's instructions for `trader` (one transaction). */
export async function buildTrade(rpc: LaunchpadRpc, trader: TransactionSigner, r: TradeRequest, o: ReadOptions & { launch?: Launch } = {}): Promise<TradePlan> {
  const q = await quoteTrade(rpc, r, o);
  const l = q.launch;
  let instructions: Instruction[];
  if (q.venue === 'curve') {
    instructions = await swapInstructions({ trader, keys: l.keys, side: r.side, mode: q.mode, amount: r.amount, limit: q.limit, referralQuoteAccount: r.referralQuoteAccount });
    if (q.migrates) instructions = withComputeBudget([...instructions, ...(await migrateInstructions(trader, l.keys)).slice(1)], { computeUnitLimit: 600_000 });
  } else {
    const swap = await ammSwapInstructions(trader, l, r.side, q.mode, r.amount, q.limit);
    instructions = q.migrates
      ? [computeUnitLimit(600_000), ...(await migrateInstructions(trader, l.keys)).slice(1), ...swap]
      : [computeUnitLimit(200_000), ...swap];
  }
  return { ...q, instructions };
}

/** One call per trade: quotes `r` on the launch's venue now, builds it and sends it as `trader`. */
export async function trade(
  rpc: LaunchpadRpc,
  trader: TransactionSigner,
  r: TradeRequest,
  o: SendOptions & ReadOptions = {},
): Promise<{ signature: Signature; plan: TradePlan }> {
  const plan = await buildTrade(rpc, trader, r, o);
  const signature = await send(rpc, trader, plan.instructions, o);
  return { signature, plan };
}
