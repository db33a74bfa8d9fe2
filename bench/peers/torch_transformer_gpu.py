"""Training throughput of PyTorch's nn.Transformer at the paper's base configuration: the
peer that attnlab's own base-model benchmark is compared with in scripts/gpu-check.sh.

Base model (Vaswani et al. 2017): N=6+6 layers, d_model 512, d_ff 2048, h 8, dropout 0.1,
shared source/target embedding tied to the output projection, label smoothing 0.1, Adam.
On CUDA it runs under bf16 autocast (fp32 master weights). Prints one line of key=value pairs:
target tokens per second, step time and model FLOP utilisation against --peak-tflops.
"""
import argparse
import math
import time

import torch
import torch.nn as nn


def flops_per_step(a, params_enc, params_dec):
    """Matmul FLOPs of one training step (forward + backward = 3 x forward, 2 per MAC)."""
    src, tgt = a.batch * a.len, a.batch * a.len
    dense = 2 * (params_enc * src + params_dec * tgt + a.d_model * a.vocab * tgt)
    # Attention score and value products: encoder self, decoder self and cross attention.
    attn = 2 * 2 * a.batch * a.len * a.len * a.d_model * a.layers * 3
    return 3 * (dense + attn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--len", type=int, default=96, help="source and target length")
    ap.add_argument("--vocab", type=int, default=37000)
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--d-ff", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="H200 dense bf16")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    dev = torch.device(a.device)
    torch.manual_seed(0)

    emb = nn.Embedding(a.vocab, a.d_model).to(dev)
    nn.init.normal_(emb.weight, std=a.d_model ** -0.5)
    model = nn.Transformer(a.d_model, a.heads, a.layers, a.layers, a.d_ff, 0.1,
                           batch_first=True).to(dev)
    params = list(emb.parameters()) + list(model.parameters())
    opt = torch.optim.Adam(params, lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    src = torch.randint(0, a.vocab, (a.batch, a.len), device=dev)
    tgt = torch.randint(0, a.vocab, (a.batch, a.len + 1), device=dev)
    mask = model.generate_square_subsequent_mask(a.len).to(dev)
    scale = math.sqrt(a.d_model)
    use_amp = dev.type == "cuda"

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=use_amp):
            h = model(emb(src) * scale, emb(tgt[:, :-1]) * scale, tgt_mask=mask)
            logits = h @ emb.weight.t()
            loss = loss_fn(logits.float().reshape(-1, a.vocab), tgt[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        return loss

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    for _ in range(a.warmup):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    sync()
    dt = (time.perf_counter() - t0) / a.steps

    p_enc = sum(p.numel() for p in model.encoder.parameters() if p.dim() > 1)
    p_dec = sum(p.numel() for p in model.decoder.parameters() if p.dim() > 1)
    tflops = flops_per_step(a, p_enc, p_dec) / dt / 1e12
    print(f"peer=torch-{torch.__version__} device={a.device} batch={a.batch} len={a.len} "
          f"step_ms={dt * 1e3:.1f} tgt_tokens_per_s={a.batch * a.len / dt:.0f} "
          f"tflops={tflops:.1f} mfu={100 * tflops / a.peak_tflops:.1f}% loss={loss.item():.3f}")


if __name__ == "__main__":
    main()
