#!/usr/bin/env bash
# GPU check: the first run of the CUDA build on a machine with an NVIDIA GPU, in about ten
# minutes, with bash alone (no Node.js, no network, no -dev packages needed).
#
# On the GPU machine (the repository with the folders below; $OUT is the folder that comes back):
#   bash scripts/gpu-check.sh "$OUT"
# Folders to carry besides the git-tracked files: third_party (the header-only libraries, about
# 6 MB, made here by `bash scripts/third-party.sh`; git-ignored). Nothing else: the build folder
# is made there. Here, first: bash scripts/third-party.sh && bash scripts/gpu-check.sh --dry
#
# Usage: scripts/gpu-check.sh [--dry] [OUTDIR]   (OUTDIR: the argument, else $OUT, else
# build/gpu-check). Writes OUTDIR/gpu-check.log (everything), OUTDIR/summary.json (stages, the
# CUDA test verdict, the goals with their figures) and one bounded text file per stage. Exit 1 when
# a stage failed (a perf goal missed is reported in the JSON, not a failure).
#
# Goals this run answers (each in summary.json "goals": value, target, met true/false/null):
#   cuda-tests   the [cuda] Catch2 cases pass on the GPU (CUDA_LAUNCH_BLOCKING=1 on this first
#                run, so a kernel fault surfaces at the kernel that faulted)
#   vs-torch     base-model training step (batch 128 x 96 tokens, 37k vocabulary): attnlab's
#                CUDA table against PyTorch nn.Transformer under bf16 autocast on the same GPU:
#                speed-up (torch step time / attnlab step time) >= 1
#   mfu          attnlab's model FLOP utilisation >= 40% of the GPU's dense bf16 peak (the peak
#                from the GPU's name: H100 SXM/H200 989, H100 PCIe 756 TFLOP/s; else unknown)
#   translator   the translator recipe's training tokens/s on the GPU (64 x 32 tokens; reported,
#                no target)
#   webgpu       the WebGPU rows (bench/rows/webgpu.mjs in headless Chromium, Vulkan): need
#                Node.js, Chromium and the wasm engine; on a machine without them the goal is
#                reported as not run, with what was missing
# Stages: machine, configure, build, cuda-tests (one process; after a crash or a time-out, each
# case alone), cpu-tests (the CPU suite in the CUDA build, without [model]), kernel-bench,
# model-bench, translator-bench, torch-bench, webgpu. Each is capped so the run ends within
# TOTAL seconds; each exit status is recorded as it is (no pipes in front of a status).
# A skipped CUDA case is read by its reason: "no CUDA device (...)" carries the runtime's error
# text; "no NCCL ..." means NCCL was not found (the GPU is there); a skip is never a pass.
#
# --dry (this machine, no GPU; npm test runs it, in build/cuda): refreshes third_party, configures
# and builds the CUDA target from it alone (CPATH and friends emptied, and where `unshare -m` is
# permitted, /usr/include/{xtensor,xtl,xsimd,nlohmann,catch2} emptied in a mount namespace; the
# build's dependency lists must name none of them), runs the CPU stages at small sizes, expects
# the [cuda] cases to skip for "no CUDA device" with the runtime's text, and checks this script's
# bookkeeping on made-up outputs and the hidden runner-probe cases: a skip is not a missing GPU,
# a failed or timed-out stage is reported, a crash leaves each case its own status, the report
# stays small.
set -uo pipefail
DRY=0
if [[ ${1:-} == --dry ]]; then
  DRY=1
  shift
fi
OUTDIR=${1:-${OUT:-}}
[[ -n $OUTDIR ]] || OUTDIR=$(dirname "$0")/../build/gpu-check
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd) # relative to where the script was called from
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG=$OUTDIR/gpu-check.log
exec > >(tee "$LOG") 2>&1
tee_pid=$!
TOTAL=${ATTNLAB_GPU_CHECK_SECONDS:-570}  # all stages together (the machine gives 600 s)
BUILD_CAP=${ATTNLAB_GPU_CHECK_BUILD_SECONDS:-300} # the build's share (a cold build on 2 cores needs more)
WEBGPU=100                               # kept for the WebGPU stage, the last, when it can run
chromium_bin=${ATTNLAB_CHROMIUM:-/usr/bin/chromium}
missing=()
command -v node >/dev/null || missing+=(node)
[[ -x $chromium_bin ]] || missing+=("$chromium_bin")
command -v node >/dev/null && ! node -e 'require.resolve("playwright-core")' 2>/dev/null &&
  missing+=("playwright-core (npm ci)")
[[ -f web/public/engine/attnlab.mjs ]] || missing+=("web/public/engine/attnlab.mjs (the wasm engine)")
if ((DRY || ${#missing[@]})); then WEBGPU=0; fi
MAX_TEXT=$((256 * 1024))                 # a stage's text file is cut to this many bytes
JOBS=${ATTNLAB_JOBS:-$(nproc)}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
BATCH=128 LEN=96
if ((DRY)); then
  BUILD=${ATTNLAB_GPU_BUILD:-build/cuda} # the folder npm test's CUDA build uses (ccache-warm)
else
  BUILD=${ATTNLAB_GPU_BUILD:-build/gpu}
fi
TP=$ROOT/third_party/include
start=$SECONDS
budget=$((TOTAL - WEBGPU))

failed=()          # stages that failed
declare -A ST=()   # stage -> passed | failed | skipped | not-run
declare -A SX=()   # stage -> exit status
declare -A SS=()   # stage -> seconds
declare -A SN=()   # stage -> note
order=()
checks_passed=0 checks_failed=0

section() { echo; echo "== $* (t=$((SECONDS - start))s)"; }
cap() { # cap N: N seconds or what is left of $budget, whichever is less (at least 5)
  local left=$((budget - (SECONDS - start)))
  ((left < $1)) && echo $((left > 5 ? left : 5)) || echo "$1"
}
note() { # note STAGE STATUS [TEXT]: records a stage's outcome without running anything
  [[ -n ${ST[$1]+x} ]] || order+=("$1")
  ST[$1]=$2
  SN[$1]=${3:-}
  unfail "$1"
  if [[ $2 == failed ]]; then failed+=("$1"); fi
}
unfail() { # unfail STAGE: takes STAGE off the failed list (its outcome is decided again)
  local kept=() f
  for f in "${failed[@]}"; do [[ $f == "$1" ]] || kept+=("$f"); done
  failed=("${kept[@]}")
}
# run_stage NAME SECONDS FILE CMD...: runs CMD with a time cap, its output (stdout and stderr)
# into FILE (cut to MAX_TEXT bytes, head and tail kept) and the log's last lines; records status.
run_stage() {
  local name=$1 secs file=$3 t0=$SECONDS rc
  secs=$(cap "$2")
  shift 3
  local shown="$*"
  echo "\$ ${shown//$'\n'/; }  (cap ${secs}s, output in ${file#"$OUTDIR"/})"
  timeout -k 10 "$secs" "$@" >"$file" 2>&1
  rc=$?
  bound "$file"
  tail -n 15 "$file"
  SX[$name]=$rc
  SS[$name]=$((SECONDS - t0))
  if ((rc == 0)); then
    note "$name" passed
  else
    local why="exit $rc"
    ((rc == 124 || rc == 137)) && why="timed out after ${secs}s"
    echo "!! $name failed ($why)"
    note "$name" failed "$why"
  fi
  return $rc
}
bound() { # bound FILE: keeps the first and last MAX_TEXT/2 bytes of a long file
  local f=$1 size
  size=$(stat -c %s "$f" 2>/dev/null || echo 0)
  ((size > MAX_TEXT)) || return 0
  {
    head -c $((MAX_TEXT / 2)) "$f"
    printf '\n[... %d bytes cut by gpu-check.sh ...]\n' $((size - MAX_TEXT))
    tail -c $((MAX_TEXT / 2)) "$f"
  } >"$f.cut" && mv "$f.cut" "$f"
}
check() { # check NAME CONDITION-STATUS TEXT: one bookkeeping/dry-run check, counted
  if (($2 == 0)); then
    checks_passed=$((checks_passed + 1))
    echo "ok   $1: $3"
  else
    checks_failed=$((checks_failed + 1))
    echo "FAIL $1: $3"
    failed+=("check:$1")
  fi
}
json_str() { # json_str TEXT: a JSON string literal
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/}
  s=${s//$'\t'/ }
  s=$(printf '%s' "$s" | tr -d '\000-\037')
  printf '"%s"' "$s"
}
json_num() { [[ ${1:-} =~ ^-?[0-9]+([.][0-9]+)?$ ]] && printf '%s' "$1" || printf 'null'; }

# classify_cuda FILE EXIT: reads a [cuda] run's Catch2 output and exit status into CUDA_*:
#   CUDA_VERDICT  passed | failed | no-device | crashed | skipped-other
#   CUDA_DEVICE   yes | no | unknown ; CUDA_DEVICE_ERROR the runtime's text when no device
#   CUDA_NCCL     found | not-found | unknown ; CUDA_SKIPS the other skip reasons
classify_cuda() {
  local file=$1 rc=$2 line
  CUDA_DEVICE=unknown CUDA_DEVICE_ERROR="" CUDA_NCCL=unknown CUDA_SKIPS="" CUDA_NSKIP=0
  CUDA_NODEV=0
  while IFS= read -r line; do
    CUDA_NSKIP=$((CUDA_NSKIP + 1))
    case $line in
      *'": no CUDA device'*)
        CUDA_NODEV=$((CUDA_NODEV + 1))
        CUDA_DEVICE=no
        CUDA_DEVICE_ERROR=${line#*\": no CUDA device}
        CUDA_DEVICE_ERROR=${CUDA_DEVICE_ERROR# }
        ;;
      *'": no NCCL'*) CUDA_NCCL=not-found ;;
      *) CUDA_SKIPS+="${line#attnlab: skipped }; " ;;
    esac
  done < <(grep -a '^attnlab: skipped "' "$file" || true)
  if ((CUDA_NODEV == 0 && rc != 77 && rc < 124)); then
    CUDA_DEVICE=yes # cases ran (passed or failed) on a device
    [[ $CUDA_NCCL == unknown ]] && CUDA_NCCL=found
  fi
  if ((rc == 0)); then
    CUDA_VERDICT=passed
  elif ((rc == 77 && CUDA_NODEV > 0)); then
    CUDA_VERDICT=no-device
  elif ((rc == 77)); then
    CUDA_VERDICT=skipped-other
  elif ((rc >= 124)); then
    CUDA_VERDICT=crashed
  else
    CUDA_VERDICT=failed
  fi
  # rc 0 with skips: some cases ran and passed, others skipped (no NCCL): not a missing GPU
  if ((rc == 0 && CUDA_NSKIP > 0 && CUDA_NODEV > 0)); then CUDA_VERDICT=no-device; fi
  return 0
}
# no_device STAGE FILE: a bench that found no GPU (it says so and exits 0) did not pass: a skip
# in the dry run, a failure on the GPU machine
no_device() {
  [[ ${ST[$1]} == passed ]] && grep -q "no CUDA device" "$2" || return 0
  if ((DRY)); then note "$1" skipped "no CUDA device (expected here)"; else note "$1" failed "no CUDA device"; fi
}
# each_case SPEC FILE [VAR=VALUE...]: runs every case that SPEC selects alone (30 s each, while
# the budget lasts), appending "### <name>", its output and "### exit <status>" to FILE, so a
# case that crashes or hangs takes no other case with it. Names are escaped for Catch2's spec
# syntax (\ , [ ]).
each_case() {
  local spec=$1 file=$2 name escaped
  shift 2
  : >"$file"
  while IFS= read -r name; do
    [[ -n $name ]] || continue
    if (($(budget_left) <= 20)); then
      echo "### $name: not run, no time left" >>"$file"
      continue
    fi
    escaped=$(printf '%s' "$name" | sed 's/[][\\,]/\\&/g')
    echo "### $name" >>"$file"
    timeout -k 5 30 env "$@" "$T" "$escaped" -r compact --use-colour no >>"$file" 2>&1
    echo "### exit $?" >>"$file"
  done < <("$T" "$spec" --list-test-names-only 2>/dev/null)
}
budget_left() { echo $((budget - (SECONDS - start))); }
# kv FILE KEY: the value of KEY=... in the last line of FILE that has it
kv() { grep -ao "$2=[^ ]*" "$1" 2>/dev/null | tail -1 | cut -d= -f2 | tr -d '%'; }

# The GPU's dense bf16 peak in TFLOP/s from its name (no sparsity), empty when unknown.
bf16_peak() {
  case $1 in
    *H200*) echo 989 ;;
    *H100*PCIe*) echo 756 ;;
    *H100*NVL*) echo 835 ;;
    *H100*) echo 989 ;;
    *H800*) echo 989 ;;
    *GH200*) echo 989 ;;
    *A100*) echo 312 ;;
    *L40S*) echo 362 ;;
    *L4*) echo 121 ;;
    *A10*) echo 125 ;;
    *) echo "" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
section "machine"
gpu_name=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 | head -5
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
else
  echo "no nvidia-smi on this machine"
fi
peak=$(bf16_peak "$gpu_name")
echo "GPU: ${gpu_name:-none}; dense bf16 peak: ${peak:-unknown} TFLOP/s"
if [[ -x $NVCC ]]; then "$NVCC" --version | tail -2; else echo "no nvcc at $NVCC"; fi
cmake --version | head -1
git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
echo "git: $git_rev cores: $(nproc) jobs: $JOBS dry: $DRY out: $OUTDIR build: $BUILD"

section "configure (ATTNLAB_CUDA=ON, third-party headers from ${TP#"$ROOT"/})"
tp_args=()
if ((DRY)); then # here the Debian packages are the source of the carried copy: refresh it
  run_stage third-party 60 "$OUTDIR/third-party.txt" bash scripts/third-party.sh
fi
if [[ -d $TP/xtensor ]]; then
  tp_args=(-DATTNLAB_THIRD_PARTY_DIR="$TP")
else
  echo "no $TP: the headers must be under /usr/include (carry third_party, made by scripts/third-party.sh)"
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache)")
export CCACHE_BASEDIR=$ROOT CCACHE_SLOPPINESS=pch_defines,time_macros
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# A folder configured with the other generator is configured afresh.
if [[ -f $BUILD/CMakeCache.txt ]] && ! grep -q "CMAKE_GENERATOR:INTERNAL=${gen[1]:-Unix Makefiles}\$" "$BUILD/CMakeCache.txt"; then
  rm -rf "$BUILD/CMakeCache.txt" "$BUILD/CMakeFiles"
fi
# No compiler search path from the environment: the headers come from the carried folder. In the
# dry run, where the Debian packages are installed, configure and build also run in a mount
# namespace whose /usr/include/{xtensor,xtl,xsimd,nlohmann,catch2} are empty (unshare -m, where
# permitted), so the build cannot reach them at all.
bare=(env -u CPATH -u CPLUS_INCLUDE_PATH -u C_INCLUDE_PATH)
HIDE='for d in xtensor xtl xsimd nlohmann catch2; do
  [[ -d /usr/include/$d ]] && mount -t tmpfs -o ro,size=4k none /usr/include/$d || exit 97
done
[[ -f /usr/include/xtensor.hpp ]] && { mount --bind /dev/null /usr/include/xtensor.hpp || exit 97; }
exec "$@"'
hidden=0
if ((DRY)) && unshare -m bash -c "$HIDE" hide true 2>/dev/null; then
  bare=(unshare -m bash -c "$HIDE" hide "${bare[@]}")
  hidden=1
fi
run_stage configure 90 "$OUTDIR/configure.txt" "${bare[@]}" \
  cmake "${gen[@]}" -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_CUDA=ON \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DATTNLAB_TESTS=ON "-DATTNLAB_TEST_SPEC=[cuda]" "${tp_args[@]}" "${launcher[@]}"

section "build"
TARGETS=(attnlab_tests attnlab_cuda_bench attnlab_model_bench)
if [[ ${ST[configure]} == passed ]]; then
  run_stage build "$BUILD_CAP" "$OUTDIR/build.txt" "${bare[@]}" cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
else
  note build not-run "configure failed"
fi

if ((DRY)); then
  section "dry run: the build used the carried headers only"
  bad=0
  for lib in xtensor xtl xsimd nlohmann catch2; do
    link=$(readlink -f "$BUILD/third_party/include/$lib" 2>/dev/null || true)
    [[ $link == "$TP/$lib" ]] || { bad=1; echo "$BUILD/third_party/include/$lib -> ${link:-nothing}"; }
  done
  check include-links $bad "the build's include folder links to ${TP#"$ROOT"/} only"
  if ((hidden)); then
    echo "configure and build ran with /usr/include/{xtensor,xtl,xsimd,nlohmann,catch2} emptied (unshare -m)"
    # One file with every library's main header, compiled in the same namespace: through the
    # build's include folder it compiles, without it it must not (the hiding works).
    probe=$OUTDIR/probe.cpp
    printf '%s\n' '#include <xtensor.hpp>' '#include <xtensor/xarray.hpp>' '#include <xtl/xoptional.hpp>' \
      '#include <xsimd/xsimd.hpp>' '#include <nlohmann/json.hpp>' '#include <catch2/catch.hpp>' \
      'int main() { return 0; }' >"$probe"
    "${bare[@]}" c++ -std=c++17 -fsyntax-only -isystem "$BUILD/third_party/include" "$probe" >"$OUTDIR/probe.txt" 2>&1
    check headers-complete $? "every library's headers compile from the carried folder alone"
    "${bare[@]}" c++ -std=c++17 -fsyntax-only "$probe" >>"$OUTDIR/probe.txt" 2>&1
    (($? != 0))
    check headers-hidden $? "without it the same file does not compile (the system copies are hidden)"
    bound "$OUTDIR/probe.txt"
    rm -f "$probe"
  else
    echo "unshare -m is not permitted here: the system headers stayed visible; the dependency lists decide"
  fi
  if command -v ninja >/dev/null && [[ -f $BUILD/build.ninja ]]; then
    # Only the objects of the targets this run built: the folder may hold other targets' objects
    # from an earlier build against /usr/include (npm test's CUDA stage builds them all).
    mapfile -t objs < <(ninja -C "$BUILD" -t inputs "${TARGETS[@]}" 2>/dev/null | grep -E '\.(o|obj)$')
    deps=$(ninja -C "$BUILD" -t deps "${objs[@]}" 2>/dev/null | grep -cE '/usr/include/(xtensor|xtl|xsimd|nlohmann|catch2)')
    ndeps=$(ninja -C "$BUILD" -t deps "${objs[@]}" 2>/dev/null | grep -c 'third_party/include/xtensor/')
    ((deps == 0 && ndeps > 0))
    check include-deps $? "dependency lists: $ndeps xtensor headers from third_party, $deps from /usr/include"
  fi
  grep -qE -- '-I/usr/include( |$)|-isystem /usr/include( |$)|/usr/include/(xtensor|xtl|xsimd|nlohmann|catch2)' \
    "$BUILD/compile_commands.json" 2>/dev/null
  (($? != 0))
  check compile-commands $? "compile_commands.json names no /usr/include library folder"
fi

# ---------------------------------------------------------------------------------------------
section "[cuda] tests (CUDA_LAUNCH_BLOCKING=1)"
T=$BUILD/attnlab_tests
CUDA_VERDICT=not-run CUDA_DEVICE=unknown CUDA_DEVICE_ERROR="" CUDA_NCCL=unknown CUDA_SKIPS="" CUDA_NSKIP=0
if [[ -x $T ]]; then
  run_stage cuda-tests 120 "$OUTDIR/cuda-tests.txt" env CUDA_LAUNCH_BLOCKING=1 \
    "$T" "[cuda]" -r compact --use-colour no
  rc=${SX[cuda-tests]}
  if ((rc >= 124)); then
    # A crash or a hang takes the cases after it along: each case alone, so every one reports.
    echo "-- the run stopped (exit $rc): each case alone"
    each_case "[cuda]" "$OUTDIR/cuda-cases.txt" CUDA_LAUNCH_BLOCKING=1
    bound "$OUTDIR/cuda-cases.txt"
    grep -a '^###\|failed\|error' "$OUTDIR/cuda-cases.txt" | head -60
  fi
  classify_cuda "$OUTDIR/cuda-tests.txt" "$rc"
  echo "verdict: $CUDA_VERDICT; device: $CUDA_DEVICE ${CUDA_DEVICE_ERROR}; NCCL: $CUDA_NCCL; other skips: ${CUDA_SKIPS:-none}"
  case $CUDA_VERDICT in
    passed) ;;
    no-device)
      if ((DRY)); then
        note cuda-tests skipped "no CUDA device $CUDA_DEVICE_ERROR (expected here)"
      else
        echo "!! the [cuda] tests skipped: no CUDA device visible to the engine $CUDA_DEVICE_ERROR"
        note cuda-tests failed "no CUDA device $CUDA_DEVICE_ERROR"
      fi
      ;;
    skipped-other) note cuda-tests failed "every case skipped, not for a missing device: $CUDA_SKIPS" ;;
    *) note cuda-tests failed "$CUDA_VERDICT (exit $rc)" ;;
  esac
  if ((DRY)); then
    [[ $CUDA_VERDICT == no-device && -n $CUDA_DEVICE_ERROR && $CUDA_DEVICE_ERROR == *cuda* ]]
    check no-device-text $? "without a GPU the [cuda] cases skip as no CUDA device, with the runtime's text: $CUDA_DEVICE_ERROR"
  fi

else
  note cuda-tests not-run "no $T"
fi

# ---------------------------------------------------------------------------------------------
section "CUDA kernel table at base-model shapes"
if [[ -x $BUILD/attnlab_cuda_bench ]]; then
  run_stage kernel-bench 45 "$OUTDIR/kernel-bench.txt" "$BUILD/attnlab_cuda_bench" $((BATCH * LEN)) $LEN
  no_device kernel-bench "$OUTDIR/kernel-bench.txt"
else
  note kernel-bench not-run "not built"
fi

section "training step: attnlab (CUDA table), base model and translator recipe"
MB=$BUILD/attnlab_model_bench
peak_arg=()
[[ -n $peak ]] && peak_arg=(--peak-tflops "$peak")
if [[ -x $MB ]]; then
  if ((DRY)); then
    # No GPU: the bench says so and exits 0; the CPU table times the translator recipe briefly,
    # which checks the line this script reads.
    run_stage model-bench 60 "$OUTDIR/model-bench.txt" "$MB" --device cuda --preset base --steps 1
    grep -q "no CUDA device" "$OUTDIR/model-bench.txt"
    check model-bench-no-device $? "the model bench says no CUDA device"
    no_device model-bench "$OUTDIR/model-bench.txt"
    run_stage translator-bench 120 "$OUTDIR/translator-bench.txt" "$MB" --device cpu --preset translator \
      --batch 16 --len 16 --steps 2 --warmup 1 --threads "$JOBS"
  else
    run_stage model-bench 90 "$OUTDIR/model-bench.txt" "$MB" --device cuda --preset base --batch $BATCH \
      --len $LEN --steps 20 "${peak_arg[@]}"
    no_device model-bench "$OUTDIR/model-bench.txt"
    run_stage translator-bench 45 "$OUTDIR/translator-bench.txt" "$MB" --device cuda --preset translator \
      --batch 64 --len 32 --steps 50 "${peak_arg[@]}"
    no_device translator-bench "$OUTDIR/translator-bench.txt"
  fi
else
  note model-bench not-run "not built"
  note translator-bench not-run "not built"
fi

section "training step: PyTorch nn.Transformer (bf16 autocast)"
torch_py=""
if ((!DRY)); then
  for py in python3 /usr/bin/python3 python; do
    if command -v "$py" >/dev/null &&
      "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
      torch_py=$py
      break
    fi
  done
fi
if [[ -n $torch_py ]]; then
  run_stage torch-bench 120 "$OUTDIR/torch-bench.txt" "$torch_py" bench/peers/torch_transformer_gpu.py \
    --device cuda --batch $BATCH --len $LEN --steps 20 "${peak_arg[@]}"
else
  note torch-bench not-run "no PyTorch with CUDA here"
  echo "no PyTorch with CUDA on this machine: no peer timing"
fi

section "CPU suite in the CUDA build"
if [[ -x $T ]]; then
  if ((DRY)); then
    spec="[dist]" # small here; on the GPU machine the whole suite but [model] and [cuda]
  else
    spec="~[model]~[cuda]~[.]" # without ~[.] an exclusion-only spec runs the hidden cases too
  fi
  run_stage cpu-tests 90 "$OUTDIR/cpu-tests.txt" "$T" "$spec" -r compact --use-colour no
else
  note cpu-tests not-run "no $T"
fi

section "WebGPU in headless Chromium (bench/rows/webgpu.mjs, Vulkan adapter)"
budget=$TOTAL
webgpu_adapter=""
if ((DRY)) || ((${#missing[@]})); then
  why="missing ${missing[*]:-nothing}"
  ((DRY)) && why="not in the dry run"
  echo "WebGPU stage not run: $why"
  note webgpu not-run "$why"
else
  # no adapter (or only SwiftShader) gives skipped rows and exit status 0: reported, not failed
  run_stage webgpu "$WEBGPU" "$OUTDIR/webgpu-bench.txt" env ATTNLAB_WEBGPU_ADAPTER=hardware \
    ATTNLAB_CHROMIUM="$chromium_bin" node bench/rows/webgpu.mjs
  webgpu_adapter=$(grep -m1 -o 'webgpu: Chromium .*' "$OUTDIR/webgpu-bench.txt" || echo 'not reported')
  echo "WebGPU adapter: $webgpu_adapter"
fi

# ---------------------------------------------------------------------------------------------
# The bookkeeping, checked on made-up outputs (dry run only).
if ((DRY)); then
  section "dry run: the script's bookkeeping"
  fake=$OUTDIR/selftest
  mkdir -p "$fake"
  real_cuda=("$CUDA_VERDICT" "$CUDA_DEVICE" "$CUDA_DEVICE_ERROR" "$CUDA_NCCL" "$CUDA_SKIPS" "$CUDA_NSKIP")
  printf '%s\n' 'attnlab: skipped "cuda: nccl world of one reduces device gradients": no NCCL in this CUDA build (not found in the toolkit)' \
    'Passed 12 test cases with 200 assertions.' >"$fake/nccl-skip.txt"
  classify_cuda "$fake/nccl-skip.txt" 0
  [[ $CUDA_VERDICT == passed && $CUDA_DEVICE == yes && $CUDA_NCCL == not-found ]]
  check skip-is-not-no-device $? "a case skipped for no NCCL: verdict $CUDA_VERDICT, device $CUDA_DEVICE, NCCL $CUDA_NCCL"
  printf '%s\n' 'attnlab: skipped "cuda: a": no CUDA device (cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected)' \
    'attnlab: all 1 test case(s) skipped' >"$fake/nodev.txt"
  classify_cuda "$fake/nodev.txt" 77
  [[ $CUDA_VERDICT == no-device && $CUDA_DEVICE_ERROR == *cudaErrorNoDevice* ]]
  check no-device-kept $? "no device: verdict $CUDA_VERDICT, text kept: $CUDA_DEVICE_ERROR"
  printf '%s\n' 'tests/cpp/x.cpp:1: failed: a == b' 'Failed 1 test case, failed 1 assertion.' >"$fake/fail.txt"
  classify_cuda "$fake/fail.txt" 1
  [[ $CUDA_VERDICT == failed ]]
  check failing-case $? "a failing case: verdict $CUDA_VERDICT"
  classify_cuda "$fake/fail.txt" 134
  [[ $CUDA_VERDICT == crashed ]]
  check crash $? "an abort (exit 134): verdict $CUDA_VERDICT"
  # A failing command whose output goes through a pipe still fails its stage.
  saved_failed=("${failed[@]}")
  run_stage selftest-pipe 10 "$fake/pipe.txt" bash -c 'set -o pipefail; printf "x\n" | (cat; exit 3) | tail -1'
  [[ ${ST[selftest-pipe]} == failed && ${SX[selftest-pipe]} == 3 ]]
  check failed-stage $? "a stage failing inside a pipe: ${ST[selftest-pipe]} (exit ${SX[selftest-pipe]})"
  run_stage selftest-timeout 1 "$fake/timeout.txt" sleep 30
  [[ ${ST[selftest-timeout]} == failed && ${SN[selftest-timeout]} == *"timed out"* ]]
  check timed-out-stage $? "a stage over its cap: ${SN[selftest-timeout]}"
  # those two failed on purpose: not failures of this run
  failed=("${saved_failed[@]}")
  unset 'ST[selftest-pipe]' 'ST[selftest-timeout]'
  order=("${order[@]/selftest-pipe/}")
  order=("${order[@]/selftest-timeout/}")
  # After a crash each case runs alone: the hidden runner-probe cases (a pass, a skip, an abort
  # and a failing case whose name has a comma, brackets and a backslash) give one status each.
  if [[ -x $T ]]; then
    each_case "[.runner-probe]" "$fake/cases.txt" CUDA_LAUNCH_BLOCKING=1
    got=$(grep -a '^### exit' "$fake/cases.txt" | awk '{print $3}' | sort -n | tr '\n' ' ')
    [[ $got == "0 1 77 134 " ]] && grep -aq 'failed: 1 + 1 == 3' "$fake/cases.txt"
    check each-case $? "each case alone, names escaped: exit statuses $got(want 0 1 77 134)"
  fi
  head -c $((3 * MAX_TEXT)) /dev/zero | tr '\0' 'v' >"$fake/big.txt"
  bound "$fake/big.txt"
  size=$(stat -c %s "$fake/big.txt")
  ((size <= MAX_TEXT + 100))
  check bounded-text $? "a 768 KB stage output is cut to $size bytes"
  rm -rf "$fake"
  CUDA_VERDICT=${real_cuda[0]} CUDA_DEVICE=${real_cuda[1]} CUDA_DEVICE_ERROR=${real_cuda[2]}
  CUDA_NCCL=${real_cuda[3]} CUDA_SKIPS=${real_cuda[4]} CUDA_NSKIP=${real_cuda[5]}
fi

# ---------------------------------------------------------------------------------------------
section "goals"
base_ms=$(kv "$OUTDIR/model-bench.txt" step_ms)
base_mfu=$(kv "$OUTDIR/model-bench.txt" mfu)
base_tps=$(kv "$OUTDIR/model-bench.txt" tgt_tokens_per_s)
base_calls=$(kv "$OUTDIR/model-bench.txt" gemm_calls_per_step)
torch_ms=$(kv "$OUTDIR/torch-bench.txt" step_ms)
tr_tps=$(kv "$OUTDIR/translator-bench.txt" tgt_tokens_per_s)
tr_dev=$(kv "$OUTDIR/translator-bench.txt" device)
speedup=""
[[ -n $base_ms && -n $torch_ms ]] && speedup=$(awk -v a="$base_ms" -v t="$torch_ms" 'BEGIN { if (a > 0) printf "%.3f", t / a }')
[[ -z $peak ]] && base_mfu=""
met() { # met VALUE TARGET: true/false, null without a value
  [[ -n $1 ]] || { printf null; return; }
  awk -v v="$1" -v t="$2" 'BEGIN { printf (v >= t ? "true" : "false") }'
}
cuda_met=null
case $CUDA_VERDICT in passed) cuda_met=true ;; not-run) ;; no-device) ((DRY)) || cuda_met=false ;; *) cuda_met=false ;; esac
echo "[cuda] tests: $CUDA_VERDICT"
echo "base step: attnlab ${base_ms:-?} ms, torch ${torch_ms:-?} ms, speed-up ${speedup:-?} (goal >= 1)"
echo "MFU: ${base_mfu:-?}% of ${peak:-unknown} TFLOP/s (goal >= 40%); cuBLAS calls per step: ${base_calls:-?}"
echo "translator recipe: ${tr_tps:-?} target tokens/s on ${tr_dev:-?}"
echo "WebGPU: ${SN[webgpu]:-${webgpu_adapter:-?}}"

if ((DRY)); then
  # The report stays small: every file that comes back, and all of them together (the summary
  # written below is a few KB).
  big=$(find "$OUTDIR" -type f -size +$((MAX_TEXT / 1024 + 8))k | grep -v '/gpu-check.log$' | head -3)
  outkb=$(du -sk "$OUTDIR" | cut -f1)
  [[ -z $big ]] && ((outkb < 2048))
  check report-small $? "the output folder holds ${outkb} KB${big:+ (too large: $big)}"
fi

section "done"
total=$((SECONDS - start))
((DRY)) && echo "dry-run checks: $checks_passed passed, $checks_failed failed"
echo "total ${total}s; failed stages: ${failed[*]:-none}"
{
  printf '{\n  "schema": 1,\n  "dry": %s,\n  "git": %s,\n  "gpu": %s,\n  "bf16_peak_tflops": %s,\n' \
    "$( ((DRY)) && echo true || echo false)" "$(json_str "$git_rev")" "$(json_str "$gpu_name")" "$(json_num "$peak")"
  printf '  "seconds": %s,\n  "stages": [\n' "$total"
  sep=""
  for s in "${order[@]}"; do
    [[ -n $s && -n ${ST[$s]+x} ]] || continue
    printf '%s    {"name": %s, "status": %s, "exit": %s, "seconds": %s, "note": %s}' "$sep" "$(json_str "$s")" \
      "$(json_str "${ST[$s]}")" "$(json_num "${SX[$s]:-}")" "$(json_num "${SS[$s]:-}")" "$(json_str "${SN[$s]:-}")"
    sep=$',\n'
  done
  printf '\n  ],\n  "cuda_tests": {"verdict": %s, "device": %s, "device_error": %s, "nccl": %s, "skips": %s, "other_skips": %s},\n' \
    "$(json_str "$CUDA_VERDICT")" "$(json_str "$CUDA_DEVICE")" "$(json_str "$CUDA_DEVICE_ERROR")" \
    "$(json_str "$CUDA_NCCL")" "$(json_num "$CUDA_NSKIP")" "$(json_str "$CUDA_SKIPS")"
  printf '  "goals": [\n'
  printf '    {"id": "cuda-tests", "goal": "the [cuda] tests pass", "value": %s, "met": %s},\n' \
    "$(json_str "$CUDA_VERDICT")" "$cuda_met"
  printf '    {"id": "vs-torch", "goal": "base-model training step vs PyTorch bf16 (torch ms / attnlab ms) >= 1", "attnlab_step_ms": %s, "torch_step_ms": %s, "attnlab_gemm_calls_per_step": %s, "value": %s, "target": 1, "met": %s},\n' \
    "$(json_num "$base_ms")" "$(json_num "$base_calls")" "$(json_num "$torch_ms")" "$(json_num "$speedup")" "$(met "$speedup" 1)"
  printf '    {"id": "mfu", "goal": "model FLOP utilisation >= 40%% of the dense bf16 peak", "value": %s, "target": 40, "met": %s, "target_tokens_per_s": %s},\n' \
    "$(json_num "$base_mfu")" "$(met "$base_mfu" 40)" "$(json_num "$base_tps")"
  printf '    {"id": "translator", "goal": "translator recipe training tokens/s (reported)", "device": %s, "value": %s, "met": null},\n' \
    "$(json_str "$tr_dev")" "$(json_num "$tr_tps")"
  printf '    {"id": "webgpu", "goal": "WebGPU rows where Vulkan works", "value": %s, "met": null}\n  ],\n' \
    "$(json_str "${webgpu_adapter:-${SN[webgpu]:-}}")"
  if ((DRY)); then
    printf '  "checks": {"passed": %s, "failed": %s},\n  "system_headers_hidden": %s,\n' "$checks_passed" \
      "$checks_failed" "$( ((hidden)) && echo true || echo false)"
  fi
  printf '  "failed": ['
  sep=""
  for f in "${failed[@]}"; do
    printf '%s%s' "$sep" "$(json_str "$f")"
    sep=", "
  done
  printf ']\n}\n'
} >"$OUTDIR/summary.json"
echo "summary: $OUTDIR/summary.json"
status=0
((${#failed[@]} == 0)) || status=1
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null
exit $status
