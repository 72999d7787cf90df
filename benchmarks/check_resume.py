"""The editor server's resumed walk (``static/analysis/resume.py``) against a fresh one, on real
files: random edits of transformers modeling files, each analysed with the server's
``IncrementalParser`` (which keeps the walk's state before the first changed top-level
statement and resumes from it) and without, the two facts compared as plain data
(candidates, call sites, positions, everything ``FileFacts`` holds).

    python benchmarks/check_resume.py [--seed 7] [--files 12] [--edits 8]

Edits move down the file three times in four (the walk then resumes) and land anywhere
otherwise; each inserts ``x = torch.zeros(1).item()`` or ``print(1)`` at a line's
indentation, or deletes a line (an edit that does not compile is skipped). Prints how many
edits were compared, how many differed (must be 0) and how many walks resumed; exit 1 on a
difference.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--files", type=int, default=12)
    ap.add_argument("--edits", type=int, default=8)
    args = ap.parse_args()
    from compilelint.serialize import to_data
    from compilelint.static.engine import FileInput, _checks_for, all_checks, analyze_source
    from compilelint.static.incremental import IncrementalParser

    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("check_resume: needs transformers installed")
    files = sorted((Path(spec.origin).parent / "models").glob("*/modeling_*.py"))
    rnd = random.Random(args.seed)
    files = rnd.sample(files, min(args.files, len(files)))
    checks = _checks_for(sorted(all_checks()))
    compared = different = resumed = tails = 0
    for path in files:
        inp = FileInput(str(path), str(path), "m", False)
        parser = IncrementalParser()
        lines = path.read_text(encoding="utf-8").split("\n")
        analyze_source("\n".join(lines).encode(), inp, checks, force=True, parse=parser)
        k = 0
        for _ in range(args.edits):
            if len(lines) < 2:
                break
            k = min(k, len(lines) - 1)
            k = rnd.randrange(k, len(lines)) if rnd.random() < 0.75 else rnd.randrange(len(lines))
            new = list(lines)
            indent = " " * (len(new[k]) - len(new[k].lstrip())) if new[k].strip() else ""
            r = rnd.random()
            if r < 0.4:
                new.insert(k, indent + "x = torch.zeros(1).item()")
            elif r < 0.6:
                del new[k]
            else:
                new.insert(k, indent + "print(1)")
            text = "\n".join(new)
            try:
                compile(text, str(path), "exec")
            except SyntaxError:
                continue
            data = text.encode("utf-8")
            got = to_data(analyze_source(data, inp, checks, force=True, parse=parser))
            fresh = to_data(analyze_source(data, inp, checks, force=True))
            compared += 1
            if got != fresh:
                different += 1
                print(f"different: {path.name}, edit at line {k + 1}", flush=True)
            lines = new
        resumed += parser.walk_memo(inp).resumed
        tails += parser.walk_memo(inp).tails
    print(
        f"{compared} edits compared, {different} different, {resumed} walks resumed, "
        f"{tails} tails taken from the previous walk"
    )
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
