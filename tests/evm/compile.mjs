#!/usr/bin/env node
// Compiles every contracts/*.sol with the bundled solc-js (soljson.js, no network)
// and prints one JSON object to stdout:
//   {"TestToken": {"abi": [...], "bytecode": "0x..."}, "TestRouter": {...}}
// Errors (and warnings) go to stderr; any compiler error => exit code 1, nothing on stdout.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

// ganache 7.9.x implements up to "shanghai" (no cancun opcodes such as TSTORE/MCOPY/BLOBHASH);
// solc >= 0.8.25 defaults to cancun, so pin the target explicitly.
const EVM_VERSION = "shanghai";

const here = dirname(fileURLToPath(import.meta.url));
const contractsDir = join(here, "contracts");

const sources = {};
for (const file of readdirSync(contractsDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[file] = { content: readFileSync(join(contractsDir, file), "utf8") };
}
if (Object.keys(sources).length === 0) {
  console.error(`compile.mjs: no .sol files in ${contractsDir}`);
  process.exit(1);
}

const input = {
  language: "Solidity",
  sources,
  settings: {
    evmVersion: EVM_VERSION,
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};

// No import callback: sources must be self-contained (no imports outside contracts/).
const output = JSON.parse(solc.compile(JSON.stringify(input)));

const diagnostics = output.errors ?? [];
for (const d of diagnostics) console.error(d.formattedMessage ?? d.message);
const errors = diagnostics.filter((d) => d.severity === "error");
if (errors.length > 0) {
  console.error(`compile.mjs: ${errors.length} compiler error(s) (solc ${solc.version()})`);
  process.exit(1);
}

const result = {};
for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
  for (const [name, c] of Object.entries(contracts)) {
    const bytecode = c.evm?.bytecode?.object ?? "";
    if (bytecode.length === 0) continue; // interfaces / abstract contracts
    if (result[name]) {
      console.error(`compile.mjs: duplicate contract name ${name} (in ${file})`);
      process.exit(1);
    }
    result[name] = { abi: c.abi, bytecode: `0x${bytecode}` };
  }
}

process.stdout.write(JSON.stringify(result) + "\n");
