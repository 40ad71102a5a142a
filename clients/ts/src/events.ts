// The programs' events read out of a transaction: both programs emit with `emit_cpi!`, a self-invocation
// whose data is Anchor's 8-byte event tag, the event's 8-byte discriminator and its fields. `readEvents`
// fetches a transaction by signature; `eventsOfTransaction` reads a `getTransaction` response (JSON encoding)
// already at hand. Each event is typed by program and name (`EvtSwap`, ...) with its fields decoded.
import { type Address, type Decoder, getBase58Encoder, type Signature } from '@solana/kit';
import * as lp from './generated/launchpad/index.js';
import * as amm from './generated/amm/index.js';
import { AMM_PROGRAM_ADDRESS, LAUNCHPAD_PROGRAM_ADDRESS } from './keys.js';
import type { LaunchpadRpc, ReadOptions } from './read.js';

/** Anchor's `EVENT_IX_TAG` (`0x1d9acb512ea545e4`, little-endian): the first bytes of an event's self-CPI. */
export const EVENT_IX_TAG = Uint8Array.of(0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d);

interface Located {
  /** The top-level instruction whose execution emitted it. */
  instructionIndex: number;
  /** Its position among that instruction's inner instructions. */
  innerIndex: number;
}

/** An event of the launchpad program. */
export type LaunchpadEvent = Located & { program: 'launchpad' } & (
    | { name: 'EvtClaim'; data: lp.EvtClaim }
    | { name: 'EvtCreateLaunch'; data: lp.EvtCreateLaunch }
    | { name: 'EvtCreatorProposed'; data: lp.EvtCreatorProposed }
    | { name: 'EvtCreatorTransferred'; data: lp.EvtCreatorTransferred }
    | { name: 'EvtCurveComplete'; data: lp.EvtCurveComplete }
    | { name: 'EvtFeeSharesSet'; data: lp.EvtFeeSharesSet }
    | { name: 'EvtMigrate'; data: lp.EvtMigrate }
    | { name: 'EvtSwap'; data: lp.EvtSwap }
  );

/** An event of the AMM program. */
export type AmmEvent = Located & { program: 'amm' } & (
    | { name: 'EvtAddLiquidity'; data: amm.EvtAddLiquidity }
    | { name: 'EvtClaimPositionFee'; data: amm.EvtClaimPositionFee }
    | { name: 'EvtCreatePool'; data: amm.EvtCreatePool }
    | { name: 'EvtCreatePosition'; data: amm.EvtCreatePosition }
    | { name: 'EvtLockPosition'; data: amm.EvtLockPosition }
    | { name: 'EvtRemoveLiquidity'; data: amm.EvtRemoveLiquidity }
    | { name: 'EvtSwap'; data: amm.EvtSwap }
  );

export type ProgramEvent = LaunchpadEvent | AmmEvent;

const DECODERS: Record<'launchpad' | 'amm', [string, () => Decoder<unknown>][]> = {
  launchpad: [
    ['EvtClaim', lp.getEvtClaimDecoder],
    ['EvtCreateLaunch', lp.getEvtCreateLaunchDecoder],
    ['EvtCreatorProposed', lp.getEvtCreatorProposedDecoder],
    ['EvtCreatorTransferred', lp.getEvtCreatorTransferredDecoder],
    ['EvtCurveComplete', lp.getEvtCurveCompleteDecoder],
    ['EvtFeeSharesSet', lp.getEvtFeeSharesSetDecoder],
    ['EvtMigrate', lp.getEvtMigrateDecoder],
    ['EvtSwap', lp.getEvtSwapDecoder],
  ],
  amm: [
    ['EvtAddLiquidity', amm.getEvtAddLiquidityDecoder],
    ['EvtClaimPositionFee', amm.getEvtClaimPositionFeeDecoder],
    ['EvtCreatePool', amm.getEvtCreatePoolDecoder],
    ['EvtCreatePosition', amm.getEvtCreatePositionDecoder],
    ['EvtLockPosition', amm.getEvtLockPositionDecoder],
    ['EvtRemoveLiquidity', amm.getEvtRemoveLiquidityDecoder],
    ['EvtSwap', amm.getEvtSwapDecoder],
  ],
};

/** The event in an instruction's data of `program` (the launchpad's or the AMM's address), or null when the
 * data is not an event of it (not a self-CPI's tag, or an unknown discriminator). */
export function decodeEvent(program: Address, data: Uint8Array, at: Located = { instructionIndex: 0, innerIndex: 0 }): ProgramEvent | null {
  const name = program === LAUNCHPAD_PROGRAM_ADDRESS ? 'launchpad' : program === AMM_PROGRAM_ADDRESS ? 'amm' : null;
  if (!name || data.length < 16 || !EVENT_IX_TAG.every((b, i) => data[i] === b)) return null;
  const body = data.subarray(8);
  for (const [event, decoder] of DECODERS[name]) {
    try {
      return { program: name, name: event, data: decoder().decode(body), ...at } as ProgramEvent;
    } catch {
      // another event's discriminator
    }
  }
  return null;
}

/** The parts of a `getTransaction` response (JSON encoding, version 0 supported) the reader uses. */
export interface TransactionWithMeta {
  transaction: { message: { accountKeys: readonly string[] } };
  meta: {
    err?: unknown;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
    innerInstructions?: readonly { index: number; instructions: readonly { programIdIndex: number; data: string }[] }[] | null;
  } | null;
}

const base58 = getBase58Encoder();

/** Every launchpad and AMM event in a transaction, in execution order (none for a failed transaction). */
export function eventsOfTransaction(tx: TransactionWithMeta): ProgramEvent[] {
  if (!tx.meta || tx.meta.err) return [];
  const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const out: ProgramEvent[] = [];
  for (const group of tx.meta.innerInstructions ?? []) {
    group.instructions.forEach((ix, innerIndex) => {
      const e = decodeEvent(keys[ix.programIdIndex] as Address, new Uint8Array(base58.encode(ix.data)), { instructionIndex: group.index, innerIndex });
      if (e) out.push(e);
    });
  }
  return out;
}

/** The events of the transaction `signature` (at `confirmed` unless told); throws if it is not found. */
export async function readEvents(rpc: LaunchpadRpc, signature: Signature, o: ReadOptions = {}): Promise<ProgramEvent[]> {
  const commitment = o.commitment === 'finalized' ? 'finalized' : 'confirmed';
  const tx = await rpc.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0, encoding: 'json' }).send({ abortSignal: o.abortSignal });
  if (!tx) throw new Error(`transaction ${signature} not found at ${commitment}`);
  return eventsOfTransaction(tx as unknown as TransactionWithMeta);
}
