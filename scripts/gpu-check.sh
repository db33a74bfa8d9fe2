#!/usr/bin/env bash
# GPU check, for a machine with an NVIDIA GPU (sm_90 build; H200 timings in mind):
#   1. builds the engine with -DATTNLAB_CUDA=ON into build/gpu,
#   2. runs the [cuda] tests (CUDA kernel table vs. CPU table) and fails if they skipped,
#   3. times the CUDA kernel table at base-model shapes (attnlab_cuda_bench),
#   4. times a base-model training step: attnlab's own (attnlab_model_bench) and PyTorch's
#      nn.Transformer under bf16 autocast on the same batch, when torch+CUDA exist,
#   5. runs bench/rows/webgpu.mjs in headless Chromium with the hardware flags (Vulkan through
#      ANGLE, no SwiftShader): the WebGPU backend against the wasm engine on this machine's GPU
#      when Chromium's Vulkan driver works, and says which adapter it found (none found, or only
#      SwiftShader, is reported, not a failure; its rows print the goals: config M step >= 5x
#      wasm, GEMM 1024^3 >= 1 TFLOP/s, not asserted).
# Everything goes to one log (default build/gpu-check.log). Each stage is capped: stages 1-4
# share TOTAL - WEBGPU seconds, stage 5 has the last WEBGPU, so the whole run stays under 10
# minutes. Usage: scripts/gpu-check.sh [log] ; exit status 1 if a stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-build/gpu-check.log}
mkdir -p "$(dirname "$LOG")"
exec > >(tee "$LOG") 2>&1
TOTAL=590  # seconds for all stages together
WEBGPU=120 # the last of them, kept for the WebGPU stage
budget=$((TOTAL - WEBGPU)) # what the stages before it share
BATCH=128 LEN=96
start=$SECONDS
failed=()
section() { echo; echo "== $* (t=$((SECONDS - start))s)"; }
cap() {  # cap N: N seconds or what is left of $budget, whichever is less (at least 5)
  local left=$((budget - (SECONDS - start)))
  ((left < $1)) && echo $((left > 5 ? left : 5)) || echo "$1"
}
stage() {  # stage NAME SECONDS CMD...: runs CMD with a time cap, records a failure
  local name=$1 secs
  secs=$(cap "$2")
  shift 2
  timeout "$secs" "$@" || { echo "!! $name failed or timed out (exit $?, cap ${secs}s)"; failed+=("$name"); }
}

section "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 || true
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
"$NVCC" --version | tail -2
echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo '?') cores: $(nproc)"

section "build (ATTNLAB_CUDA=ON)"
build_start=$SECONDS
stage configure 60 cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DATTNLAB_CUDA=ON \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DATTNLAB_TESTS=ON
stage build 240 cmake --build build/gpu -j"$(nproc)"
echo "build took $((SECONDS - build_start))s"

section "[cuda] tests"
if [[ -x build/gpu/attnlab_tests ]]; then
  stage cuda-tests 60 build/gpu/attnlab_tests "[cuda]" -s -r compact --use-colour no >build/gpu/cuda-tests.txt
  grep -E "failed" build/gpu/cuda-tests.txt | head -20
  tail -2 build/gpu/cuda-tests.txt
  # a skipped case prints this line and the program exits 77 (tests/cpp/skip.hpp)
  if grep -q "^attnlab: skipped" build/gpu/cuda-tests.txt; then
    echo "!! the [cuda] tests skipped: no CUDA device visible to the engine"
    failed+=(cuda-visible)
  fi
  echo "-- CPU suite in the CUDA build (without [model] and [cuda])"
  stage cpu-tests 60 build/gpu/attnlab_tests "~[model]~[cuda]" -r compact --use-colour no | tail -3
fi

section "CUDA kernel table at base-model shapes"
[[ -x build/gpu/attnlab_cuda_bench ]] && stage kernel-bench 60 build/gpu/attnlab_cuda_bench $((BATCH * LEN)) $LEN

section "base model training step: attnlab (CUDA table)"
[[ -x build/gpu/attnlab_model_bench ]] &&
  stage model-bench 150 build/gpu/attnlab_model_bench --device cuda --preset base --batch $BATCH \
    --len $LEN --steps 20

section "base model training step: PyTorch nn.Transformer (bf16 autocast)"
torch_py=""
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null &&
    "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    torch_py=$py
    break
  fi
done
if [[ -n $torch_py ]]; then
  stage torch-bench 150 "$torch_py" bench/peers/torch_transformer_gpu.py --device cuda \
    --batch $BATCH --len $LEN --steps 20
else
  echo "no PyTorch with CUDA on this machine: no peer timing"
fi

section "WebGPU in headless Chromium: hardware adapter through Vulkan (bench/rows/webgpu.mjs)"
budget=$TOTAL
chromium_bin=${ATTNLAB_CHROMIUM:-/usr/bin/chromium}
missing=()
command -v node >/dev/null || missing+=(node)
[[ -x $chromium_bin ]] || missing+=("$chromium_bin")
command -v node >/dev/null && ! node -e 'require.resolve("playwright-core")' 2>/dev/null &&
  missing+=("playwright-core (npm ci)")
[[ -f web/public/engine/attnlab.mjs ]] || missing+=("web/public/engine/attnlab.mjs (the wasm engine)")
if ((${#missing[@]})); then
  echo "WebGPU stage not run: missing ${missing[*]}"
else
  mkdir -p build/gpu
  wlog=build/gpu/webgpu-bench.txt
  # no adapter (or only SwiftShader) gives skipped rows and exit status 0: reported, not failed
  stage webgpu-bench "$WEBGPU" env ATTNLAB_WEBGPU_ADAPTER=hardware ATTNLAB_CHROMIUM="$chromium_bin" \
    node bench/rows/webgpu.mjs >"$wlog" 2>&1
  grep -v '^{' "$wlog" | tail -40
  echo "WebGPU adapter: $(grep -m1 -o 'webgpu: Chromium .*' "$wlog" || echo 'not reported (the run stopped before opening WebGPU)')"
fi

section "done"
echo "total $((SECONDS - start))s; failed stages: ${failed[*]:-none}"
((${#failed[@]} == 0))
