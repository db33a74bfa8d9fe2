"""PyTorch CPU GEMM peer for the kernel bench (run with Debian's /usr/bin/python3).

  python3 torch_gemm.py THREADS '<json cases>'  ->  one JSON object on stdout:
  {"torch": version, "blas": the BLAS library loaded in this process, "openblas": {corename,
   config, num_threads} (blas_info.py), "threads": n, "config": torch.__config__.show(),
   "results": [{"gflops": best of the two below, "gflops_per_call": ..., "gflops_batched": ...}]}
Started by bench/bench.mjs with peers/env.mjs's environment (no OPENBLAS_CORETYPE, thread
counts pinned, OpenMP waits bounded or passive).
Cases are {"M","N","K","ta","tb","batch","seconds"}; operands are float32, the product is
written into a preallocated tensor (torch.mm / torch.bmm with out=), transposes are views.
Each case is timed two ways: one Python call per product (gflops_per_call), and batched:
a TorchScript loop runs 64 products per Python call (gflops_batched), so the interpreter's
per-call cost, which attnlab_bench's C++ loop does not pay, is amortised. "gflops" is the
better of the two: the peer at full strength.
Timing: fastest >= 2 ms round after a warm-up call, as in the attnlab benchmarks.
"""
import json
import sys
import time

import torch

from blas_info import loaded_blas, openblas_info


def best_per_call(f, seconds):
    f()
    start = time.perf_counter()
    best = float("inf")
    while True:
        calls, t0 = 0, time.perf_counter()
        while True:
            f()
            calls += 1
            r = time.perf_counter() - t0
            if r >= 0.002:
                break
        best = min(best, r / calls)
        if time.perf_counter() - start >= seconds:
            return best


LOOP = 64


@torch.jit.script
def mm_loop(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, n: int):
    for _ in range(n):
        torch.mm(a, b, out=out)


@torch.jit.script
def bmm_loop(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, n: int):
    for _ in range(n):
        torch.bmm(a, b, out=out)


def operand(rows, cols, trans, batch):
    shape = (cols, rows) if trans else (rows, cols)
    if batch > 1:
        shape = (batch,) + shape
    t = torch.rand(shape) * 2 - 1
    return t.transpose(-1, -2) if trans else t


def main():
    threads = int(sys.argv[1])
    cases = json.loads(sys.argv[2])
    torch.set_num_threads(threads)
    results = []
    for c in cases:
        M, N, K, batch = c["M"], c["N"], c["K"], c["batch"]
        a = operand(M, K, c["ta"], batch)
        b = operand(K, N, c["tb"], batch)
        out = torch.empty((batch, M, N) if batch > 1 else (M, N))
        mm = torch.bmm if batch > 1 else torch.mm
        loop = bmm_loop if batch > 1 else mm_loop
        flops = 2.0 * M * N * K * batch
        per_call = flops / best_per_call(lambda: mm(a, b, out=out), c["seconds"]) * 1e-9
        batched = flops * LOOP / best_per_call(lambda: loop(a, b, out, LOOP), c["seconds"]) * 1e-9
        results.append({"gflops": max(per_call, batched), "gflops_per_call": per_call, "gflops_batched": batched})
    print(json.dumps({"torch": torch.__version__, "blas": loaded_blas(), "openblas": openblas_info(),
                      "threads": torch.get_num_threads(), "config": torch.__config__.show(),
                      "results": results}))


if __name__ == "__main__":
    main()
