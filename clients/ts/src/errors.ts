// Program errors decoded: a failed transaction (at preflight, in a simulation or on chain) becomes a
// `ProgramError` naming the program, the instruction's index in the transaction, the error's code, its name
// (the Rust variant: `SlippageExceeded`) and its message, for the launchpad and the AMM (their IDLs' errors),
// Anchor's framework errors (constraints, account checks), the token programs' and the System Program's, and
// the runtime's own instruction errors (`MissingRequiredSignature`, ...). A failure that is not an
// instruction's (`InsufficientFundsForFee`, ...) is a `TransactionFailed` with the RPC's error as it came.
import {
  type Address,
  isSolanaError,
  type Signature,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type TransactionError,
} from '@solana/kit';
import * as kitErrors from '@solana/kit';
import * as token from '@solana-program/token';
import * as system from '@solana-program/system';
import * as lp from './generated/launchpad/index.js';
import * as amm from './generated/amm/index.js';
import { AMM_PROGRAM_ADDRESS, ASSOCIATED_TOKEN_PROGRAM, LAUNCHPAD_PROGRAM_ADDRESS, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './keys.js';

/** The programs whose errors are named. */
export type ProgramName = 'launchpad' | 'amm' | 'token' | 'token-2022' | 'associated-token' | 'system' | 'compute-budget' | 'unknown';

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111' as Address;

const PROGRAMS: Record<string, ProgramName> = {
  [LAUNCHPAD_PROGRAM_ADDRESS]: 'launchpad',
  [AMM_PROGRAM_ADDRESS]: 'amm',
  [TOKEN_PROGRAM]: 'token',
  [TOKEN_2022_PROGRAM]: 'token-2022',
  [ASSOCIATED_TOKEN_PROGRAM]: 'associated-token',
  [SYSTEM_PROGRAM]: 'system',
  [COMPUTE_BUDGET_PROGRAM]: 'compute-budget',
};

/** `SLIPPAGE_EXCEEDED` -> `SlippageExceeded`. */
const pascal = (constant: string) =>
  constant
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

type Table = Map<number, { name: string; message: string }>;

/** A table of a Codama errors module: its `<PREFIX>__<NAME>` constants and their messages. */
function table(module: Record<string, unknown>, prefix: string, message: (code: never) => string): Table {
  const out: Table = new Map();
  for (const [key, value] of Object.entries(module)) {
    if (!key.startsWith(prefix) || typeof value !== 'number') continue;
    out.set(value, { name: pascal(key.slice(prefix.length)), message: message(value as never) });
  }
  return out;
}

// Anchor's framework errors (anchor-lang's `ErrorCode`), raised by account constraints before a handler runs.
const ANCHOR: [number, string, string][] = [
  [100, 'InstructionMissing', '8 byte instruction identifier not provided'],
  [101, 'InstructionFallbackNotFound', 'Fallback functions are not supported'],
  [102, 'InstructionDidNotDeserialize', 'The program could not deserialize the given instruction'],
  [103, 'InstructionDidNotSerialize', 'The program could not serialize the given instruction'],
  [2000, 'ConstraintMut', 'A mut constraint was violated'],
  [2001, 'ConstraintHasOne', 'A has one constraint was violated'],
  [2002, 'ConstraintSigner', 'A signer constraint was violated'],
  [2003, 'ConstraintRaw', 'A raw constraint was violated'],
  [2004, 'ConstraintOwner', 'An owner constraint was violated'],
  [2005, 'ConstraintRentExempt', 'A rent exemption constraint was violated'],
  [2006, 'ConstraintSeeds', 'A seeds constraint was violated'],
  [2007, 'ConstraintExecutable', 'An executable constraint was violated'],
  [2008, 'ConstraintState', 'Deprecated Error, feel free to replace with something else'],
  [2009, 'ConstraintAssociated', 'An associated constraint was violated'],
  [2010, 'ConstraintAssociatedInit', 'An associated init constraint was violated'],
  [2011, 'ConstraintClose', 'A close constraint was violated'],
  [2012, 'ConstraintAddress', 'An address constraint was violated'],
  [2013, 'ConstraintZero', 'Expected zero account discriminant'],
  [2014, 'ConstraintTokenMint', 'A token mint constraint was violated'],
  [2015, 'ConstraintTokenOwner', 'A token owner constraint was violated'],
  [2016, 'ConstraintMintMintAuthority', 'A mint mint authority constraint was violated'],
  [2017, 'ConstraintMintFreezeAuthority', 'A mint freeze authority constraint was violated'],
  [2018, 'ConstraintMintDecimals', 'A mint decimals constraint was violated'],
  [2019, 'ConstraintSpace', 'A space constraint was violated'],
  [2020, 'ConstraintAccountIsNone', 'A required account for the constraint is None'],
  [2021, 'ConstraintTokenTokenProgram', 'A token account token program constraint was violated'],
  [2022, 'ConstraintMintTokenProgram', 'A mint token program constraint was violated'],
  [2023, 'ConstraintAssociatedTokenTokenProgram', 'An associated token account token program constraint was violated'],
  [2500, 'RequireViolated', 'A require expression was violated'],
  [2501, 'RequireEqViolated', 'A require_eq expression was violated'],
  [2502, 'RequireKeysEqViolated', 'A require_keys_eq expression was violated'],
  [2503, 'RequireNeqViolated', 'A require_neq expression was violated'],
  [2504, 'RequireKeysNeqViolated', 'A require_keys_neq expression was violated'],
  [2505, 'RequireGtViolated', 'A require_gt expression was violated'],
  [2506, 'RequireGteViolated', 'A require_gte expression was violated'],
  [3000, 'AccountDiscriminatorAlreadySet', 'The account discriminator was already set on this account'],
  [3001, 'AccountDiscriminatorNotFound', 'No 8 byte discriminator was found on the account'],
  [3002, 'AccountDiscriminatorMismatch', '8 byte discriminator did not match what was expected'],
  [3003, 'AccountDidNotDeserialize', 'Failed to deserialize the account'],
  [3004, 'AccountDidNotSerialize', 'Failed to serialize the account'],
  [3005, 'AccountNotEnoughKeys', 'Not enough account keys given to the instruction'],
  [3006, 'AccountNotMutable', 'The given account is not mutable'],
  [3007, 'AccountOwnedByWrongProgram', 'The given account is owned by a different program than expected'],
  [3008, 'InvalidProgramId', 'Program ID was not as expected'],
  [3009, 'InvalidProgramExecutable', 'Program account is not executable'],
  [3010, 'AccountNotSigner', 'The given account did not sign'],
  [3011, 'AccountNotSystemOwned', 'The given account is not owned by the system program'],
  [3012, 'AccountNotInitialized', 'The program expected this account to be already initialized'],
  [3013, 'AccountNotProgramData', 'The given account is not a program data account'],
  [3014, 'AccountNotAssociatedTokenAccount', 'The given account is not the associated token account'],
  [3015, 'AccountSysvarMismatch', 'The given public key does not match the required sysvar'],
  [3016, 'AccountReallocExceedsLimit', 'The account reallocation exceeds the MAX_PERMITTED_DATA_INCREASE limit'],
  [3017, 'AccountDuplicateReallocs', 'The account was duplicated for more than one reallocation'],
  [4100, 'DeclaredProgramIdMismatch', 'The declared program id does not match the actual program id'],
];

let tables: Partial<Record<ProgramName, Table>> | undefined;
function tableOf(program: ProgramName): Table | undefined {
  tables ??= {
    launchpad: table(lp, 'LAUNCHPAD_ERROR__', lp.getLaunchpadErrorMessage),
    amm: table(amm, 'AMM_ERROR__', amm.getAmmErrorMessage),
    token: table(token, 'TOKEN_ERROR__', token.getTokenErrorMessage),
    // Token-2022 keeps the classic program's error numbers for the errors they share.
    'token-2022': table(token, 'TOKEN_ERROR__', token.getTokenErrorMessage),
    'associated-token': table(token, 'ASSOCIATED_TOKEN_ERROR__', token.getAssociatedTokenErrorMessage),
    system: table(system, 'SYSTEM_ERROR__', system.getSystemErrorMessage),
  };
  return tables[program];
}

/** Name and message of a custom error `code` of `program` (Anchor's framework errors for the two Anchor
 * programs included); undefined when unknown. */
export function programErrorInfo(program: ProgramName, code: number): { name: string; message: string } | undefined {
  const own = tableOf(program)?.get(code);
  if (own) return own;
  if (program === 'launchpad' || program === 'amm') {
    const a = ANCHOR.find(([c]) => c === code);
    if (a) return { name: a[1], message: a[2] };
  }
  return undefined;
}

/** Where a failure was seen. */
export type FailurePhase = 'preflight' | 'simulation' | 'on-chain';

const json = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));

/** A transaction that failed: `err` is the RPC's `TransactionError` (for preflight failures reported by kit
 * without it, the kit error is the `cause`). `signature` is absent for a preflight or a simulation. */
export class TransactionFailed extends Error {
  constructor(
    readonly signature: Signature | undefined,
    readonly err: TransactionError | undefined,
    readonly phase: FailurePhase,
    readonly logs: readonly string[] = [],
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(message ?? `transaction ${signature ?? '(not sent)'} failed at ${phase}: ${json(err)}`, options);
    this.name = 'TransactionFailed';
  }
}

/** A failed instruction: which program, at which index of the transaction, with which error. */
export class ProgramError extends TransactionFailed {
  constructor(
    signature: Signature | undefined,
    err: TransactionError | undefined,
    phase: FailurePhase,
    logs: readonly string[],
    /** The failing program ('unknown' for a program this SDK has no table of). */
    readonly program: ProgramName,
    readonly programAddress: Address | undefined,
    /** The instruction's index in the transaction (compute-budget instructions included). */
    readonly instructionIndex: number,
    /** The custom error code (`undefined` for a runtime instruction error such as `MissingRequiredSignature`). */
    readonly code: number | undefined,
    /** The error's name: the program's variant (`SlippageExceeded`, `ConstraintSeeds`) or the runtime's. */
    readonly codeName: string,
    /** The error's message as the program declares it. */
    readonly errorMessage: string,
    options?: { cause?: unknown },
  ) {
    const what = code === undefined ? codeName : `${codeName} (${code})`;
    super(signature, err, phase, logs, `${program} program error at instruction #${instructionIndex}: ${what}: ${errorMessage}`, options);
    this.name = 'ProgramError';
  }
}

/** A runtime instruction error's name from kit's error code (`SOLANA_ERROR__INSTRUCTION_ERROR__INVALID_SEEDS`
 * -> `InvalidSeeds`). */
function instructionErrorName(kitCode: number): string | undefined {
  for (const [key, value] of Object.entries(kitErrors)) {
    if (value === kitCode && key.startsWith('SOLANA_ERROR__INSTRUCTION_ERROR__')) return pascal(key.slice('SOLANA_ERROR__INSTRUCTION_ERROR__'.length));
  }
  return undefined;
}

interface Failure {
  signature?: Signature;
  phase: FailurePhase;
  logs?: readonly string[];
  cause?: unknown;
}

/** The program that raised custom error `code`: the first `Program <id> failed: custom program error: 0x..`
 * of the logs (the innermost: a token program's error inside a launchpad instruction is the token
 * program's), else the top-level instruction's program. */
function failingProgram(logs: readonly string[], code: number, topLevel: Address | undefined): Address | undefined {
  for (const line of logs) {
    const m = /^Program (\w+) failed: custom program error: 0x([0-9a-fA-F]+)$/.exec(line);
    if (m) return parseInt(m[2], 16) === code ? (m[1] as Address) : topLevel;
  }
  return topLevel;
}

function programError(index: number, programs: readonly Address[], custom: number | undefined, runtimeName: string | undefined, err: TransactionError | undefined, f: Failure): ProgramError {
  const logs = f.logs ?? [];
  const address = custom === undefined ? programs[index] : failingProgram(logs, custom, programs[index]);
  const program = (address && PROGRAMS[address]) || 'unknown';
  if (custom !== undefined) {
    const info = programErrorInfo(program, custom);
    // An Anchor program logs `Error Code: <Name>. Error Number: <n>. Error Message: <message>.`
    const logged = logs.map((l) => /Error Code: (\w+)\. Error Number: (\d+)\. Error Message: (.*)\.$/.exec(l)).find((m) => m && Number(m[2]) === custom);
    const name = info?.name ?? logged?.[1] ?? `Custom${custom}`;
    const message = info?.message ?? logged?.[3] ?? `custom program error ${custom}`;
    return new ProgramError(f.signature, err, f.phase, logs, program, address, index, custom, name, message, { cause: f.cause });
  }
  const name = runtimeName ?? 'Unknown';
  return new ProgramError(f.signature, err, f.phase, logs, program, address, index, undefined, name, `instruction error ${name}`, { cause: f.cause });
}

/** The typed error of an RPC `TransactionError` (a signature status's or a simulation's `err`), given the
 * program addresses of the transaction's instructions in order. */
export function decodeTransactionError(err: TransactionError, programs: readonly Address[], f: Failure): TransactionFailed {
  if (typeof err === 'object' && err !== null && 'InstructionError' in err) {
    const [index, e] = (err as { InstructionError: [number | bigint, unknown] }).InstructionError;
    const i = Number(index);
    if (typeof e === 'object' && e !== null && 'Custom' in e) return programError(i, programs, Number((e as { Custom: number | bigint }).Custom), undefined, err, f);
    const name = typeof e === 'string' ? e : typeof e === 'object' && e !== null ? Object.keys(e)[0] : undefined;
    return programError(i, programs, undefined, name, err, f);
  }
  return new TransactionFailed(f.signature, err, f.phase, f.logs ?? [], undefined, { cause: f.cause });
}

/** The typed error of what kit's `sendTransaction` threw on a failed preflight; other errors as they are. */
export function decodeKitError(e: unknown, programs: readonly Address[]): unknown {
  if (!isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) return e;
  const logs = (e.context.logs ?? []) as readonly string[];
  const cause = e.cause;
  const f: Failure = { phase: 'preflight', logs, cause: e };
  if (isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)) {
    return programError(cause.context.index, programs, cause.context.code, undefined, { InstructionError: [cause.context.index, { Custom: cause.context.code }] } as TransactionError, f);
  }
  if (isSolanaError(cause) && typeof (cause.context as { index?: unknown }).index === 'number') {
    const index = (cause.context as { index: number }).index;
    const name = isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN) ? String(cause.context.errorName) : instructionErrorName(cause.context.__code);
    if (name && cause.context.__code >= 4615000 && cause.context.__code < 4616000) {
      return programError(index, programs, undefined, name, { InstructionError: [index, name] } as TransactionError, f);
    }
  }
  return new TransactionFailed(undefined, undefined, 'preflight', logs, `transaction failed at preflight: ${isSolanaError(cause) ? cause.message : e.message}`, { cause: e });
}

/** The `ProgramError` in `e` (what `send`, `simulate` or `trade` threw), if it is one (of `program`, with
 * the error `name` or number, when given). */
export function programErrorOf(e: unknown, program?: ProgramName, code?: string | number): ProgramError | undefined {
  if (!(e instanceof ProgramError)) return undefined;
  if (program !== undefined && e.program !== program) return undefined;
  if (code !== undefined && (typeof code === 'number' ? e.code !== code : e.codeName !== code)) return undefined;
  return e;
}

/** Whether `e` is a `ProgramError` (of `program`, with the error `code`: its name or number, when given). */
export const isProgramError = (e: unknown, program?: ProgramName, code?: string | number): e is ProgramError =>
  programErrorOf(e, program, code) !== undefined;
