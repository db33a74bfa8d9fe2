"""Builds the parallel corpora of scripts/data.sh from Debian package files.

de-en: entries of the Ding dictionary are "de | de | ... :: en | en | ..." with the n-th
  German and English items matching; the items that are full sentences (capitalised, closing
  punctuation, 3+ words, no alternatives left after dropping {gender} [domain] annotations)
  are its example sentences (train/valid/test.tsv). The other items of every entry (words,
  phrases, their inflected forms: the first alternative of each ";" group, annotations and
  parenthesised glosses removed) are its lexical items (lexicon.tsv), each source marked with the
  tag token LEX_TAG so that a model can tell an item from a sentence. An item whose source is a
  valid/test sentence or contains one is left out. lexicon-ablation.tsv is lexicon.tsv without
  any item of an entry whose example sentence is in valid/test (the honest ablation: none of the
  knowledge written beside a held-out sentence). counts.json gives the counts.
es-en: two Bibles exported with mod2imp, joined on the verse reference; notes and headings
  are dropped with their text, other markup keeps its text.
Split: valid/test by a SHA-1 of the source sentence (3% / 5%), so it is stable everywhere and a
sentence repeated in the data never sits on both sides.
"""
import argparse
import hashlib
import json
import os
import re

ANNOTATION = re.compile(r"\s*(\{[^}]*\}|\[[^\]]*\]|<[^>]*>)")
SPACES = re.compile(r"\s+")
DROP_WITH_TEXT = re.compile(r"<(note|title)\b[^>]*>.*?</\1>", re.S)
TAG = re.compile(r"<[^>]+>")
HEADER = re.compile(r"^\$\$\$(.+?) (\d+):(\d+)$")


def clean(text):
    return SPACES.sub(" ", text.replace("\t", " ")).strip()


LEX_TAG = "<lex>"
GLOSS = re.compile(r"\s*\([^)]*\)")


def is_sentence(d, e):
    """The example sentences: whole sentences on both sides (see the module docstring)."""
    if not d or not e or any(ch in d + e for ch in "()/"):
        return False
    if not (d[0].isupper() and e[0].isupper()):
        return False
    if d[-1] not in ".!?" or e[-1] not in ".!?":
        return False
    return len(d.split()) >= 3 and len(e.split()) >= 3


def lexical_item(d, e):
    """A dictionary item as a training pair, or None: glosses in parentheses removed, and
    nothing left that is not plain text (slashes, ellipses, placeholders, empty sides)."""
    d, e = clean(GLOSS.sub("", d)), clean(GLOSS.sub("", e))
    if not d or not e or any(ch in d + e for ch in "()/~…<>") or "..." in d + e:
        return None
    if len(d.split()) > 12 or len(e.split()) > 12:
        return None
    return d, e


def ding_entries(path):
    """Each dictionary line as a list of (German, English) items, the first alternative of each
    ";" group with {gender} [domain] <abbrev> annotations removed."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "::" not in line:
                continue
            de, en = line.rstrip("\n").split("::", 1)
            de_items, en_items = de.split("|"), en.split("|")
            if len(de_items) != len(en_items):
                continue
            entries.append([(clean(ANNOTATION.sub("", d.split(";")[0])),
                             clean(ANNOTATION.sub("", e.split(";")[0])))
                            for d, e in zip(de_items, en_items)])
    return entries


def ding_pairs(entries):
    return [(d, e) for items in entries for d, e in items if is_sentence(d, e)]


def ding_lexicon(entries, held_out):
    """(lexicon, ablation, counts): the tagged lexical items of every entry, and the same without
    the entries that hold a held-out (valid/test) sentence."""
    held = sorted(held_out, key=len)
    lexicon, ablation, seen = [], [], set()
    counts = {"items": 0, "unusable": 0, "held_out_overlap": 0, "duplicates": 0,
              "entries_with_held_out_sentence": 0, "ablation_removed": 0}
    for items in entries:
        touches_held_out = any(is_sentence(d, e) and d in held_out for d, e in items)
        counts["entries_with_held_out_sentence"] += touches_held_out
        for d, e in items:
            if is_sentence(d, e):
                continue
            counts["items"] += 1
            item = lexical_item(d, e)
            if item is None:
                counts["unusable"] += 1
                continue
            if item[0] in held_out or (any(c in item[0] for c in ".!?") and
                                       any(h in item[0] for h in held if len(h) <= len(item[0]))):
                counts["held_out_overlap"] += 1
                continue
            if item in seen:
                counts["duplicates"] += 1
                continue
            seen.add(item)
            line = f"{LEX_TAG} {item[0]}\t{item[1]}\n"
            lexicon.append(line)
            if touches_held_out:
                counts["ablation_removed"] += 1
            else:
                ablation.append(line)
    counts["lexicon"], counts["lexicon_ablation"] = len(lexicon), len(ablation)
    return lexicon, ablation, counts


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
    return {k: len(v) for k, v in parts.items()}, parts


def write_lexicon(entries, parts, folder):
    held_out = {line.split("\t", 1)[0] for name in ("valid", "test") for line in parts[name]}
    lexicon, ablation, counts = ding_lexicon(entries, held_out)
    for name, lines in (("lexicon", lexicon), ("lexicon-ablation", ablation)):
        with open(os.path.join(folder, name + ".tsv"), "w", encoding="utf-8") as f:
            f.writelines(lines)
    return counts


ATTRIBUTION = {
    "de-en": (
        "German-English example sentences from the Ding dictionary (dict.tu-chemnitz.de),\n"
        "(c) Frank Richter, distributed by Debian as package trans-de-en under the GNU GPL,\n"
        "version 2 or later (GPL-2 beside this file). Extracted by scripts/data/corpora.py:\n"
        "items of each entry that are whole sentences, annotations removed (train/valid/test.tsv);\n"
        "the entries' other items, tagged <lex> (lexicon.tsv, lexicon-ablation.tsv).\n"
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
    entries = ding_entries(a.ding)
    for name, pairs in (("de-en", ding_pairs(entries)),
                        ("es-en", bible_pairs(a.bible_src, a.bible_tgt))):
        folder = os.path.join(a.out, name)
        counts, parts = write(pairs, folder)
        if name == "de-en":
            counts.update(write_lexicon(entries, parts, folder))
            counts["dictionary_lines"] = len(entries)
            counts["lexicon_tag"] = LEX_TAG
            with open(os.path.join(folder, "counts.json"), "w", encoding="utf-8") as f:
                json.dump(counts, f, indent=1)
                f.write("\n")
        with open(os.path.join(folder, "ATTRIBUTION.txt"), "w", encoding="utf-8") as f:
            f.write(ATTRIBUTION[name])
        print(f"{name}: {counts}")


if __name__ == "__main__":
    main()
