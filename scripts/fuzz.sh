#!/usr/bin/env bash
# Fuzzes the engine's input readers for a bounded time each (default 60 s, FUZZ_SECONDS to
# change) with clang's libFuzzer, AddressSanitizer and UBSan, starting from the committed
# seed corpora: the checkpoint reader (fuzz/checkpoint_fuzz.cpp, fuzz/corpus/) and configs with
# token input (fuzz/config_fuzz.cpp, fuzz/corpus-config/). FUZZ_TARGETS picks some
# ("checkpoint config" by default). The engine is compiled once into objects under build/fuzz/
# (rebuilt when a source is newer) and linked into each harness. New inputs go to scratch
# corpora under build/fuzz/, so the committed ones stay small. Exit status non-zero when a
# harness finds a crash (the crashing input is left in build/fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_BUDGET="${FUZZ_SECONDS:-60}"
TARGETS="${FUZZ_TARGETS:-checkpoint config}"
OUT=build/fuzz
mkdir -p "$OUT/obj" "$OUT/tp"
for lib in xtensor xtl xsimd nlohmann; do
  [ -e "$OUT/tp/$lib" ] || ln -s "/usr/include/$lib" "$OUT/tp/$lib"
done
CXX="${CXX_FUZZ:-clang++-14}"
command -v "$CXX" >/dev/null || CXX=clang++
FLAGS=(-std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -Icpp -isystem "$OUT/tp")
SRCS=$(ls cpp/core/*.cpp cpp/kernels/*.cpp cpp/layers/*.cpp cpp/models/*.cpp cpp/io/*.cpp \
       cpp/data/*.cpp cpp/train/*.cpp cpp/eval/*.cpp cpp/models/memory.cpp 2>/dev/null)
stale=()
for src in $SRCS; do
  obj="$OUT/obj/$(echo "$src" | tr / _).o"
  # an object is stale when it is missing or older than its source or one of its headers
  # (listed in obj.d, written by -MMD; made with -MM for an object that lacks one)
  if [ -e "$obj" ] && [ ! -e "$obj.d" ]; then "$CXX" "${FLAGS[@]}" -MM -MT "$obj" "$src" >"$obj.d"; fi
  if [ ! -e "$obj" ] || [ -n "$(sed 's/\\$//; s/^[^:]*://' "$obj.d" | tr ' ' '\n' | grep -v '^$' |
                                 while read -r dep; do [ "$dep" -nt "$obj" ] && echo "$dep"; done)" ]; then
    stale+=("$src")
  fi
done
if [ ${#stale[@]} -gt 0 ]; then
  echo "compiling ${#stale[@]} engine sources for fuzzing with $CXX"
  printf '%s\n' "${stale[@]}" | xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c \
    'o="$1/obj/$(echo "$2" | tr / _).o"; shift 2; "$@" -MMD -MF "$o.d" -MT "$o" -c "$0" -o "$o"' {} "$OUT" {} "$CXX" "${FLAGS[@]}"
fi
OBJS=$(for src in $SRCS; do echo "$OUT/obj/$(echo "$src" | tr / _).o"; done)
status=0
for t in $TARGETS; do
  bin="$OUT/${t}_fuzz"
  # shellcheck disable=SC2086
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer fuzz/${t}_fuzz.cpp $OBJS -lpthread -o "$bin"
  corpus=fuzz/corpus; [ "$t" = checkpoint ] || corpus="fuzz/corpus-$t"
  mkdir -p "$OUT/corpus-$t"
  echo "fuzzing the $t harness for ${SECONDS_BUDGET}s"
  "$bin" "$OUT/corpus-$t" "$corpus" -max_total_time="$SECONDS_BUDGET" -max_len=65536 \
    -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$OUT/$t-" -print_final_stats=1 || status=1
done
# The JS API of the wasm module, beside the native harnesses: the property-based fuzz test with
# many more runs than npm test gives it (FUZZ_JS_RUNS, default 5000), needs build/wasm.
if [ -f build/wasm/attnlab-node.cjs ]; then
  echo "fuzzing the JS API with ${FUZZ_JS_RUNS:-5000} runs per function"
  FUZZ_RUNS="${FUZZ_JS_RUNS:-5000}" node --test --test-force-exit tests/node/api-fuzz.test.mjs || status=1
else
  echo "build/wasm/attnlab-node.cjs is missing (npm run build:engine): JS API fuzzing skipped"
fi
exit $status
