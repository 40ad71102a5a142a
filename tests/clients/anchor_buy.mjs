// Builds a launchpad buy with the standard Anchor TypeScript client (@coral-xyz/anchor) from the committed
// IDL, given only what a user knows: the trader, the token's mint, the trader's two token accounts and the
// quote token program. Anchor resolves everything else (pool PDA; config, quote mint and vaults through their
// relations to the pool, read over RPC; event authority PDA; program address). Prints the instruction as JSON.
// Usage: node anchor_buy.mjs <rpc url> <idl path> <trader> <mint> <trader base account> <trader quote account> <quote token program> <amount in>
import anchor from "@coral-xyz/anchor";
import { Connection, PublicKey } from "@solana/web3.js";
import { readFileSync } from "node:fs";

const [url, idlPath, trader, mint, traderBase, traderQuote, quoteTokenProgram, amountIn] = process.argv.slice(2);
if (!amountIn) {
  console.error("usage: node anchor_buy.mjs <rpc url> <idl path> <trader> <mint> <base account> <quote account> <quote token program> <amount in>");
  process.exit(2);
}
const idl = JSON.parse(readFileSync(idlPath, "utf8"));
const connection = new Connection(url, "confirmed");
const traderKey = new PublicKey(trader);
// A read-only wallet: the instruction is only built here; the Rust test signs and sends it.
const wallet = {
  publicKey: traderKey,
  signTransaction: async () => { throw new Error("read-only"); },
  signAllTransactions: async () => { throw new Error("read-only"); },
};
const provider = new anchor.AnchorProvider(connection, wallet, { commitment: "confirmed" });
const program = new anchor.Program(idl, provider);
const ix = await program.methods
  .swap({ side: 0, amountIn: new anchor.BN(amountIn), minAmountOut: new anchor.BN(1) })
  .accounts({
    trader: traderKey,
    baseMint: new PublicKey(mint),
    traderBaseAccount: new PublicKey(traderBase),
    traderQuoteAccount: new PublicKey(traderQuote),
    quoteTokenProgram: new PublicKey(quoteTokenProgram),
    // The optional referral account: @coral-xyz/anchor wants every optional account named, `null` for none
    // (it then passes the program id, which the program reads as no referral).
    referralQuoteAccount: null,
  })
  .instruction();
console.log(JSON.stringify({
  programId: ix.programId.toBase58(),
  keys: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: Buffer.from(ix.data).toString("base64"),
}));
process.exit(0);
