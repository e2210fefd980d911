#!/usr/bin/env bash
# Makes a Node.js 24 base image from public packages alone, for hosts that reach no container
# registry but do reach Debian's mirror and the npm registry (as CI here does):
#   Debian bookworm (debootstrap --variant=minbase) + node@24 and npm@11 from the npm registry,
# imported with `podman import` and tagged (default localhost/shortlink-node24-base). Then
#   podman build --build-arg NODE_IMAGE=localhost/shortlink-node24-base -f gateway-http/Containerfile .
# builds the service's image as from docker.io/library/node:24-bookworm-slim.
# Needs root, debootstrap and podman. Takes a few minutes; every step is bounded in time.
# Usage: test/container/make-base.sh [TAG]   (DEBIAN_MIRROR overrides the mirror)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tag="${1:-localhost/shortlink-node24-base}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"

work="$(mktemp -d "${TMPDIR:-/tmp}/shortlink-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "make-base: debootstrap bookworm from $mirror"
timeout 900 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  {
    tail -n 30 "$work/debootstrap.log" >&2
    exit 1
  }

echo "make-base: node@24 and npm@11 from the npm registry"
timeout 300 npm install --prefix "$work/npm" --no-save --no-audit --no-fund --loglevel=error \
  node@24 npm@11 >/dev/null
# The `node` package's .bin/node runs the platform binary it installed: ask it where that is.
node_binary="$("$work/npm/node_modules/.bin/node" -p process.execPath)"
"$node_binary" -v | grep -q '^v24\.' || {
  echo "make-base: $node_binary is not Node 24" >&2
  exit 1
}
install -m 0755 "$node_binary" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$work/npm/node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# What an image needs no copy of: apt's lists and caches, documentation, locales.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log
chroot "$rootfs" /usr/local/bin/node -e 'console.log("make-base: node", process.version, "runs in the root file system")'

echo "make-base: podman import as $tag"
tar -C "$rootfs" --numeric-owner -c . |
  timeout 300 podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' \
    --message 'Debian bookworm minbase with Node.js 24 and npm from the npm registry' \
    - "$tag" >/dev/null
podman image inspect --format 'make-base: {{.Id}} {{.Size}} bytes' "$tag"
