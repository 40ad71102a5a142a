// Sending and simulating on @solana/kit with an RPC alone: `send` signs with any kit `TransactionSigner` (a
// key pair, a Wallet Standard wallet's signer, a sending signer that submits itself), sets the compute-unit
// price and limit when asked, sends (with or without preflight) and waits for the commitment until the
// blockhash expires, or until the caller's `AbortSignal` fires. `simulate` runs instructions without signing.
// Both throw the failed instruction's decoded `ProgramError` (src/errors.ts).
import {
  type Address,
  appendTransactionMessageInstructions,
  type Commitment,
  compileTransaction,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  isTransactionSendingSigner,
  isWritableRole,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Signature,
  signAndSendTransactionMessageWithSigners,
  signTransactionMessageWithSigners,
  type TransactionError,
  type TransactionSigner,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { decodeKitError, decodeTransactionError, TransactionFailed } from './errors.js';
import type { LaunchpadRpc } from './read.js';

export interface SendOptions {
  /** Priority fee: micro-lamports per compute unit (`SetComputeUnitPrice`), or `{ recentPercentile }`: that
   * percentile of what landed recently on the accounts the transaction writes (`recentComputeUnitPrice`);
   * none by default. */
  computeUnitPrice?: bigint | number | { recentPercentile: number };
  /** The compute-unit limit, replacing the one the builders set. */
  computeUnitLimit?: number;
  /** Send without the RPC's simulation (a failure is then reported from chain, with its signature). */
  skipPreflight?: boolean;
  /** Wait until `confirmed` (default) or `finalized`. */
  commitment?: 'confirmed' | 'finalized';
  /** Stop waiting (and reject with its reason) when this fires. */
  abortSignal?: AbortSignal;
  /** Status polling interval, ms (default 300). */
  pollMs?: number;
}

/** The transaction's blockhash expired before it reached the commitment: it will never land. */
export class TransactionExpired extends TransactionFailed {
  constructor(signature: Signature, lastValidBlockHeight: bigint) {
    super(signature, undefined, 'on-chain', [], `transaction ${signature} expired: block height passed ${lastValidBlockHeight} before it was confirmed`);
    this.name = 'TransactionExpired';
  }
}

const isBudget = (ix: Instruction, discriminator: number) => ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS && ix.data?.[0] === discriminator;
const SET_LIMIT = 2;
const SET_PRICE = 3;

/** A compute-unit price (micro-lamports) from the cluster's recent prioritization fees on the accounts
 * `instructions` write: the `percentile` (0 to 100) of the last slots' prices (`getRecentPrioritizationFees`),
 * rounded up. */
export async function recentComputeUnitPrice(rpc: LaunchpadRpc, instructions: readonly Instruction[], percentile = 50, abortSignal?: AbortSignal): Promise<bigint> {
  if (!(percentile >= 0 && percentile <= 100)) throw new RangeError(`percentile ${percentile}: 0 to 100`);
  const writable = [...new Set(instructions.flatMap((ix) => (ix.accounts ?? []).filter((a) => isWritableRole(a.role)).map((a) => a.address)))].slice(0, 128);
  const fees = (await rpc.getRecentPrioritizationFees(writable).send({ abortSignal })).map((f) => BigInt(f.prioritizationFee)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (fees.length === 0) return 0n;
  return fees[Math.min(fees.length - 1, Math.ceil((percentile / 100) * fees.length) - (percentile === 0 ? 0 : 1))];
}

/** `instructions` with the compute-budget options applied: a given limit or price replaces the one present. */
export function withComputeBudget(instructions: readonly Instruction[], o: { computeUnitLimit?: number; computeUnitPrice?: bigint | number }): Instruction[] {
  let out = [...instructions];
  const head: Instruction[] = [];
  if (o.computeUnitLimit !== undefined) {
    out = out.filter((ix) => !isBudget(ix, SET_LIMIT));
    head.push(getSetComputeUnitLimitInstruction({ units: o.computeUnitLimit }));
  }
  if (o.computeUnitPrice !== undefined) {
    out = out.filter((ix) => !isBudget(ix, SET_PRICE));
    head.push(getSetComputeUnitPriceInstruction({ microLamports: BigInt(o.computeUnitPrice) }));
  }
  return [...head, ...out];
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

const reached = (status: string | null | undefined, want: Commitment) => status === 'finalized' || (want !== 'finalized' && status === 'confirmed');

/** The logs of a landed transaction (for the error of a failed one). */
async function logsOf(rpc: LaunchpadRpc, signature: Signature): Promise<string[]> {
  try {
    const tx = await rpc.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    return [...(tx?.meta?.logMessages ?? [])];
  } catch {
    return [];
  }
}

/** Waits until `signature` reaches `commitment`, throws its decoded failure, or `TransactionExpired` once
 * the block height passed `lastValidBlockHeight` without it. */
export async function confirm(
  rpc: LaunchpadRpc,
  signature: Signature,
  lastValidBlockHeight: bigint,
  programs: readonly Address[],
  o: Pick<SendOptions, 'commitment' | 'abortSignal' | 'pollMs'> = {},
): Promise<Signature> {
  const commitment = o.commitment ?? 'confirmed';
  for (let round = 0; ; round++) {
    o.abortSignal?.throwIfAborted();
    const { value } = await rpc.getSignatureStatuses([signature]).send({ abortSignal: o.abortSignal });
    const status = value[0];
    if (status?.err) throw decodeTransactionError(status.err as TransactionError, programs, { signature, phase: 'on-chain', logs: await logsOf(rpc, signature) });
    if (status && reached(status.confirmationStatus, commitment)) return signature;
    // The block height every few rounds: past the blockhash's last valid height, the transaction cannot land.
    if (!status && round % 4 === 3) {
      const height = await rpc.getBlockHeight({ commitment: 'confirmed' }).send({ abortSignal: o.abortSignal });
      if (height > lastValidBlockHeight) {
        const again = (await rpc.getSignatureStatuses([signature]).send()).value[0];
        if (!again) throw new TransactionExpired(signature, lastValidBlockHeight);
      }
    }
    await sleep(o.pollMs ?? 300, o.abortSignal);
  }
}

/** Signs `instructions` with `payer` (any kit `TransactionSigner`, and any signer the instructions name),
 * sends them and waits for `confirmed` (or `options.commitment`). A failure throws a `ProgramError` (the
 * failed instruction decoded) or a `TransactionFailed`. */
export async function send(rpc: LaunchpadRpc, payer: TransactionSigner, instructions: readonly Instruction[], options: SendOptions = {}): Promise<Signature> {
  const signal = options.abortSignal;
  const price = options.computeUnitPrice;
  const ixs = withComputeBudget(instructions, {
    computeUnitLimit: options.computeUnitLimit,
    computeUnitPrice: typeof price === 'object' ? await recentComputeUnitPrice(rpc, instructions, price.recentPercentile, signal) : price,
  });
  const programs = ixs.map((ix) => ix.programAddress);
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: signal });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (tx) => setTransactionMessageFeePayerSigner(payer, tx),
    (tx) => setTransactionMessageLifetimeUsingBlockhash(blockhash, tx),
    (tx) => appendTransactionMessageInstructions(ixs, tx),
  );
  let signature: Signature;
  try {
    if (isTransactionSendingSigner(payer)) {
      // A wallet that signs and sends itself.
      signature = getBase58Decoder().decode(await signAndSendTransactionMessageWithSigners(message, { abortSignal: signal })) as Signature;
    } else {
      const signed = await signTransactionMessageWithSigners(message, { abortSignal: signal });
      signature = getSignatureFromTransaction(signed);
      await rpc
        .sendTransaction(getBase64EncodedWireTransaction(signed), {
          encoding: 'base64',
          skipPreflight: options.skipPreflight ?? false,
          preflightCommitment: 'confirmed',
        })
        .send({ abortSignal: signal });
    }
  } catch (e) {
    throw decodeKitError(e, programs);
  }
  return confirm(rpc, signature, blockhash.lastValidBlockHeight, programs, options);
}

export interface Simulation {
  unitsConsumed: bigint | undefined;
  logs: string[];
}

/** Runs `instructions` as `feePayer`'s transaction without signing or sending it (the RPC's simulation, with
 * a fresh blockhash); throws the failure decoded, like `send`. */
export async function simulate(
  rpc: LaunchpadRpc,
  feePayer: Address | TransactionSigner,
  instructions: readonly Instruction[],
  options: { computeUnitLimit?: number; computeUnitPrice?: bigint | number; abortSignal?: AbortSignal; commitment?: Commitment } = {},
): Promise<Simulation> {
  const ixs = withComputeBudget(instructions, options);
  const payer = typeof feePayer === 'string' ? feePayer : feePayer.address;
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: options.abortSignal });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (tx) => setTransactionMessageFeePayer(payer, tx),
    (tx) => setTransactionMessageLifetimeUsingBlockhash(blockhash, tx),
    (tx) => appendTransactionMessageInstructions(ixs, tx),
  );
  const wire = getBase64EncodedWireTransaction(compileTransaction(message));
  const { value } = await rpc
    .simulateTransaction(wire, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: options.commitment ?? 'confirmed' })
    .send({ abortSignal: options.abortSignal });
  const logs = [...(value.logs ?? [])];
  if (value.err) throw decodeTransactionError(value.err as TransactionError, ixs.map((ix) => ix.programAddress), { phase: 'simulation', logs });
  return { unitsConsumed: value.unitsConsumed ?? undefined, logs };
}
