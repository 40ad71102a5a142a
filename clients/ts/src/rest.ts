// A typed client of the REST API, generated from its OpenAPI document (`openapi.json`, kept equal to what
// the API serves by the API's own test): `createLaunchpadApi(baseUrl)` gives `api.GET('/launchpad/curve/{mint}',
// { params: { path: { mint } } })` with every path, parameter, body and response typed. `unwrap` turns an
// error response into an `ApiError` with the spec's code; `signAndSubmit` signs a transaction the API built
// and relays it through `POST /swap/submit-solana`.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import {
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  isTransactionModifyingSigner,
  isTransactionPartialSigner,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import type { components, paths } from './generated/api.js';

export type { components, paths };
export type LaunchpadApi = Client<paths>;

export function createLaunchpadApi(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): LaunchpadApi {
  return createClient<paths>({ baseUrl: baseUrl.replace(/\/$/, ''), ...options });
}

/** An error response in the spec's format: `{ "error": { "message", "code" } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'ApiError';
  }
}

/** The data of a successful response, or an `ApiError`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    const e = (error as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(response.status, e?.code ?? 'UNKNOWN', e?.message ?? response.statusText);
  }
  return data;
}

/** `tx` signed by `signer`: a partial signer (a key pair, most Wallet Standard signers) adds its signature, a
 * modifying signer may return a changed transaction. A sending signer (it submits by itself) cannot sign a
 * transaction for the API's relay. */
export async function signWith(signer: TransactionSigner, tx: Transaction): Promise<Transaction> {
  // The API's transaction has its blockhash lifetime and fits the size limit: what the signers' types ask for.
  const withLifetime = tx as never;
  if (isTransactionModifyingSigner(signer)) return (await signer.modifyAndSignTransactions([withLifetime]))[0];
  if (isTransactionPartialSigner(signer)) {
    const [signatures] = await signer.signTransactions([withLifetime]);
    return { ...tx, signatures: { ...tx.signatures, ...signatures } };
  }
  throw new Error('signAndSubmit: this signer only signs and sends by itself; submit the transaction through it instead');
}

/** Signs a base64 unsigned transaction the API built (its fee payer is `signer`, any kit `TransactionSigner`)
 * and submits it through the API; returns the submit response (`signature`, `confirmed`, `indexed`: reads
 * made after it see the transaction). */
export async function signAndSubmit(api: LaunchpadApi, signer: TransactionSigner, base64Transaction: string) {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64Transaction));
  const signed = await signWith(signer, tx);
  return unwrap(
    api.POST('/swap/submit-solana', { body: { signedTransaction: getBase64EncodedWireTransaction(signed) } as never }),
  );
}

export { getBase64Decoder };
