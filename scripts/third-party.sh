#!/usr/bin/env bash
# Copies the header-only libraries the engine, its tests and the CUDA build include (xtensor, xtl,
# xsimd, nlohmann/json, Catch2 v2) from the Debian packages on this machine into one project-local
# folder, third_party/include (git-ignored; about 6 MB), with each package's copyright file and
# version under third_party/licenses. A machine without the -dev packages (the bare GPU machine)
# builds from that folder when the repository travels with it:
#   cmake -S . -B build/gpu -DATTNLAB_THIRD_PARTY_DIR=$PWD/third_party/include ...
# (CMakeLists.txt also takes it on its own when /usr/include lacks the libraries.)
# Usage: scripts/third-party.sh [dest] ; dest defaults to third_party. The copies keep the
# packages' timestamps (cp -p), so a build folder that switches from /usr/include to the copy
# finds nothing newer to rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-third_party}
SRC=${ATTNLAB_THIRD_PARTY_SRC:-/usr/include}
# include folder or file : Debian package
ENTRIES=(xtensor:libxtensor-dev xtensor.hpp:libxtensor-dev xtl:xtl-dev xsimd:libxsimd-dev
  nlohmann:nlohmann-json3-dev catch2:catch2)
mkdir -p "$DEST/include" "$DEST/licenses"
missing=()
for e in "${ENTRIES[@]}"; do
  name=${e%%:*} pkg=${e#*:}
  if [[ ! -e $SRC/$name ]]; then
    [[ $name == xtensor.hpp ]] || missing+=("$SRC/$name ($pkg)")
    continue
  fi
  if [[ -d $SRC/$name ]]; then
    mkdir -p "$DEST/include/$name"
    cp -RLp "$SRC/$name/." "$DEST/include/$name/"
  else
    cp -Lp "$SRC/$name" "$DEST/include/$name"
  fi
  ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo unknown)
  echo "$pkg $ver" >"$DEST/licenses/$pkg.version"
  for c in /usr/share/doc/$pkg/copyright /usr/share/doc/${pkg%-dev}/copyright; do
    [[ -f $c ]] && { cp -p "$c" "$DEST/licenses/$pkg.copyright"; break; }
  done
done
if ((${#missing[@]})); then
  echo "third-party.sh: missing ${missing[*]}: apt-get install libxtensor-dev libxsimd-dev catch2 nlohmann-json3-dev" >&2
  exit 1
fi
echo "third-party.sh: $(du -sh "$DEST" | cut -f1) in $DEST/include ($(find "$DEST/include" -type f | wc -l) files)"
