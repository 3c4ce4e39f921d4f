#!/usr/bin/env bash
# Rebuilds dist/ from the committed tree (HEAD), not the working tree: in a checkout shared by
# several people, someone's uncommitted edits must not leak into the committed bundle (CI builds
# from a clean clone and would then see a different dist/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive HEAD | tar -x -C "$tmp"
# A real node_modules tree, not a symlink: module paths decide chunk order and hashes, and they
# must be the same as in a fresh clone after npm ci (CI compares its build with the committed one).
# Hard links make the copy cheap; across file systems it falls back to npm ci.
cp -al "$root/node_modules" "$tmp/node_modules" 2>/dev/null || (cd "$tmp" && npm ci --no-audit --no-fund > /dev/null)
(cd "$tmp" && node_modules/.bin/rolldown -c rolldown.config.ts > /dev/null)
rm -rf "$root/dist"
cp -R "$tmp/dist" "$root/dist"
echo "dist/ rebuilt from $(git -C "$root" rev-parse --short HEAD)"
