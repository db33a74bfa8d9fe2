#!/usr/bin/env bash
# attn train --resume continues the same run: for each trainer (a Transformer on reverse with
# dropout, RNNsearch on dates, the pointer network on convex hulls, --task parallel on a corpus
# made here), N steps in one sitting and N/2 + a resumed N/2 on 1 thread end in identical
# tensor bytes (parameters and Adam's moments). A resume with a fresh Adam (--fresh-optimizer)
# must differ, so the comparison can fail; a file without optimizer state is refused.
# Usage: resume_cli_test.sh path/to/attn
set -u
ATTN="$1"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
fails=0

. "$(dirname "$0")/common.sh"

# The tensor bytes of a .safetensors file: what follows the 8-byte header length and the header.
st_data() {
  local n
  n=$(od -An -t u8 -N8 "$1" | tr -d ' ')
  tail -c +$((9 + n)) "$1"
}
same() {  # same NAME A B: identical tensor bytes
  if [ ! -s "$2" ] || [ ! -s "$3" ] || ! cmp -s <(st_data "$2") <(st_data "$3"); then
    echo "FAIL $1: $2 and $3 differ"; fails=$((fails + 1))
  fi
}
differ() {  # differ NAME A B: different tensor bytes
  if [ ! -s "$2" ] || [ ! -s "$3" ] || cmp -s <(st_data "$2") <(st_data "$3"); then
    echo "FAIL $1: $2 and $3 should differ"; fails=$((fails + 1))
  fi
}

# check NAME N FLAGS...: N steps vs N/2 + a resumed N/2 (the resumed sitting gives no training
# flags: it takes the checkpoint's), and a resume with a fresh Adam
check() {
  local name="$1" n="$2"; shift 2
  ok "$name-whole" "$ATTN" train "$@" --steps "$n" --threads 1 --out "$DIR/$name-whole.st"
  ok "$name-half" "$ATTN" train "$@" --steps $((n / 2)) --threads 1 --out "$DIR/$name-half.st"
  ok "$name-resume" "$ATTN" train --resume "$DIR/$name-half.st" --steps $((n - n / 2)) --threads 1 \
    --out "$DIR/$name-rest.st"
  same "$name" "$DIR/$name-whole.st" "$DIR/$name-rest.st"
  ok "$name-fresh" "$ATTN" train --resume "$DIR/$name-half.st" --steps $((n - n / 2)) --threads 1 \
    --fresh-optimizer --out "$DIR/$name-fresh.st"
  differ "$name-fresh" "$DIR/$name-whole.st" "$DIR/$name-fresh.st"
}

check reverse 30 --task reverse --d-model 16 --heads 2 --d-ff 32 --layers 1 --dropout 0.1 \
  --batch 8 --seed 3 --warmup 10
check rnnsearch 12 --model rnnsearch --task dates --hidden 12 --emb 8 --batch 6 --seed 2
check pointer 12 --model pointer --task convex-hull --n-min 4 --n-max 6 --hidden 12 --glimpse \
  --batch 6 --seed 2 --lr 0.002

# a finished run given no --steps: one line that says so
bad resume-finished "$ATTN" train --resume "$DIR/reverse-half.st" --out "$DIR/x.st"
grep -q "ended at step 15" "$DIR/err" || { echo "FAIL resume-finished: $(cat "$DIR/err")"; fails=$((fails + 1)); }
# weights only (attn export, --weights-only): refused without --fresh-optimizer
ok export "$ATTN" export --checkpoint "$DIR/reverse-half.st" --out "$DIR/exported.st"
bad resume-exported "$ATTN" train --resume "$DIR/exported.st" --steps 2 --out "$DIR/x.st"
grep -q "no optimizer state" "$DIR/err" || { echo "FAIL resume-exported: $(cat "$DIR/err")"; fails=$((fails + 1)); }
ok weights-only "$ATTN" train --task reverse --d-model 16 --heads 2 --d-ff 32 --layers 1 --steps 2 \
  --batch 4 --weights-only --out "$DIR/w.st"
[ "$(wc -c <"$DIR/w.st")" -lt "$(wc -c <"$DIR/reverse-half.st")" ] ||
  { echo "FAIL weights-only: not smaller than a checkpoint with optimizer state"; fails=$((fails + 1)); }
bad resume-weights-only "$ATTN" train --resume "$DIR/w.st" --steps 2 --out "$DIR/x.st"

# --task parallel: the periodic checkpoints carry the optimizer; 8 steps vs 4 + a resumed 4
for i in $(seq 60); do printf 'the cat sat on the mat %d\tdie katze sass auf der matte %d\n' $i $i; done >"$DIR/pairs.tsv"
par=(train --task parallel --train "$DIR/pairs.tsv" --vocab-size 300 --d-model 16 --heads 2 --d-ff 32
  --layers 1 --max-tokens 64 --save-every 4 --threads 1)
ok parallel-whole "$ATTN" "${par[@]}" --steps 8 --out "$DIR/pw.st"
ok parallel-half "$ATTN" "${par[@]}" --steps 4 --out "$DIR/ph.st"
ok parallel-resume "$ATTN" train --task parallel --resume "$DIR/ph.st.ckpt/step-000000004.safetensors" \
  --steps 8 --save-every 4 --threads 1 --out "$DIR/pr.st"
same parallel "$DIR/pw.st" "$DIR/pr.st"
same parallel-optimizer "$DIR/pw.st.ckpt/step-000000008.safetensors" "$DIR/pr.st.ckpt/step-000000008.safetensors"
differ parallel-progress "$DIR/pw.st.ckpt/step-000000004.safetensors" "$DIR/pw.st.ckpt/step-000000008.safetensors"
# word dropout: another run than without it, kept by the checkpoint and continued exactly
ok parallel-wd-whole "$ATTN" "${par[@]}" --word-dropout 0.3 --steps 8 --out "$DIR/wdw.st"
ok parallel-wd-half "$ATTN" "${par[@]}" --word-dropout 0.3 --steps 4 --out "$DIR/wdh.st"
ok parallel-wd-resume "$ATTN" train --task parallel --resume "$DIR/wdh.st.ckpt/step-000000004.safetensors" \
  --steps 8 --save-every 4 --threads 1 --out "$DIR/wdr.st"
same parallel-word-dropout "$DIR/wdw.st" "$DIR/wdr.st"
differ parallel-word-dropout-effect "$DIR/pw.st" "$DIR/wdw.st"
bad parallel-word-dropout-range "$ATTN" "${par[@]}" --word-dropout 1.5 --steps 1 --out "$DIR/x.st"

# the recurrent kinds' --save-every: a run killed outright continues from its newest periodic
# checkpoint to the step it planned (no --steps), its decay included, and ends in the bytes of the
# run that was never stopped; --keep 2 keeps the newest two
ptr=(train --model pointer --task convex-hull --n-min 4 --n-max 6 --hidden 12 --glimpse --batch 6
  --seed 2 --lr 0.002 --lr-final 0.0005 --decay-from 4 --threads 1)
ok pointer-periodic "$ATTN" "${ptr[@]}" --steps 12 --save-every 4 --keep 2 --out "$DIR/pp.st"
[ -f "$DIR/pp.st.ckpt/step-000000008.safetensors" ] && [ -f "$DIR/pp.st.ckpt/step-000000012.safetensors" ] &&
  [ ! -e "$DIR/pp.st.ckpt/step-000000004.safetensors" ] ||
  { echo "FAIL pointer-periodic-keep: $(ls "$DIR/pp.st.ckpt")"; fails=$((fails + 1)); }
ok pointer-periodic-resume "$ATTN" train --resume "$DIR/pp.st.ckpt/step-000000008.safetensors" --threads 1 \
  --eval-samples 4 --out "$DIR/pp-rest.st"
same pointer-periodic "$DIR/pp.st" "$DIR/pp-rest.st"
same pointer-periodic-last "$DIR/pp.st" "$DIR/pp.st.ckpt/step-000000012.safetensors"
differ pointer-periodic-progress "$DIR/pp.st.ckpt/step-000000008.safetensors" "$DIR/pp.st"
has pointer-periodic-resume '"steps":12'

if [ "$fails" -ne 0 ]; then echo "$fails resume CLI check(s) failed"; exit 1; fi
echo "resume CLI: all checks passed"
