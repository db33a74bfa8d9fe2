#!/usr/bin/env bash
# Installs what attnlab needs and is missing, then exits; about a second when all is present.
# System packages come from Debian (apt, as root); JavaScript packages from package-lock.json.
# Not root and something missing: one line naming the apt command to run, exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake g++ make emscripten binaryen libxtensor-dev libxsimd-dev catch2
              nlohmann-json3-dev chromium fonts-nanum openmpi-bin libopenmpi-dev clang-format ccache ninja-build
              firefox-esr webkit2gtk-driver xvfb xauth)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "attnlab: missing system packages; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "attnlab: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "attnlab: installing JavaScript packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
