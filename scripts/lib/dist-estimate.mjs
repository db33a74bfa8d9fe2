// The on-paper estimate of docs/distributed.md: the paper's base model trained data-parallel on
// GPUs, as arithmetic on stated assumptions (docs/distributed/on-paper.json): compute from the
// FLOPs of a step (trainStepFlops, bench/peers/env.mjs) at an assumed GPU rate, Adam from its
// memory traffic, the gradient all-reduce from its bytes over NVLink and the network. A step
// overlaps backward with the all-reduce of the layers; the embedding gradient, reported last,
// is never overlapped. scripts/lib/readme-tables.mjs writes the tables from `estimate`.
import { trainStepFlops } from '../../bench/peers/env.mjs';

const MS = 1e3;

// All times in seconds, sizes in bytes.
export function estimate(a) {
  const m = a.model;
  const tokens = a.pairsPerGpu * a.tokensPerPair;
  const flops = trainStepFlops({ B: a.pairsPerGpu, S: a.tokensPerPair, T: a.tokensPerPair, ...m });
  const compute = flops / (a.gpuTflops * 1e12);
  const adamBytes = m.params * a.adamBytesPerParam;
  const adam = adamBytes / (a.hbmTBs * 1e12);
  const grad = m.params * a.gradBytesPerParam;
  const embedShare = (m.V * m.C) / m.params;
  const nvlink = a.nvlinkGBs * 1e9,
    net = (a.networkGbs * 1e9) / 8;
  const allReduce = (nodes, gpus) => {
    const inside = gpus > 1 ? (2 * (((gpus - 1) / gpus) * grad)) / nvlink : 0; // reduce-scatter + all-gather
    const across = nodes > 1 ? grad / net : 0; // each node's shards once over its one link
    return { inside, across, total: inside + across };
  };
  const flatRingBytes = ((2 * (16 - 1)) / 16) * grad;
  const setups = a.setups.map((s) => {
    const c = compute * s.batchTimes;
    const single = c + adam;
    const ar = allReduce(s.nodes, s.gpusPerNode).total;
    const step = c / 3 + Math.max((2 * c) / 3, ar * (1 - embedShare)) + ar * embedShare + adam;
    const serial = c + ar + adam;
    const gpus = s.nodes * s.gpusPerNode;
    return {
      ...s,
      tokens: tokens * s.batchTimes,
      single,
      step,
      serial,
      efficiency: single / step,
      tokensPerS: (gpus * tokens * s.batchTimes) / step,
    };
  });
  return {
    tokens,
    flops,
    compute,
    adamBytes,
    adam,
    grad,
    embedShare,
    flatRingBytes,
    flatRing: flatRingBytes / net,
    net,
    two: allReduce(2, 8),
    setups,
  };
}

const f1 = (x) => x.toFixed(1),
  f2 = (x) => x.toFixed(2),
  ms = (s) => `${(s * MS).toFixed(1)} ms`,
  mb = (b) => `${(b / 1e6).toFixed(1).replace(/\.0$/, '')} MB`,
  millions = (x) => `${Math.round(x / 1e6)}M`,
  thousands = (n) => Math.round(n).toLocaleString('en-US');

export function onPaperTables(a) {
  const e = estimate(a);
  const m = a.model;
  const gbs = (x) => `${f1(x / 1e9)} GB/s`;
  const lines = [
    '| quantity | value | source |',
    '| --- | --- | --- |',
    `| FLOPs of one GPU's step (${a.pairsPerGpu} × ${a.tokensPerPair} tokens, vocab ${thousands(m.V)}) | ${f2(e.flops / 1e12)} TFLOP | formula (\`trainStepFlops\`) |`,
    `| achievable rate of an ${a.gpu} GPU | ${a.gpuTflops} TFLOP/s (≈ ${Math.round((100 * a.gpuTflops) / a.gpuPeakTflops)}% of its ≈ ${a.gpuPeakTflops} TFLOP/s dense bf16 peak) | **assumption** |`,
    `| compute per GPU step: FLOPs ÷ rate | ${ms(e.compute)} (forward ⅓, backward ⅔) | derived |`,
    `| Adam: ${millions(m.params)} parameters × ${a.adamBytesPerParam} B of memory traffic (≈ ${f1(e.adamBytes / 1e9)} GB) at ${a.hbmTBs} TB/s | ${ms(e.adam)} | assumption: ${a.hbmTBs} TB/s |`,
    `| gradient: ${millions(m.params)} parameters × ${a.gradBytesPerParam} B (fp32) | ${mb(e.grad)} | paper |`,
    `| flat ring all-reduce over 16 GPUs: 2·(N−1)/N × ${mb(e.grad)} per GPU | ${mb(e.flatRingBytes)}; the ring crosses the network both ways: ${ms(e.flatRing)} at ${gbs(e.net)} | derived |`,
    `| hierarchical, inside a node: reduce-scatter, then all-gather, 7/8 × ${mb(e.grad)} each, NVLink ≈ ${a.nvlinkGBs} GB/s per GPU | 2 × ${((e.two.inside * MS) / 2).toFixed(2)} ms | assumption: ${a.nvlinkGBs} GB/s |`,
    `| hierarchical, across the 2 nodes: each node sends its ${mb(e.grad)} once (8 shards, one ${a.networkGbs} Gb/s link) | ${ms(e.two.across)} at ${gbs(e.net)} (line rate) | assumption: ${a.networkGbs} Gb/s |`,
    `| all-reduce per step (hierarchical) | ${ms(e.two.total)}, of which the embeddings' ${millions(m.V * m.C)} parameters (reported last, so never overlapped) ${ms(e.two.total * e.embedShare)} | derived |`,
    '',
    "Predicted step (forward + max(backward, all-reduce of the layers) + the embeddings' all-reduce +",
    "Adam), against one GPU's step (compute + Adam):",
    '',
    '| setup, per-GPU batch | 1-GPU step | step, overlapped (not) | efficiency | tokens/s, all GPUs |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const s of e.setups)
    lines.push(
      `| ${s.nodes} node${s.nodes > 1 ? 's' : ''} × ${s.gpusPerNode} GPUs, ${thousands(s.tokens)} tokens | ${ms(s.single)} | ${ms(s.step)} (${f1(s.serial * MS)}) | ${f2(s.efficiency)} | ${f1(s.tokensPerS / 1e6)}M |`
    );
  lines.push(
    '',
    `From \`docs/distributed/on-paper.json\` (${m.source}; the rest assumptions) by \`scripts/lib/dist-estimate.mjs\`.`
  );
  return lines.join('\n');
}
