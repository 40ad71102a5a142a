#!/usr/bin/env bash
# Writes the secrets deploy/compose.yaml mounts, under deploy/compose/secrets/ (mode 0600; git ignores them):
# a random PostgreSQL password and the database URL that carries it, a route key, the chain's URLs and the
# keeper's keypair (the operator's own, Solana CLI format: `solana-keygen new -o keeper.json`; never a user's).
#   deploy/compose/secrets.sh <rpc-url> <grpc-url> <keeper-keypair.json>
# Rerunning keeps the password and route key already written (a new password would lock the API out of an
# existing database volume) and replaces the chain's URLs.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 <rpc-url> <grpc-url> <keeper-keypair.json>" >&2; exit 2; }
[ -s "$3" ] || { echo "$3: no keypair file (solana-keygen new -o $3)" >&2; exit 2; }
dir="$(cd "$(dirname "$0")" && pwd)/secrets"
mkdir -p "$dir"
chmod 700 "$dir"
umask 077
[ -s "$dir/postgres-password" ] || head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/postgres-password"
printf 'postgres://launchpad:%s@postgres:5432/launchpad\n' "$(cat "$dir/postgres-password")" >"$dir/database-url"
[ -s "$dir/route-keys" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/route-keys"
printf '%s\n' "$1" >"$dir/rpc-url"
printf '%s\n' "$2" >"$dir/grpc-url"
cp "$3" "$dir/keeper.json"
# The containers run as uid 10001 and read the mounted files, which compose mounts with their host modes; the
# directory (0700) keeps other users of the host out.
chmod 644 "$dir"/*
echo "secrets written to $dir"
