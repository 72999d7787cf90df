"""The fix corpora stay well formed, and ``benchmarks/fix_corpus.py`` names spec forms and
break lines correctly (no torch needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from compilelint.dynamic.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "benchmarks" / "fix_corpus"
HELDOUT = ROOT / "benchmarks" / "fix_corpus_heldout"
HELDOUT2 = ROOT / "benchmarks" / "fix_corpus_heldout2"
HELDOUT3 = ROOT / "benchmarks" / "fix_corpus_heldout3"
HELDOUT4 = ROOT / "benchmarks" / "fix_corpus_heldout4"
HELDOUT5 = ROOT / "benchmarks" / "fix_corpus_heldout5"


def _bench():
    spec = importlib.util.spec_from_file_location("fix_corpus_bench", DEV.with_suffix(".py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_halves_are_disjoint_and_big_enough() -> None:
    dev = {p.stem for p in DEV.glob("*.py")}
    held = {p.stem for p in HELDOUT.glob("*.py")}
    assert not dev & held
    assert len(held) >= 18
    new = (ROOT / "benchmarks" / "fix_corpus_dev_new.txt").read_text().split()
    assert len(new) >= 18 and set(new) <= dev


def test_second_batch_is_split_by_its_rule() -> None:
    """Round 6's batch: sorted stems, even positions held out, odd ones in the dev folder."""
    dev = {p.stem for p in DEV.glob("*.py")}
    held = {p.stem for p in HELDOUT.glob("*.py")}
    held2 = {p.stem for p in HELDOUT2.glob("*.py")}
    new2 = (ROOT / "benchmarks" / "fix_corpus_dev_new2.txt").read_text().split()
    assert len(held2) == 15 and len(new2) == 15
    assert not held2 & (dev | held) and set(new2) <= dev
    batch = sorted(held2 | set(new2))
    assert set(batch[0::2]) == held2 and set(batch[1::2]) == set(new2)


def test_third_batch_is_split_by_its_rule() -> None:
    """The third batch: sorted stems, even positions held out, odd ones in the dev folder."""
    dev = {p.stem for p in DEV.glob("*.py")}
    held = {p.stem for p in HELDOUT.glob("*.py")}
    held2 = {p.stem for p in HELDOUT2.glob("*.py")}
    held3 = {p.stem for p in HELDOUT3.glob("*.py")}
    new3 = (ROOT / "benchmarks" / "fix_corpus_dev_new3.txt").read_text().split()
    assert len(held3) >= 17 and len(new3) in (len(held3), len(held3) - 1)
    assert not held3 & (dev | held | held2) and set(new3) <= dev
    new2 = (ROOT / "benchmarks" / "fix_corpus_dev_new2.txt").read_text().split()
    assert not set(new3) & set(new2)
    batch = sorted(held3 | set(new3))
    assert set(batch[0::2]) == held3 and set(batch[1::2]) == set(new3)


def test_fourth_batch_is_split_by_its_rule() -> None:
    """The fourth batch: sorted stems, even positions held out, odd ones in the dev folder."""
    dev = {p.stem for p in DEV.glob("*.py")}
    earlier = {p.stem for d in (HELDOUT, HELDOUT2, HELDOUT3) for p in d.glob("*.py")}
    held4 = {p.stem for p in HELDOUT4.glob("*.py")}
    new4 = (ROOT / "benchmarks" / "fix_corpus_dev_new4.txt").read_text().split()
    assert len(held4) == 22 and len(new4) == 22
    assert not held4 & (dev | earlier) and set(new4) <= dev
    older = {
        n
        for k in ("", "2", "3")
        for n in (ROOT / "benchmarks" / f"fix_corpus_dev_new{k}.txt").read_text().split()
    }
    assert not set(new4) & older
    batch = sorted(held4 | set(new4))
    assert set(batch[0::2]) == held4 and set(batch[1::2]) == set(new4)


def test_fifth_batch_is_split_by_its_rule() -> None:
    """The fifth batch: sorted stems, even positions held out, odd ones in the dev folder."""
    dev = {p.stem for p in DEV.glob("*.py")}
    earlier = {p.stem for d in (HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4) for p in d.glob("*.py")}
    held5 = {p.stem for p in HELDOUT5.glob("*.py")}
    new5 = (ROOT / "benchmarks" / "fix_corpus_dev_new5.txt").read_text().split()
    assert len(held5) == 25 and len(new5) == 25
    assert not held5 & (dev | earlier) and set(new5) <= dev
    older = {
        n
        for k in ("", "2", "3", "4")
        for n in (ROOT / "benchmarks" / f"fix_corpus_dev_new{k}.txt").read_text().split()
    }
    assert not set(new5) & older
    batch = sorted(held5 | set(new5))
    assert set(batch[0::2]) == held5 and set(batch[1::2]) == set(new5)


def test_every_model_has_a_valid_spec_naming_itself(tmp_path: Path) -> None:
    bench = _bench()
    for path in (
        sorted(DEV.glob("*.py"))
        + sorted(HELDOUT.glob("*.py"))
        + sorted(HELDOUT2.glob("*.py"))
        + sorted(HELDOUT3.glob("*.py"))
        + sorted(HELDOUT4.glob("*.py"))
        + sorted(HELDOUT5.glob("*.py"))
    ):
        spec = bench.spec_of(path)
        assert spec["model"].split(":")[0] == path.name, path
        f = tmp_path / "spec.json"
        f.write_text(json.dumps(spec))
        load_spec(str(f))  # raises SpecError on a bad spec


def test_spec_forms(tmp_path: Path) -> None:
    bench = _bench()
    path = HELDOUT / "beam_hyp_sort.py"
    rel = bench.spec_in(tmp_path, path, "relative")
    ab = bench.spec_in(tmp_path, path, "absolute")
    assert rel["model"] == "beam_hyp_sort.py:BeamRescorer"
    assert ab["model"] == f"{tmp_path / 'beam_hyp_sort.py'}:BeamRescorer"
    assert Path(ab["model"].rpartition(":")[0]).is_absolute()


def test_named_matches_whole_line_numbers() -> None:
    bench = _bench()
    out = "m.py:17:5: CL103 no automatic fix\nfix  m.py:170  CL101"
    assert bench.named(out, "m.py", 17)
    assert bench.named(out, "m.py", 170)
    assert not bench.named(out, "m.py", 1)
    assert not bench.named(out, "m.py", None)
    assert not bench.named(out, "other.py", 17)
    assert not bench.named("lm.py:46: CL101", "m.py", 46)
    assert bench.named("/tmp/x/m.py:46", "m.py", 46)
