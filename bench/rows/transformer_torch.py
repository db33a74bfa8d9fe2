#!/usr/bin/python3
"""PyTorch CPU peer of `attn bench`: ms per training step (forward + backward + Adam) of
nn.Transformer with attnlab's embeddings (x sqrt(d_model), sinusoidal positions) and generator,
at config S, M or base (the paper's base model: 6+6 layers, d_model 512, 8 heads, d_ff 2048,
vocab 8000, lengths 32, batch 16) or de-en (the guide's translator: 2+2 layers, d_model 256,
4 heads, d_ff 512, vocab 3000 with a tied generator, lengths 32, batch 64), dropout 0, label smoothing 0.1, fixed random tokens.
Prints one JSON object (median wall and process-CPU ms per step).
Usage: /usr/bin/python3 bench/rows/transformer_torch.py --config S --threads 1
(bench/rows/transformer.mjs starts it with peers/env.mjs's environment: no
OPENBLAS_CORETYPE, GOMP_SPINCOUNT=30000 or OMP_WAIT_POLICY=PASSIVE, OMP/OpenBLAS threads pinned
to --threads).
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from blas_info import openblas_info  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="S", choices=["S", "M", "base", "de-en"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    C, L, B, V, H, N, D_FF = {"S": (64, 16, 32, 32, 4, 2, 256), "M": (128, 32, 32, 32, 4, 2, 512),
                           "base": (512, 32, 16, 8000, 8, 6, 2048),
                           "de-en": (256, 32, 64, 3000, 4, 2, 512)}[a.config]
    model = nn.Transformer(C, H, N, N, D_FF, 0.0, batch_first=True)
    src_embed, tgt_embed, gen = nn.Embedding(V, C), nn.Embedding(V, C), nn.Linear(C, V)
    if a.config == "de-en":  # the translator ties its generator to the target embedding
        gen.weight = tgt_embed.weight
    pos = torch.arange(L, dtype=torch.float64)[:, None]
    i = torch.arange(C)
    freq = 10000.0 ** (-(i // 2 * 2).double() / C)
    pe = torch.where(i % 2 == 0, torch.sin(pos * freq), torch.cos(pos * freq)).float()
    params = list({id(p): p for p in list(model.parameters()) + list(src_embed.parameters()) +
                   list(tgt_embed.parameters()) + list(gen.parameters())}.values())
    opt = torch.optim.Adam(params, lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    src = torch.randint(3, V, (B, L))
    tgt_out = torch.randint(3, V, (B, L))
    tgt_in = torch.cat([torch.ones(B, 1, dtype=torch.long), tgt_out[:, :-1]], 1)
    mask = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
    scale = math.sqrt(C)
    model.train()

    def step():
        opt.zero_grad()
        x = src_embed(src) * scale + pe
        y = tgt_embed(tgt_in) * scale + pe
        z = gen(model(x, y, tgt_mask=mask))
        loss = F.cross_entropy(z.reshape(-1, V), tgt_out.reshape(-1), label_smoothing=0.1)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    times, cpu, t0 = [], [], time.perf_counter()
    while len(times) < 5 or time.perf_counter() - t0 < a.seconds:
        s, c = time.perf_counter(), time.process_time()
        step()
        times.append((time.perf_counter() - s) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    times.sort()
    cpu.sort()
    print(json.dumps({"config": a.config, "threads": torch.get_num_threads(),
                      "ms_per_step": times[len(times) // 2], "cpu_ms_per_step": cpu[len(cpu) // 2],
                      "steps": len(times),
                      "torch": torch.__version__, "openblas": openblas_info()}))


if __name__ == "__main__":
    main()
