"""Reporters: golden files per format, plus the properties each format promises.

Goldens live in tests/golden/; rewrite them with ``pytest tests/test_reports.py --update-goldens``
(also re-records tests/data/demo_dynamic_raw.json when torch is installed).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from compilelint.catalog import load_catalog
from compilelint.fingerprint import content_hash
from compilelint.model import Finding, Report
from compilelint.report import FORMATS, get_reporter
from compilelint.report.github_reporter import command, escape_data, escape_property
from compilelint.report.markdown_reporter import cell
from compilelint.report.sarif_reporter import FINGERPRINT_KEY, sarif_dict
from compilelint.vcs import Changes

from .report_cases import (
    DATA,
    DEMO_RAW,
    ROOT,
    check_golden,
    demo_dynamic,
    demo_static,
    handmade,
    many,
)

CATALOG = load_catalog()
GOLDEN_FORMATS = {
    "sarif": "sarif",
    "github": "github.txt",
    "markdown": "md",
    "table": "txt",
    "html": "html",
}
CASES = {"demo_static": demo_static, "demo_dynamic": demo_dynamic, "handmade": handmade}


def options(**extra: object) -> dict[str, object]:
    opts: dict[str, object] = {"cwd": str(ROOT), "srcroot": str(ROOT), "env": {}}
    opts.update(extra)
    return opts


def render(fmt: str, report: Report, **extra: object) -> str:
    return get_reporter(fmt)(report, CATALOG, options(**extra)).replace(str(ROOT), "<root>")


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("fmt", sorted(GOLDEN_FORMATS))
def test_golden(fmt: str, case: str, update_goldens: bool) -> None:
    text = render(fmt, CASES[case]())
    check_golden(f"{case}.{GOLDEN_FORMATS[fmt]}", text, update_goldens)


def test_every_format_has_a_reporter() -> None:
    for fmt in FORMATS:
        assert callable(get_reporter(fmt))
    with pytest.raises(KeyError):
        get_reporter("xml")


@pytest.mark.torch
def test_record_demo_dynamic_run(update_goldens: bool) -> None:
    """With --update-goldens and torch: re-record the demo's raw dynamic run for the goldens."""
    pytest.importorskip("torch")
    if not update_goldens:
        pytest.skip("pass --update-goldens to re-record")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "compilelint.dynamic.runner",
            "fixtures/demo/spec.json",
            "--root",
            str(ROOT),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    raw = json.loads(proc.stdout)
    assert raw["error"] is None, raw["error"]
    DEMO_RAW.write_text(json.dumps(raw, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- sarif


def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sarif_validates_against_the_official_schema(case: str) -> None:
    doc = json.loads(render("sarif", CASES[case]()))
    errors = sorted(_validator().iter_errors(doc), key=str)
    assert not errors, errors[0].message


def test_sarif_schema_check_can_fail() -> None:
    doc = json.loads(render("sarif", handmade()))
    bad = copy.deepcopy(doc)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    assert list(_validator().iter_errors(bad))
    bad = copy.deepcopy(doc)
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(_validator().iter_errors(bad))


def test_sarif_rules_come_from_the_catalogue() -> None:
    doc = sarif_dict(demo_dynamic(), CATALOG, options())
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == CATALOG.codes()
    cl101 = next(r for r in rules if r["id"] == "CL101")
    assert cl101["shortDescription"]["text"] == CATALOG.rules["CL101"].summary
    assert cl101["fullDescription"]["text"].startswith("Flags `if`, `elif`, `while`")
    assert "## Why is this bad?" in cl101["help"]["markdown"]
    assert cl101["defaultConfiguration"]["level"] == "error"
    assert cl101["helpUri"].endswith("/gb0170.html")
    assert "graph-break" in cl101["properties"]["tags"]
    assert cl101["properties"]["precision"] == "high"
    assert next(r for r in rules if r["id"] == "CL402")["defaultConfiguration"]["level"] == "note"
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {
            "uri": "fixtures/demo/transformer.py",
            "uriBaseId": "%SRCROOT%",
        }
        assert loc["region"]["snippet"]["text"].strip()
    first = run["results"][0]
    assert first["ruleId"] == "CL103" and first["properties"]["gb_id"] == "GB0124"
    assert first["properties"]["observed"] is True and first["properties"]["count"] == 3
    assert first["properties"]["hints"]
    assert run["properties"]["dynamic"]["graphs"] == 5
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"


def test_sarif_fingerprints_survive_edits_elsewhere() -> None:
    report = handmade()
    f = report.findings[0]
    moved = Finding(**{**f.__dict__, "line": f.line + 7, "end_line": f.end_line + 7})
    other_fn = Finding(**{**f.__dict__, "function": "Other.forward"})

    def fp(r: Report) -> list[str]:
        results = sarif_dict(r, CATALOG, options())["runs"][0]["results"]
        return [x["partialFingerprints"][FINGERPRINT_KEY] for x in results]

    base = fp(report)
    assert base[0] == f"{content_hash(f)}:1"
    assert fp(Report(**{**report.__dict__, "findings": (moved,)}))[0] == base[0]
    assert fp(Report(**{**report.__dict__, "findings": (other_fn,)}))[0] != base[0]
    # two identical lines in one function: distinct fingerprints by occurrence
    twice = fp(Report(**{**report.__dict__, "findings": (f, moved)}))
    assert twice == [f"{content_hash(f)}:1", f"{content_hash(f)}:2"]


def test_sarif_fixes_errors_and_paths() -> None:
    doc = sarif_dict(handmade(), CATALOG, options())
    run = doc["runs"][0]
    first = run["results"][0]
    change = first["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"] == {"uri": "src/we,ird:name.py", "uriBaseId": "%SRCROOT%"}
    rep = change["replacements"]
    assert rep[0] == {
        "deletedRegion": {"startLine": 12, "startColumn": 9, "endLine": 12, "endColumn": 30},
        "insertedContent": {"text": "torch.where(x.sum() > 0, a, b)"},
    }
    assert rep[1]["insertedContent"] == {"text": ""}
    assert "fixes" not in run["results"][1]
    # multi-line span: endColumn kept (its own line), a zero-width span has no endColumn
    assert run["results"][1]["locations"][0]["physicalLocation"]["region"]["endLine"] == 7
    assert "endColumn" not in run["results"][2]["locations"][0]["physicalLocation"]["region"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == [e.message for e in handmade().errors]
    assert run["invocations"][0]["executionSuccessful"] is True
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]


def test_sarif_uris_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    sub = tmp_path / "pkg"
    sub.mkdir()
    report = handmade()
    doc = sarif_dict(report, CATALOG, {"cwd": str(sub), "srcroot": str(tmp_path)})
    uri = doc["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "pkg/models/net.py", "uriBaseId": "%SRCROOT%"}
    outside = Finding(**{**report.findings[1].__dict__, "path": "/elsewhere/x.py"})
    doc = sarif_dict(
        Report(**{**report.__dict__, "findings": (outside,)}),
        CATALOG,
        {"cwd": str(sub), "srcroot": str(tmp_path)},
    )
    loc = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "file:///elsewhere/x.py"}


# --------------------------------------------------------------------------- github


def test_github_escaping() -> None:
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = command("error", "x: y, z", file="a,b:c.py", line=3, col=None, title="T: 1")
    assert line == "::error file=a%2Cb%3Ac.py,line=3,title=T%3A 1::x: y, z"


def test_github_annotations() -> None:
    out = render("github", handmade()).splitlines()
    assert (
        out[0]
        == "::error file=broken.py,title=compilelint error::cannot parse: unexpected <EOF> | at 3:1"
    )
    assert out[1].startswith("::error file=spec.json,title=compilelint dynamic::")
    first = out[2]
    assert first.startswith(
        "::error file=src/we%2Cird%3Aname.py,line=12,endLine=12,col=9,endColumn=30,"
        "title=CL101 tensor-dependent-branch::Branch on `x.sum() > 0` 100%25 <script>"
    )
    assert "%0D%0Asecond line" in first and "\n" not in first and "\r" not in first
    # a multi-line span: no columns
    assert out[3] == (
        "::warning file=models/net.py,line=5,endLine=7,title=CL003 observed-recompile::"
        "`forward` recompiled 2 time(s): guard `self.step == 3` failed (x2)%0A[warning, observed]"
        "%0Afix: Keep the counter in a tensor buffer"
    )
    assert out[4].startswith("::notice file=models/net.py,line=30,endLine=30,title=CL402")
    assert len(out) == 5  # nothing dropped: no final notice


def _group(pattern: str, line: str) -> str:
    """The first group of ``pattern``'s match in ``line`` (which must match)."""
    m = re.search(pattern, line)
    assert m is not None, line
    return m.group(1)


def _levels(lines: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ln in lines:
        level = ln[2:].split(" ", 1)[0].split("::", 1)[0]
        counts[level] = counts.get(level, 0) + 1
    return counts


def test_github_budget_keeps_top_ranked_and_says_how_many_are_left() -> None:
    report = many(25, 3, 15)
    out = render("github", report, env={"GITHUB_STEP_SUMMARY": "/tmp/x"}).splitlines()
    assert _levels(out) == {"error": 10, "warning": 3, "notice": 10}
    errors = [ln for ln in out if ln.startswith("::error")]
    assert [_group(r"::error (\d+)%0A", ln) for ln in errors] == [str(i) for i in range(10)]  # type: ignore[union-attr]
    notices = [ln for ln in out if ln.startswith("::notice")]
    assert all("file=m_info.py" in n for n in notices[:9])
    assert notices[-1] == (
        "::notice title=compilelint::21 more findings not annotated here (GitHub shows at most 10 "
        "annotations per level in a step); all 43 findings are in the step summary."
    )
    # no summary file: the note points at the full report instead
    out = render("github", report).splitlines()
    assert out[-1].endswith("are in the full report (`compilelint check` or --format markdown).")
    # the per-job budget (50) also holds
    out = render("github", many(40, 40, 40), annotation_limit=30).splitlines()
    assert len(out) == 50 and out[-1].startswith("::notice title=compilelint::")


def test_github_budget_prefers_changed_lines() -> None:
    report = many(20, 0, 0)
    changed = Changes(
        ref="main",
        merge_base="0" * 40,
        files={str(ROOT / "m_error.py"): frozenset({18, 19, 20})},
    )
    out = render("github", report, changes=changed).splitlines()
    errors = [ln for ln in out if ln.startswith("::error")]
    assert [int(_group(r"line=(\d+),", ln)) for ln in errors] == [
        18,
        19,
        20,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
    ]  # type: ignore[union-attr]
    assert out[-1].startswith("::notice title=compilelint::10 more findings")


# --------------------------------------------------------------------------- markdown


def test_markdown_cells_links_and_limits() -> None:
    assert cell("a|b\r\nc\nd") == "a\\|b<br>c<br>d"
    text = render("markdown", handmade())
    row = next(ln for ln in text.splitlines() if "CL101" in ln)
    assert row.count(" | ") + 2 == row.count("|") - row.count("\\|")  # 7 columns, no stray pipes
    assert "[src/we,ird:name.py:12](src/we%2Cird%3Aname.py#L12)" in row
    assert "second line" in row and "\n" not in row and "\\| a:b" in row
    assert "(autofix available)" in row and "✅ confirmed GB0170 ×3" in row
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_SHA": "abc123",
    }
    text = render("markdown", handmade(), env=env)
    assert "(https://github.com/o/r/blob/abc123/models/net.py#L5)" in text
    small = render("markdown", many(300, 0, 0), max_bytes=20_000)
    assert len(small.encode()) <= 20_000
    assert re.search(r"… and \d+ more findings \(lower ranked\) not shown", small)
    assert "| 1 " in small  # the top-ranked rows stay


# --------------------------------------------------------------------------- table


def test_table_is_plain_and_ranked() -> None:
    text = render("table", demo_dynamic())
    assert "\x1b[" not in text
    lines = text.splitlines()
    assert lines[0].split()[:8] == [
        "#",
        "location",
        "rule",
        "severity",
        "status",
        "torch",
        "count",
        "message",
    ]
    assert lines[2].split()[:7] == [
        "1",
        "fixtures/demo/transformer.py:40:16",
        "CL103",
        "error",
        "confirmed",
        "GB0124",
        "3",
    ]
    # the observed recompile at :41 (`peak` handed on at the branch's break) is one confirmed CL303
    assert lines[-1].startswith("Found 6 findings (2 errors, 3 warnings, 1 info)")
    assert "torch 2.13.0+cpu (cpu, eval mode): 5 graphs, 2 graph breaks, 5 recompiles" in text
    hm = render("table", handmade())
    assert "second line" in hm and "\r" not in hm  # one row per finding
    assert "error: broken.py: cannot parse" in hm
    assert render("table", many(0, 0, 0)).startswith("No findings in 3 files")


# --------------------------------------------------------------------------- html


def test_html_escapes_user_content() -> None:
    text = render("html", handmade())
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert text.count("<script>") == 1  # ours, at the end
    assert "<b>now</b>" not in text and "&lt;b&gt;now&lt;/b&gt;" in text
    assert "<i>where</i>" not in text


@pytest.mark.parametrize("case", sorted(CASES))
def test_html_is_self_contained(case: str) -> None:
    text = render("html", CASES[case]())
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert not re.search(r"""\b(?:src|href)\s*=\s*(?!["']?#)""", text), "an external reference"
    assert not re.search(r"url\(|@import|<link\b|<iframe\b|<img\b", text)


def test_html_shows_how_the_model_was_cut() -> None:
    text = render("html", demo_dynamic())
    cut = text[
        text.index('<section id="cut">') : text.index(
            "</section>", text.index('<section id="cut">')
        )
    ]
    assert [int(x) for x in re.findall(r'class="graph[^"]*" data-ops="(\d+)"', cut)] == [
        12,
        1,
        2,
        1,
        3,
    ]
    assert cut.count('class="cutmark"') == 3
    assert 'graph break at <a href="#f1">fixtures/demo/transformer.py:40</a> — GB0124' in cut
    assert 'style="width:88.0%"' in cut and 'style="width:7.3%"' in cut  # 12 ops and 1 op
    assert "recompiled" in cut
    # the static-only report has no picture
    assert '<section id="cut">' not in render("html", demo_static())


@pytest.mark.parametrize("case", [*sorted(CASES), "unicode", "awkward"])
def test_plain_text_is_what_rich_writes(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain text output is built without rich; it must be byte for byte what rich writes
    without colour, and text with tabs or control codes (which rich rewrites) goes through rich."""
    import dataclasses

    from compilelint.report import text_reporter

    if case == "unicode":  # nothing rich rewrites: the plain path
        base = handmade()
        f0 = base.findings[0]
        odd = [
            dataclasses.replace(f0, line=10, line_text="  z = '全角 ü ç' ", message="wide 全角 ✓"),
            dataclasses.replace(f0, line=11, line_text="", message="multi\nline  "),
            dataclasses.replace(f0, line=12, line_text=" " * 120 + "w", message="x" * 300),
        ]
        report = dataclasses.replace(base, findings=(*base.findings, *odd))
    elif case == "awkward":
        base = handmade()
        f0 = base.findings[0]
        odd = [
            dataclasses.replace(f0, line_text="\tif x.sum() > 0:\t# tab", message="a\tb"),
            dataclasses.replace(f0, line=9, line_text="  y = x\r", message="bell\a form\f vt\v"),
            dataclasses.replace(f0, line=10, line_text="  z = '全角 ü ç' ", message="wide 全角 ✓"),
            dataclasses.replace(f0, line=11, line_text="", message="multi\nline  "),
        ]
        report = dataclasses.replace(base, findings=(*base.findings, *odd))
    else:
        report = CASES[case]()
    plain = render("text", report)
    monkeypatch.setattr(text_reporter, "_REWRITTEN", frozenset(map(chr, range(0x110000))))
    assert plain == render("text", report)  # every line through rich
    colored = render("text", report, color=True)
    assert "\x1b[" in colored
    if case != "awkward":
        assert "\t" not in plain
        assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain
