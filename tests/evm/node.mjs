#!/usr/bin/env node
// Starts a local ganache EVM node for the integration tests.
//
//   node node.mjs [--port N] [--host H] [--chain-id ID] [--watch-stdin]
//
// --port 0 (the default) picks a free ephemeral port. Once the node answers
// JSON-RPC, exactly one JSON line is printed to stdout, e.g.
//   {"rpcUrl":"http://127.0.0.1:40123","port":40123,"chainId":31337,"accounts":["0x90f8...", ...]}
// and then nothing else (ganache logging is off). The process runs until SIGINT/SIGTERM,
// or, with --watch-stdin, until its stdin is closed (so a test harness that dies without
// killing it does not leave it behind; do not combine with stdin = /dev/null).
//
// Chain: id 31337 unless --chain-id says otherwise (a test can stand in for, e.g., base 8453; net_version
// follows it), hardfork shanghai, instant mining
// (one block per transaction), 10 deterministic accounts with 1000 ETH each, unlocked.
import ganache from "ganache";

const args = process.argv.slice(2);
function opt(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const port = Number(opt("--port", "0"));
const host = opt("--host", "127.0.0.1");
const CHAIN_ID = Number(opt("--chain-id", "31337"));

const server = ganache.server({
  chain: { chainId: CHAIN_ID, networkId: CHAIN_ID, hardfork: "shanghai" },
  wallet: { deterministic: true, totalAccounts: 10, defaultBalance: 1000 },
  miner: { blockTime: 0 },
  logging: { quiet: true },
});

let closing = false;
async function shutdown(code) {
  if (closing) return;
  closing = true;
  try {
    await server.close();
  } catch {
    // already closed / never opened
  }
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
if (args.includes("--watch-stdin")) {
  process.stdin.on("end", () => shutdown(0));
  process.stdin.on("error", () => shutdown(0));
  process.stdin.resume();
}

try {
  await server.listen(port, host);
} catch (err) {
  console.error(`node.mjs: failed to listen on ${host}:${port}: ${err.message}`);
  process.exit(1);
}
const actualPort = server.address().port;
const accounts = await server.provider.request({ method: "eth_accounts", params: [] });
process.stdout.write(
  JSON.stringify({ rpcUrl: `http://${host}:${actualPort}`, port: actualPort, chainId: CHAIN_ID, accounts }) + "\n",
);
