// The decoders without a chain: a transaction error as the RPC reports it, to the program that raised it
// (the innermost, from the logs), its code's name and message; the feed's event objects, typed with bigint
// amounts; the compute-budget options replacing what the builders set. The end-to-end tests
// (test/e2e/bot.test.ts, rest-journey.test.ts) check the same on real failures and a real feed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Address, TransactionError } from '@solana/kit';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import {
  AMM_PROGRAM_ADDRESS,
  decodeTransactionError,
  FeedError,
  LAUNCHPAD_PROGRAM_ADDRESS,
  parseFeedEvent,
  ProgramError,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TransactionFailed,
  withComputeBudget,
} from '../src/index.js';

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111' as Address;
const programs = [COMPUTE_BUDGET, SYSTEM_PROGRAM, LAUNCHPAD_PROGRAM_ADDRESS, AMM_PROGRAM_ADDRESS];

test('a custom error: the program at its instruction, the code named', () => {
  const e = decodeTransactionError({ InstructionError: [2, { Custom: 6014 }] } as TransactionError, programs, { phase: 'on-chain' });
  assert.ok(e instanceof ProgramError);
  assert.deepEqual([e.program, e.instructionIndex, e.code, e.codeName, e.errorMessage], ['launchpad', 2, 6014, 'SlippageExceeded', 'Slippage exceeded: output below the minimum']);
  const a = decodeTransactionError({ InstructionError: [3, { Custom: 2006 }] } as TransactionError, programs, { phase: 'preflight' });
  assert.ok(a instanceof ProgramError);
  assert.deepEqual([a.program, a.codeName], ['amm', 'ConstraintSeeds'], "Anchor's framework errors");
});

test("a token program's error inside a launchpad instruction is the token program's (from the logs)", () => {
  const logs = [
    `Program ${LAUNCHPAD_PROGRAM_ADDRESS} invoke [1]`,
    `Program ${TOKEN_2022_PROGRAM} invoke [2]`,
    'Program log: Error: insufficient funds',
    `Program ${TOKEN_2022_PROGRAM} failed: custom program error: 0x1`,
    `Program ${LAUNCHPAD_PROGRAM_ADDRESS} failed: custom program error: 0x1`,
  ];
  const e = decodeTransactionError({ InstructionError: [2, { Custom: 1 }] } as TransactionError, programs, { phase: 'on-chain', logs });
  assert.ok(e instanceof ProgramError);
  assert.deepEqual([e.program, e.programAddress, e.instructionIndex, e.codeName, e.errorMessage], ['token-2022', TOKEN_2022_PROGRAM, 2, 'InsufficientFunds', 'Insufficient funds']);
  assert.deepEqual(e.logs, logs);
});

test("the runtime's instruction errors, and failures that are no instruction's", () => {
  const e = decodeTransactionError({ InstructionError: [1, 'MissingRequiredSignature'] } as TransactionError, programs, { phase: 'preflight' });
  assert.ok(e instanceof ProgramError);
  assert.deepEqual([e.program, e.instructionIndex, e.code, e.codeName], ['system', 1, undefined, 'MissingRequiredSignature']);
  const f = decodeTransactionError('InsufficientFundsForFee' as TransactionError, programs, { phase: 'preflight' });
  assert.ok(f instanceof TransactionFailed && !(f instanceof ProgramError));
  assert.equal(f.err, 'InsufficientFundsForFee');
});

test('feed events typed: amounts of each kind as bigint, the rest as sent', () => {
  const trade = parseFeedEvent({ seq: 8, kind: 'trade', slot: 121, signature: 'S', time: 1, mint: 'M', venue: 'curve', side: 'buy', amountIn: '333333333', amountOut: '11862845927', baseAmount: '11862845927', quoteAmount: '333333333', fee: '3300330', priceAfter: '0.000000028449012841', cursor: '00', progressBps: 39 });
  assert.ok(trade.kind === 'trade');
  assert.deepEqual([trade.amountIn, trade.amountOut, trade.fee, trade.priceAfter, trade.progressBps], [333_333_333n, 11_862_845_927n, 3_300_330n, '0.000000028449012841', 39]);
  const curve = parseFeedEvent({ seq: 9, kind: 'curve', slot: 1, signature: 'S', time: 1, mint: 'M', quoteRaised: '330033003', baseReserve: '788137154073', quoteReserve: '330033003', currentFeeBps: 100 });
  assert.ok(curve.kind === 'curve');
  assert.deepEqual([curve.quoteRaised, curve.baseReserve, curve.currentFeeBps], [330_033_003n, 788_137_154_073n, 100]);
  const claim = parseFeedEvent({ seq: 10, kind: 'claim', slot: 1, signature: 'S', time: 1, mint: 'M', amount: '5', baseAmount: '0', claimKind: 'trading' });
  assert.ok(claim.kind === 'claim' && claim.amount === 5n && claim.baseAmount === 0n);
  const creator = parseFeedEvent({ seq: 12, kind: 'creator', slot: 1, signature: 'S', time: 1, mint: 'M', pool: 'P', change: 'accepted', creator: 'B', pendingCreator: null, previousCreator: 'A' });
  assert.ok(creator.kind === 'creator' && creator.creator === 'B' && creator.previousCreator === 'A' && creator.pendingCreator === null);
  const shares = parseFeedEvent({ seq: 13, kind: 'fee-shares', slot: 1, signature: 'S', time: 1, mint: 'M', pool: 'P', creator: 'B', recipients: [{ wallet: 'W', bps: 10000 }], locked: true });
  assert.ok(shares.kind === 'fee-shares' && shares.locked && shares.recipients[0].bps === 10_000);
  const comment = parseFeedEvent({ seq: 14, kind: 'comment', slot: 1, signature: 'S', time: 1, mint: 'M', id: 3, wallet: 'W', name: null, replyTo: null, text: 'gm', holding: '12' });
  assert.ok(comment.kind === 'comment' && comment.holding === 12n);
  assert.throws(() => parseFeedEvent({ seq: 11, kind: 'nope' }), FeedError);
});

test('compute-budget options replace the limit the builders set, and add a price', () => {
  const swap = { programAddress: LAUNCHPAD_PROGRAM_ADDRESS };
  const out = withComputeBudget([getSetComputeUnitLimitInstruction({ units: 200_000 }), swap], { computeUnitLimit: 150_000, computeUnitPrice: 10_000n });
  assert.equal(out.length, 3);
  assert.deepEqual([...out[0].data!], [2, ...new Uint8Array(new Uint32Array([150_000]).buffer)]);
  assert.equal(out[1].data![0], 3);
  assert.equal(out[2], swap);
  assert.deepEqual(withComputeBudget([swap], {}), [swap]);
});
