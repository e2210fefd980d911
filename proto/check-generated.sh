#!/usr/bin/env bash
# Fails when gateway-grpc/generated/ differs from a fresh generation (npm run proto:check): the
# generated code is committed and never edited by hand.
set -euo pipefail
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
bash proto/generate.sh "$fresh"
if ! diff -r "$fresh/gateway-grpc/generated" gateway-grpc/generated; then
  echo "gateway-grpc/generated is out of date: run npm run proto:generate and commit the result." >&2
  exit 1
fi
echo "gateway-grpc/generated matches the protos."
