// Connects to a localnet with @solana/web3.js, reads a blockhash, airdrops, sends a signed transfer and
// confirms it. Usage: node web3_transfer.mjs http://127.0.0.1:8899
import {
  Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction,
} from "@solana/web3.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node web3_transfer.mjs <rpc url>");
  process.exit(2);
}
const connection = new Connection(url, "confirmed");
const version = await connection.getVersion();
const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
if (!blockhash || !(lastValidBlockHeight > 0)) throw new Error("no blockhash");

const from = Keypair.generate();
const to = Keypair.generate();
const airdrop = await connection.requestAirdrop(from.publicKey, 2 * LAMPORTS_PER_SOL);
await connection.confirmTransaction({ signature: airdrop, blockhash, lastValidBlockHeight }, "confirmed");

const tx = new Transaction().add(
  SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 123_456_789 }),
);
const signature = await sendAndConfirmTransaction(connection, tx, [from], { commitment: "confirmed" });
const received = await connection.getBalance(to.publicKey, "confirmed");
if (received !== 123_456_789) throw new Error(`expected 123456789 lamports, got ${received}`);
const fetched = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
if (!fetched || fetched.meta.err !== null) throw new Error("transfer not found or failed");
console.log(JSON.stringify({ ok: true, core: version["solana-core"], signature, received }));
// web3.js keeps its PubSub socket open; the check is done.
process.exit(0);
