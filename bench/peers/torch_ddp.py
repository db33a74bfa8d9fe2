#!/usr/bin/python3
"""PyTorch DistributedDataParallel peer of `mpirun -np N attn bench`: ms per data-parallel
training step (forward + backward with DDP's bucketed all-reduce overlapped + Adam) on the CPU,
gloo backend, N processes started with torch.multiprocessing, each on its own batch of the
config's size (per rank) and `--threads` threads. The model is transformer_torch.py's
(nn.Transformer with attnlab's embeddings x sqrt(d_model), sinusoidal positions and generator;
dropout 0, label smoothing 0.1, Adam lr 1e-4, betas (0.9, 0.98), eps 1e-9), wrapped in one
module so that DDP sees every parameter; DDP's defaults otherwise (25 MB buckets).
Timed like the attnlab side: 3 warm-up steps, then at least 5 steps and --seconds; the ranks
agree on when to stop outside the timed part. Rank 0 prints one JSON object (median wall and
process-CPU ms per step, tokens/s over all ranks).
Usage: /usr/bin/python3 bench/peers/torch_ddp.py --config M --ranks 2 --threads 1
(bench/rows/dist.mjs starts it with peers/env.mjs's environment).
"""
import argparse
import json
import math
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blas_info import openblas_info  # noqa: E402

CONFIGS = {"S": (64, 16, 32, 32, 4, 2), "M": (128, 32, 32, 32, 4, 2),
           "base": (512, 32, 16, 8000, 8, 6)}  # C, L, B, V, H, N as in transformer_torch.py


class Net(nn.Module):
    def __init__(self, C, L, V, H, N):
        super().__init__()
        self.model = nn.Transformer(C, H, N, N, 4 * C, 0.0, batch_first=True)
        self.src_embed, self.tgt_embed, self.gen = nn.Embedding(V, C), nn.Embedding(V, C), nn.Linear(C, V)
        pos = torch.arange(L, dtype=torch.float64)[:, None]
        i = torch.arange(C)
        freq = 10000.0 ** (-(i // 2 * 2).double() / C)
        self.register_buffer("pe", torch.where(i % 2 == 0, torch.sin(pos * freq), torch.cos(pos * freq)).float())
        self.register_buffer("mask", torch.triu(torch.full((L, L), float("-inf")), diagonal=1))
        self.scale = math.sqrt(C)

    def forward(self, src, tgt_in):
        x = self.src_embed(src) * self.scale + self.pe
        y = self.tgt_embed(tgt_in) * self.scale + self.pe
        return self.gen(self.model(x, y, tgt_mask=self.mask))


def worker(rank, a, port):
    torch.set_num_threads(a.threads)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=a.ranks)
    C, L, B, V, H, N = CONFIGS[a.config]
    torch.manual_seed(0)
    net = DDP(Net(C, L, V, H, N))
    opt = torch.optim.Adam(net.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    g = torch.Generator().manual_seed(1 + rank)  # each rank its own tokens
    src = torch.randint(3, V, (B, L), generator=g)
    tgt_out = torch.randint(3, V, (B, L), generator=g)
    tgt_in = torch.cat([torch.ones(B, 1, dtype=torch.long), tgt_out[:, :-1]], 1)
    net.train()

    def step():
        opt.zero_grad()
        z = net(src, tgt_in)
        loss = F.cross_entropy(z.reshape(-1, V), tgt_out.reshape(-1), label_smoothing=0.1)
        loss.backward()  # DDP all-reduces the gradient buckets during backward and waits at its end
        opt.step()

    for _ in range(3):
        step()
    times, cpu, t0 = [], [], time.perf_counter()
    while True:
        s, c = time.perf_counter(), time.process_time()
        step()
        times.append((time.perf_counter() - s) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
        done = torch.tensor([int(len(times) >= 5 and time.perf_counter() - t0 >= a.seconds)])
        dist.all_reduce(done, op=dist.ReduceOp.MAX)
        if done.item():
            break
    times.sort()
    cpu.sort()
    if rank == 0:
        ms = times[len(times) // 2]
        print(json.dumps({"config": a.config, "ranks": a.ranks, "threads": torch.get_num_threads(),
                          "ms_per_step": ms, "cpu_ms_per_step": cpu[len(cpu) // 2], "steps": len(times),
                          "tokens_per_step": B * L, "tokens_per_s": 1e3 * B * L * a.ranks / ms,
                          "torch": torch.__version__, "openblas": openblas_info()}), flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="M", choices=sorted(CONFIGS))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(worker, args=(a, free_port()), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()
