"""Build the shipped captioner from the real Fashion IQ caption files.

    python -m studio.training.ship_captioner ../shared/fixtures/fashioniq [--out DIR]

Reads ``captions/cap.{dress,shirt,toptee}.*.json`` (candidate = reference), trains on the
pairs not held out, evaluates on the held-out tenth, and writes ``fashioniq.json`` and
``fashioniq.summary.json`` into ``resources/captioner/``. Deterministic: the same files
give the same captioner. Fashion IQ's captions are under the Community Data License
Agreement (CDLA), which lets them be shared with their notice (``resources/captioner/README.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.language.captioner import SHIPPED
from studio.training.captioner import PairCaptions, train_captioner


def fashioniq_pairs(folder: Path) -> list[PairCaptions]:
    pairs = []
    for path in sorted((folder / "captions").glob("cap.*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8")):
            if "target" not in entry:
                continue  # test files carry no target
            texts = tuple(" ".join(c.split()) for c in entry["captions"] if c.strip())
            category = path.name.split(".")[1]  # cap.<category>.<split>.json
            pairs.append(PairCaptions(entry["candidate"], entry["target"], texts, category))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fashioniq", type=Path, help="the Fashion IQ folder (with captions/)")
    parser.add_argument("--out", type=Path, default=SHIPPED.parent)
    args = parser.parse_args(argv)
    pairs = fashioniq_pairs(args.fashioniq)
    if not pairs:
        print(f"No Fashion IQ caption files under {args.fashioniq / 'captions'}.", file=sys.stderr)
        return 1
    model, summary = train_captioner(pairs)
    summary["source"] = sorted(p.name for p in (args.fashioniq / "captions").glob("cap.*.json"))
    model.save(args.out / "fashioniq.json")
    (args.out / "fashioniq.summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
