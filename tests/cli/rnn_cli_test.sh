#!/usr/bin/env bash
# attn with the recurrent models end to end: train tiny rnnsearch / rnnencdec / luong / pointer models,
# eval / align / point on them, and bad input (too few points, NaN, unknown task, wrong model
# for the task) must give one stderr line and a non-zero exit. Usage: rnn_cli_test.sh attn
set -u
ATTN="$1"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
fails=0

. "$(dirname "$0")/common.sh"

S="$DIR/search.safetensors"; E="$DIR/encdec.safetensors"; P="$DIR/hull.safetensors"
ok train-search "$ATTN" train --model rnnsearch --task dates --hidden 8 --emb 4 --steps 2 --batch 4 --out "$S"
ok eval-search "$ATTN" eval --checkpoint "$S" --task dates --samples 5
has eval-search '"aer"'
has eval-search '"per_length"'
ok align "$ATTN" align --checkpoint "$S" --src "samedi 25 décembre 2021" --max-len 12
has align '"src_tokens":\["samedi","2","5","décembre"'
has align '"alignment":\[\['
ok train-encdec "$ATTN" train --model rnnencdec --task phrases --n-min 2 --n-max 6 --hidden 8 --steps 2 --batch 4 --out "$E"
ok eval-encdec "$ATTN" eval --checkpoint "$E" --task phrases --samples 5
has eval-encdec '"sequence_accuracy"'
ok train-hull "$ATTN" train --model pointer --task convex-hull --n 5 --hidden 8 --glimpse --steps 2 --batch 4 --out "$P"
ok eval-hull "$ATTN" eval --checkpoint "$P" --task convex-hull --samples 5
has eval-hull '"area_coverage"'
has eval-hull '"invalid_rate"'
ok point "$ATTN" point --checkpoint "$P" --points "0.1,0.2 0.8,0.1 0.5,0.9 0.4,0.4"
has point '"order":\['
has point '"probabilities":\[\['
has point '"exact":\[0,1,2\]'
ok train-tsp "$ATTN" train --model pointer --task tsp --n 5 --hidden 8 --encoder rpw --steps 2 --batch 4 --out "$DIR/tsp.safetensors"
ok eval-tsp "$ATTN" eval --checkpoint "$DIR/tsp.safetensors" --task tsp --samples 5
has eval-tsp '"optimal_tour_length"'

L="$DIR/luong.safetensors"
ok train-luong "$ATTN" train --model luong --score concat --task dates --hidden 8 --emb 4 --steps 2 --batch 4 --out "$L"
ok eval-luong "$ATTN" eval --checkpoint "$L" --task dates --samples 5
has eval-luong '"aer"'
has eval-luong '"per_length"'
ok align-luong "$ATTN" align --checkpoint "$L" --src "samedi 25 décembre 2021" --max-len 12
has align-luong '"src_tokens":\["samedi","2","5","décembre"'
has align-luong '"alignment":\[\['
ok resume-luong "$ATTN" train --resume "$L" --steps 2 --eval-samples 5 --out "$DIR/luong2.safetensors"
has resume-luong '"steps":4'  # the run's steps over both sittings
ok align-luong-resumed "$ATTN" align --checkpoint "$DIR/luong2.safetensors" --src "1 May 2021" --max-len 12
has align-luong-resumed '"alignment":\[\['
ok train-luong-phrases "$ATTN" train --model luong --score dot --task phrases --n-min 2 --n-max 6 --hidden 8 --steps 2 --batch 4 --out "$DIR/luong3.safetensors"
ok eval-luong-phrases "$ATTN" eval --checkpoint "$DIR/luong3.safetensors" --task phrases --samples 5
has eval-luong-phrases '"sequence_accuracy"'
bad luong-score "$ATTN" train --model luong --score additive --task dates --steps 1 --out "$DIR/x"

bad two-points "$ATTN" point --checkpoint "$P" --points "0.1,0.2 0.8,0.1"
bad nan-point "$ATTN" point --checkpoint "$P" --points "0.1,0.2 nan,0.1 0.5,0.5"
bad one-coordinate "$ATTN" point --checkpoint "$P" --points "0.1 0.8,0.1 0.5,0.5"
bad unknown-task "$ATTN" train --model pointer --task knapsack --steps 1 --out "$DIR/x"
bad wrong-model "$ATTN" train --model rnnsearch --task convex-hull --steps 1 --out "$DIR/x"
bad align-pointer "$ATTN" align --checkpoint "$P" --src "1 May 2021"
bad tsp-too-big "$ATTN" train --model pointer --task tsp --n 11 --steps 1 --batch 2 --hidden 4 --out "$DIR/x"

I="$DIR/int.safetensors"
interrupted interrupt-pointer "$I" "$ATTN" train --model pointer --task convex-hull --hidden 8 --batch 4 \
  --steps 1000000 --out "$I"
ok interrupt-point "$ATTN" point --checkpoint "$I" --points "0.1,0.1 0.9,0.2 0.5,0.9 0.5,0.5 0.3,0.4"
interrupted interrupt-search "$DIR/int2.safetensors" "$ATTN" train --model rnnsearch --task dates --hidden 8 \
  --emb 4 --batch 4 --steps 1000000 --out "$DIR/int2.safetensors"
ok interrupt-align "$ATTN" align --checkpoint "$DIR/int2.safetensors" --src "samedi 25 décembre 2021" --max-len 4

if [ $fails -ne 0 ]; then echo "$fails recurrent-model CLI checks failed"; exit 1; fi
echo "attn CLI (recurrent models): all checks passed"
