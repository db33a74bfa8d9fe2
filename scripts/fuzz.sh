#!/usr/bin/env bash
# Fuzzes the checkpoint reader for a bounded time (default 60 s, FUZZ_SECONDS to change) with
# clang's libFuzzer and AddressSanitizer, starting from the committed seed corpus. New inputs
# go to a scratch corpus under build/, so the committed one stays small. Exit status non-zero
# when a crash is found (the crashing input is left in build/fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_BUDGET="${FUZZ_SECONDS:-60}"
OUT=build/fuzz
mkdir -p "$OUT/corpus" "$OUT/tp"
for lib in xtensor xtl xsimd nlohmann; do
  [ -e "$OUT/tp/$lib" ] || ln -s "/usr/include/$lib" "$OUT/tp/$lib"
done
CXX="${CXX_FUZZ:-clang++-14}"
command -v "$CXX" >/dev/null || CXX=clang++
SRCS=$(ls cpp/core/*.cpp cpp/kernels/*.cpp cpp/layers/*.cpp cpp/models/*.cpp cpp/io/*.cpp \
       cpp/train/*.cpp 2>/dev/null)
if [ ! -x "$OUT/checkpoint_fuzz" ] || [ -n "$(find cpp fuzz -newer "$OUT/checkpoint_fuzz" -name '*.[ch]pp' | head -1)" ]; then
  echo "building $OUT/checkpoint_fuzz with $CXX"
  # shellcheck disable=SC2086
  "$CXX" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Icpp -isystem "$OUT/tp" $SRCS fuzz/checkpoint_fuzz.cpp -lpthread -o "$OUT/checkpoint_fuzz"
fi
echo "fuzzing the checkpoint reader for ${SECONDS_BUDGET}s"
"$OUT/checkpoint_fuzz" "$OUT/corpus" fuzz/corpus -max_total_time="$SECONDS_BUDGET" \
  -max_len=65536 -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$OUT/" -print_final_stats=1
