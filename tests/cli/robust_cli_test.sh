#!/usr/bin/env bash
# No input traps attn: checkpoints with NaN/Inf or huge weights, of another model kind, or
# claiming a huge model; averaging different models; an --out that cannot be written (every
# trainer fails within seconds, before step one); models too large for memory; nonsense
# training numbers. Each must exit 1 or 2 with one stderr line (never a crash or a hang), and
# --allow-nonfinite must let forward/translate/eval inspect a broken checkpoint.
# Usage: robust_cli_test.sh path/to/attn
set -u
ATTN="$1"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
fails=0

. "$(dirname "$0")/common.sh"

says() {  # says NAME PATTERN: stderr of the last command matches
  grep -q -- "$2" "$DIR/err" || { echo "FAIL $1: stderr lacks $2: $(head -c 300 "$DIR/err")"; fails=$((fails + 1)); }
}
T="timeout 30"  # a late failure or a hang shows as exit 124

C="$DIR/c.safetensors"
# --weights-only: no optimizer state after the weights
ok train "$ATTN" train --task reverse --d-model 16 --heads 2 --d-ff 32 --layers 1 --steps 2 --batch 4 \
  --weights-only --out "$C"

# the last 64 bytes of the file are weights (the last tensor's data): overwrite them
patched() {  # patched OUT BYTES: a copy of C whose last 64 bytes repeat the 4-byte float BYTES
  cp "$C" "$1"
  local i pattern=""; for i in $(seq 16); do pattern="$pattern$2"; done
  printf "$pattern" | dd of="$1" bs=1 seek=$(($(wc -c <"$C") - 64)) conv=notrunc status=none
}
patched "$DIR/nan.safetensors" '\000\000\300\177'
patched "$DIR/inf.safetensors" '\000\000\200\177'
patched "$DIR/huge.safetensors" '\377\377\177\177'  # FLT_MAX
for f in nan inf; do
  bad "$f-forward" $T "$ATTN" forward --checkpoint "$DIR/$f.safetensors" --src "5 6 7" --tgt "1 7 6"
  says "$f-forward" "not finite"
  bad "$f-translate" $T "$ATTN" translate --checkpoint "$DIR/$f.safetensors" --src "5 6 7" --beam 4
  says "$f-translate" "tensor "
  bad "$f-eval" $T "$ATTN" eval --checkpoint "$DIR/$f.safetensors" --task reverse --samples 5
  ok "$f-allowed-translate" $T "$ATTN" translate --checkpoint "$DIR/$f.safetensors" --src "5 6 7" --beam 4 --allow-nonfinite
  has "$f-allowed-translate" '{"tokens":'
  ok "$f-allowed-greedy" $T "$ATTN" translate --checkpoint "$DIR/$f.safetensors" --src "5 6 7" --allow-nonfinite
  ok "$f-allowed-forward" $T "$ATTN" forward --checkpoint "$DIR/$f.safetensors" --src "5 6 7" --tgt "1 7 6" --allow-nonfinite
  ok "$f-allowed-eval" $T "$ATTN" eval --checkpoint "$DIR/$f.safetensors" --task reverse --samples 5 --allow-nonfinite
done
ok huge-translate $T "$ATTN" translate --checkpoint "$DIR/huge.safetensors" --src "5 6 7" --beam 4
ok huge-eval $T "$ATTN" eval --checkpoint "$DIR/huge.safetensors" --task reverse --samples 5

# the same tensors under another model kind (the header keeps its length: JSON whitespace)
perl -0777 -pe 's/\\"model\\":\\"transformer\\"/\\"model\\":\\"lm\\"         /' "$C" >"$DIR/as-lm.safetensors"
perl -0777 -pe 's/\\"model\\":\\"transformer\\"/\\"model\\":\\"encoder\\"    /' "$C" >"$DIR/as-enc.safetensors"
bad as-lm $T "$ATTN" translate --checkpoint "$DIR/as-lm.safetensors" --src "5 6"
says as-lm "does not have"
bad as-encoder $T "$ATTN" forward --checkpoint "$DIR/as-enc.safetensors" --src "5 6" --tgt "5 6"
says as-encoder "does not have"

# a header that claims a huge model and holds no tensors: refused before allocating it
claim() {  # claim OUT CONFIG: a safetensors file with only that config in its metadata
  local h="{\"__metadata__\":{\"attnlab\":\"$2\"}}" n
  n=${#h}
  printf "$(printf '\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)))\\000\\000\\000\\000\\000\\000%s" "$h" >"$1"
}
claim "$DIR/claim-huge.safetensors" '{\"model\":\"transformer\",\"d_model\":16384,\"heads\":16,\"src_vocab\":1048576,\"tgt_vocab\":1048576}'
bad claim-huge $T "$ATTN" translate --checkpoint "$DIR/claim-huge.safetensors" --src "5"
says claim-huge "MB"
claim "$DIR/claim-empty.safetensors" '{\"model\":\"transformer\",\"d_model\":512,\"heads\":8,\"d_ff\":2048,\"src_vocab\":8000,\"tgt_vocab\":8000}'
bad claim-empty $T "$ATTN" translate --checkpoint "$DIR/claim-empty.safetensors" --src "5"
says claim-empty "holds only 0 values"

# averaging checkpoints of different models names both files
ok train-other "$ATTN" train --task reverse --d-model 16 --heads 2 --d-ff 48 --layers 1 --steps 1 --batch 4 --out "$DIR/other.safetensors"
bad average-mismatch $T "$ATTN" average --inputs "$C,$DIR/other.safetensors" --out "$DIR/avg.safetensors"
says average-mismatch "other.safetensors"
says average-mismatch "c.safetensors"
ok average-same "$ATTN" average --inputs "$C,$C" --out "$DIR/avg.safetensors"

# an --out that cannot be written fails before training, for every trainer
for i in $(seq 60); do printf 'the cat sat on the mat %d\tdie katze sass auf der matte %d\n' $i $i; done >"$DIR/pairs.tsv"
mkdir -p "$DIR/outdir"
for out in "$DIR/outdir" "$C/under-a-file.safetensors"; do
  bad "unwritable-transformer $out" $T "$ATTN" train --task reverse --d-model 8 --heads 2 --steps 1000000 --out "$out"
  bad "unwritable-rnnsearch $out" $T "$ATTN" train --model rnnsearch --task dates --hidden 8 --emb 4 --batch 4 --steps 1000000 --out "$out"
  bad "unwritable-pointer $out" $T "$ATTN" train --model pointer --task convex-hull --hidden 8 --batch 4 --steps 1000000 --out "$out"
  bad "unwritable-parallel $out" $T "$ATTN" train --task parallel --train "$DIR/pairs.tsv" --vocab-size 300 \
    --d-model 16 --heads 2 --d-ff 32 --layers 1 --max-tokens 64 --steps 1000000 --out "$out"
done
ls "$DIR"/outdir.ckpt >/dev/null 2>&1 && { echo "FAIL unwritable-parallel: made a checkpoint folder"; fails=$((fails + 1)); }

# models too large for memory are refused before anything is allocated
export ATTNLAB_MAX_BYTES=8000000000
bad too-big-transformer $T "$ATTN" train --task reverse --d-model 8192 --d-ff 32768 --steps 1 --out "$DIR/x"
says too-big-transformer "MB"
bad too-big-rnnsearch $T "$ATTN" train --model rnnsearch --task dates --hidden 4096 --emb 4096 --batch 65536 --steps 1 --out "$DIR/x"
says too-big-rnnsearch "MB"
bad too-big-parallel $T "$ATTN" train --task parallel --train "$DIR/pairs.tsv" --vocab-size 300 --d-model 8192 \
  --heads 8 --d-ff 32768 --steps 1 --out "$DIR/x"
says too-big-parallel "MB"
unset ATTNLAB_MAX_BYTES

# nonsense training numbers
for flags in "--lr -1" "--lr nan" "--lr inf" "--lr-factor 1e30" "--lr-factor -1" "--warmup -1" \
             "--clip -1" "--clip nan" "--label-smoothing 1" "--label-smoothing -0.1"; do
  # shellcheck disable=SC2086
  bad "train $flags" $T "$ATTN" train --task reverse --d-model 8 --heads 2 --steps 1 --out "$DIR/x" $flags
done
# a run whose loss overflows stops with one line instead of training on NaN
bad lr-overflow $T "$ATTN" train --task reverse --schedule constant --lr 1e30 --steps 50 --out "$DIR/x"
says lr-overflow "not finite"

if [ $fails -ne 0 ]; then echo "$fails robustness CLI checks failed"; exit 1; fi
echo "attn CLI robustness: all checks passed"
