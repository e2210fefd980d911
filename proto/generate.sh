#!/usr/bin/env bash
# Generates gateway-grpc/generated/ from the protos here (npm run proto:generate). Run from the
# repository root. With a directory argument, writes under that directory instead (the check
# generates into a temporary one and compares).
set -euo pipefail
base="${1:-.}"
out="$base/gateway-grpc/generated"
# TypeScript messages and grpc-js service definitions (ts-proto, see buf.gen.yaml).
buf generate proto --template proto/buf.gen.yaml --output "$base"
# The compiled descriptors, embedded as TypeScript so server reflection works from src and dist.
buf build proto --output -#format=binpb | node proto/embed-descriptor-set.mjs >"$out/descriptor-set.ts"
