#!/usr/bin/env bash
# attn train's one flag table (cpp/cli/train_flags.cpp): the three training paths (Transformers,
# recurrent kinds, --task parallel) read the same flags with the same bounds. A model flag out of
# its kind's config range fails with the config's own message (one stderr line, exit 1 or 2,
# before any training), the same text on every path of the kind, and the bound it names is the
# one `attn train --help` shows; a training flag's bound is the same on every path.
# Usage: flags_cli_test.sh path/to/attn
set -u
. "$(dirname "$0")/common.sh"
ATTN="$1" DIR="$(mktemp -d)" T="timeout 30" fails=0  # T: a late failure or a hang is exit 124
trap 'rm -rf "$DIR"' EXIT
for i in $(seq 60); do printf 'the cat sat on the mat %d\tdie katze sass auf der matte %d\n' $i $i; done >"$DIR/pairs.tsv"
declare -A path=(
  [transformer]="--model transformer --task reverse"
  [lm]="--model lm --task copy"
  [parallel]="--task parallel --train $DIR/pairs.tsv --vocab-size 300"
  [rnnsearch]="--model rnnsearch --task dates"
  [rnnencdec]="--model rnnencdec --task phrases"
  [luong]="--model luong --task dates"
  [pointer]="--model pointer --task convex-hull"
)

# msg NAME P FLAGS...: attn train on path P with FLAGS must fail with one line; its text (after
# "attn train: ") is left in $DIR/msg.NAME
msg() {
  local name="$1" p="$2"; shift 2
  # shellcheck disable=SC2086
  bad "$name" $T "$ATTN" train ${path[$p]} --steps 1 --out "$DIR/x.safetensors" "$@"
  sed 's/^attn train: //' "$DIR/err" >"$DIR/msg.$name"
}
same() {  # same A B: the messages of checks A and B are one text
  cmp -s "$DIR/msg.$1" "$DIR/msg.$2" ||
    { echo "FAIL same $1 $2: '$(cat "$DIR/msg.$1")' vs '$(cat "$DIR/msg.$2")'"; fails=$((fails + 1)); }
}
says() {  # says NAME PATTERN: the message of check NAME matches
  grep -q -- "$2" "$DIR/msg.$1" || { echo "FAIL $1: message lacks $2: $(cat "$DIR/msg.$1")"; fails=$((fails + 1)); }
}

ok help "$ATTN" train --help
cp "$DIR/out" "$DIR/help"
# the bound of each model flag in --help, for a kind: "[lo, hi]" of the kind's group
help_bound() {  # help_bound FLAG KIND
  grep -- "^  --$1 " "$DIR/help" | tr ';(' '\n\n' | grep -w -- "$2" | grep -o '\[[^]]*\]'
}

# the Transformer's model flags: the same message from attn train's three Transformer paths
for p in transformer lm parallel; do
  msg "dmodel0-$p" "$p" --d-model 0 --heads 1
  msg "dmodel-big-$p" "$p" --d-model 16385 --heads 1
  msg "heads0-$p" "$p" --heads 0
  msg "dff0-$p" "$p" --d-ff 0
  msg "dropout1-$p" "$p" --dropout 1
  msg "layers65-$p" "$p" --layers 65
  msg "dmodel-text-$p" "$p" --d-model x
  msg "hidden-$p" "$p" --hidden 8
done
says dmodel0-transformer 'config key "d_model" = 0 is outside'
says dmodel0-transformer "$(help_bound d-model transformer)"
says dmodel-big-transformer "$(help_bound d-model transformer)"
says dff0-transformer "$(help_bound d-ff lm)"
says layers65-transformer "$(help_bound enc-layers transformer)"
says hidden-transformer "not an option of model transformer"
for c in dmodel0 dmodel-big heads0 dff0 dropout1 layers65 dmodel-text; do
  same "$c-transformer" "$c-lm"
  same "$c-transformer" "$c-parallel"
done

# the recurrent kinds: each kind's bound, the one --help shows
for p in rnnsearch rnnencdec luong pointer; do
  msg "hidden0-$p" "$p" --hidden 0
  msg "hidden-big-$p" "$p" --hidden 4097
  says "hidden0-$p" 'config key "hidden" = 0 is outside'
  says "hidden0-$p" "$(help_bound hidden "$p")"
  msg "dmodel-$p" "$p" --d-model 8
  says "dmodel-$p" "not an option of model $p"
done
same hidden0-rnnsearch hidden0-rnnencdec
same hidden0-rnnsearch hidden0-pointer
msg luong-2049 luong --hidden 2049
says luong-2049 "$(help_bound hidden luong)"
msg emb0-rnnsearch rnnsearch --emb 0
msg emb0-luong luong --emb 0
same emb0-rnnsearch emb0-luong
msg process0 pointer --process-steps 0
says process0 "$(help_bound process-steps pointer)"

# training flags: one bound, every path
for p in transformer rnnsearch pointer parallel; do
  [ "$p" != parallel ] && msg "batch0-$p" "$p" --batch 0  # the corpus path batches by --max-tokens
  msg "clip-$p" "$p" --clip -1
  msg "seed-$p" "$p" --seed -1
  msg "steps0-$p" "$p" --steps 0
  msg "threads0-$p" "$p" --threads 0
done
for c in clip seed steps0 threads0; do
  for p in rnnsearch pointer parallel; do same "$c-transformer" "$c-$p"; done
done
same batch0-transformer batch0-rnnsearch
same batch0-transformer batch0-pointer
for p in transformer rnnsearch luong; do
  msg "lr-$p" "$p" --lr -1
  msg "lr-inf-$p" "$p" --lr inf
done
same lr-transformer lr-rnnsearch
same lr-transformer lr-luong
same lr-inf-transformer lr-inf-luong
msg warmup-transformer transformer --warmup 0
msg warmup-parallel parallel --warmup 0
same warmup-transformer warmup-parallel
msg ls-transformer transformer --label-smoothing 1
msg ls-parallel parallel --label-smoothing 1
same ls-transformer ls-parallel

# values inside the bounds still train, on each path
ok train-transformer "$ATTN" train --task reverse --d-model 8 --heads 2 --d-ff 8 --layers 1 --steps 1 \
  --batch 2 --out "$DIR/t.safetensors"
ok train-luong "$ATTN" train --model luong --task dates --hidden 4 --emb 4 --steps 1 --batch 2 \
  --out "$DIR/l.safetensors"
ok train-pointer "$ATTN" train --model pointer --task convex-hull --n 4 --hidden 4 --attn 6 \
  --process-steps 2 --encoder rpw --steps 1 --batch 2 --out "$DIR/p.safetensors"
ok train-parallel $T "$ATTN" train --task parallel --train "$DIR/pairs.tsv" --vocab-size 300 \
  --d-model 8 --heads 2 --d-ff 8 --layers 1 --max-tokens 64 --steps 1 --out "$DIR/par.safetensors"

if [ $fails -ne 0 ]; then echo "$fails attn train flag check(s) failed"; exit 1; fi
echo "attn train flag checks passed"
