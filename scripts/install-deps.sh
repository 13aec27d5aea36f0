#!/usr/bin/env bash
# Usage: scripts/install-deps.sh
# Installs the C libraries StackLab links (libsqlite3-dev, liblmdb-dev, zlib1g-dev, libssl-dev) when they are missing.
# Runs apt-get as root, or through sudo when not root. Does nothing when both are present.
set -euo pipefail
missing=()
for package in libsqlite3-dev liblmdb-dev zlib1g-dev libssl-dev pkg-config; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
