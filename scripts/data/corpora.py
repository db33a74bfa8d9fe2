"""Builds the parallel corpora of scripts/data.sh from Debian package files.

de-en: entries of the Ding dictionary are "de | de | ... :: en | en | ..." with the n-th
  German and English items matching; the items that are full sentences (capitalised, closing
  punctuation, 3+ words, no alternatives left after dropping {gender} [domain] annotations)
  are its example sentences.
es-en: two Bibles exported with mod2imp, joined on the verse reference; notes and headings
  are dropped with their text, other markup keeps its text.
Split: valid/test by a SHA-1 of the source sentence (3% / 5%), so it is stable everywhere and a
sentence repeated in the data never sits on both sides.
"""
import argparse
import hashlib
import os
import re

ANNOTATION = re.compile(r"\s*(\{[^}]*\}|\[[^\]]*\]|<[^>]*>)")
SPACES = re.compile(r"\s+")
DROP_WITH_TEXT = re.compile(r"<(note|title)\b[^>]*>.*?</\1>", re.S)
TAG = re.compile(r"<[^>]+>")
HEADER = re.compile(r"^\$\$\$(.+?) (\d+):(\d+)$")


def clean(text):
    return SPACES.sub(" ", text.replace("\t", " ")).strip()


def ding_pairs(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "::" not in line:
                continue
            de, en = line.rstrip("\n").split("::", 1)
            de_items, en_items = de.split("|"), en.split("|")
            if len(de_items) != len(en_items):
                continue
            for d, e in zip(de_items, en_items):
                d = clean(ANNOTATION.sub("", d.split(";")[0]))
                e = clean(ANNOTATION.sub("", e.split(";")[0]))
                if not d or not e or any(ch in d + e for ch in "()/"):
                    continue
                if not (d[0].isupper() and e[0].isupper()):
                    continue
                if d[-1] not in ".!?" or e[-1] not in ".!?":
                    continue
                if len(d.split()) < 3 or len(e.split()) < 3:
                    continue
                pairs.append((d, e))
    return pairs


def imp_verses(path):
    verses, key, body = {}, None, []

    def flush():
        if key and key[1] > 0 and key[2] > 0:
            text = clean(TAG.sub("", DROP_WITH_TEXT.sub(" ", " ".join(body))))
            if text:
                verses[key] = text

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEADER.match(line)
            if m or line.startswith("$$$"):
                flush()
                key = (m.group(1), int(m.group(2)), int(m.group(3))) if m else None
                body = []
            else:
                body.append(line)
    flush()
    return verses


def bible_pairs(src_path, tgt_path):
    src, tgt = imp_verses(src_path), imp_verses(tgt_path)
    return [(src[k], tgt[k]) for k in src if k in tgt]


def split_of(source):
    bucket = int(hashlib.sha1(source.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "test" if bucket < 5 else "valid" if bucket < 8 else "train"


def write(pairs, folder):
    os.makedirs(folder, exist_ok=True)
    seen, parts = set(), {"train": [], "valid": [], "test": []}
    for s, t in pairs:
        if s in seen:
            continue
        seen.add(s)
        parts[split_of(s)].append(f"{s}\t{t}\n")
    for name, lines in parts.items():
        with open(os.path.join(folder, name + ".tsv"), "w", encoding="utf-8") as f:
            f.writelines(lines)
    return {k: len(v) for k, v in parts.items()}


ATTRIBUTION = {
    "de-en": (
        "German-English example sentences from the Ding dictionary (dict.tu-chemnitz.de),\n"
        "(c) Frank Richter, distributed by Debian as package trans-de-en under the GNU GPL,\n"
        "version 2 or later (GPL-2 beside this file). Extracted by scripts/data/corpora.py:\n"
        "items of each entry that are whole sentences, annotations removed.\n"
    ),
    "es-en": (
        "Spanish-English verse pairs: Santa Biblia Reina-Valera 1909 (SWORD module spaRV1909eb,\n"
        "Debian package sword-text-sparv) and the World English Bible (engWEB2015eb, package\n"
        "sword-text-web). Both are in the public domain (module .conf files beside this file);\n"
        "'World English Bible' is a trademark of eBible.org. Joined on verse references by\n"
        "scripts/data/corpora.py; footnotes and headings removed.\n"
    ),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--ding", required=True)
    ap.add_argument("--bible-src", required=True)
    ap.add_argument("--bible-tgt", required=True)
    a = ap.parse_args()
    for name, pairs in (("de-en", ding_pairs(a.ding)),
                        ("es-en", bible_pairs(a.bible_src, a.bible_tgt))):
        folder = os.path.join(a.out, name)
        counts = write(pairs, folder)
        with open(os.path.join(folder, "ATTRIBUTION.txt"), "w", encoding="utf-8") as f:
            f.write(ATTRIBUTION[name])
        print(f"{name}: {counts}")


if __name__ == "__main__":
    main()
