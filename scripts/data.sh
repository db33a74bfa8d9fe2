#!/usr/bin/env bash
# `npm run data`: two real parallel corpora from Debian packages, written as
#   build/data/de-en/{train,valid,test}.tsv  (German<TAB>English, example sentences of the
#                                             Ding dictionary, package trans-de-en, GPL-2+)
#   build/data/de-en/lexicon.tsv             (the dictionary's other items, words and phrases,
#                                             each source tagged "<lex>"; lexicon-ablation.tsv
#                                             without the entries of held-out sentences;
#                                             counts.json)
#   build/data/es-en/{train,valid,test}.tsv  (Spanish<TAB>English, verse-aligned Reina-Valera
#                                             1909 and World English Bible, public domain)
# with the licence and attribution of each source beside the files. The split is a hash of the
# source sentence, so it is the same on every machine. Missing packages are apt-installed.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/data}
PKGS=(trans-de-en sword-text-sparv sword-text-web libsword-utils python3)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "data: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# mod2imp dumps a SWORD module as "$$$Book C:V" headers followed by the verse's OSIS markup.
mod2imp spaRV1909eb >"$TMP/es.imp"
mod2imp engWEB2015eb >"$TMP/en.imp"

/usr/bin/python3 scripts/data/corpora.py --out "$OUT" --ding /usr/share/trans/de-en \
  --bible-src "$TMP/es.imp" --bible-tgt "$TMP/en.imp"

zcat -f /usr/share/doc/trans-de-en/copyright >"$OUT/de-en/COPYRIGHT.debian"
cp /usr/share/common-licenses/GPL-2 "$OUT/de-en/GPL-2"
for m in spaRV1909eb engWEB2015eb; do
  cp "/usr/share/sword/mods.d/$m.conf" "$OUT/es-en/$m.conf"
done
wc -l "$OUT"/*/*.tsv
