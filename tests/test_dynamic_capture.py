"""Parsing torch's break and recompile text into records (pure; no torch needed)."""

from __future__ import annotations

from compilelint.dynamic.capture import (
    attribute,
    dedupe_breaks,
    group_recompiles,
    parse_break_message,
    parse_graph_breaks_log,
    split_recompile_payload,
    strip_resume,
)
from compilelint.dynamic.registry import legacy_gb_type, parse_registry
from compilelint.model import Frame

REG = parse_registry(
    {
        "GB0170": [
            {
                "Gb_type": "Data-dependent branching",
                "Explanation": "Detected data-dependent branching",
                "Hints": ["Use `torch.cond`."],
            },
            {"Gb_type": "Old data-dependent name"},
        ],
        "GB0059": [{"Gb_type": "Failed to trace builtin operator", "Explanation": "", "Hints": []}],
        "GB7000": [{"Gb_type": "graph break in loop", "Explanation": "", "Hints": []}],
    }
)
ROOT = "/proj"
PRINT_MSG = """Graph break in user code at /proj/m.py:11
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print`
  Hint: Avoid calling builtin `print`.
  Hint: Please report an issue to PyTorch.

  Developer debug context: builtin print

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "/proj/run.py", line 23, in <module>
    f(x)
  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/proj/m.py", line 11, in torch_dynamo_resume_in_forward_at_9
    print("hi")

Traceback (most recent call last):
  File "/usr/lib/python3.11/site-packages/torch/_dynamo/symbolic_convert.py", line 1076, in wrapper
"""


def test_parse_break_message_reads_type_id_hints_and_user_frame() -> None:
    p = parse_break_message(PRINT_MSG, REG)
    assert p.gb_type == "Failed to trace builtin operator"
    assert p.gb_id == "GB0059"
    assert p.hints == ("Avoid calling builtin `print`.", "Please report an issue to PyTorch.")
    assert (p.loc_path, p.loc_line) == ("/proj/m.py", 11)
    assert p.stack[-1] == Frame("/proj/m.py", 11, "forward")  # resume name stripped
    assert all("symbolic_convert" not in f.path for f in p.stack)


def test_repeated_hints_are_kept_once() -> None:
    msg = PRINT_MSG.replace(
        "  Hint: Please report an issue to PyTorch.\n",
        "  Hint: Please report an issue to PyTorch.\n  Hint: Avoid calling builtin `print`.\n",
    )
    assert msg != PRINT_MSG
    p = parse_break_message(msg, REG)
    assert p.hints == ("Avoid calling builtin `print`.", "Please report an issue to PyTorch.")


def test_historical_gb_type_maps_to_its_id_and_legacy_fallback() -> None:
    assert REG.id_for("old data-dependent name") == "GB0170"
    p = parse_break_message("generic_jump TensorVariable()", REG)
    assert p.gb_type == "Data-dependent branching" and p.gb_id == "GB0170"
    assert legacy_gb_type("call_method TensorVariable() item () {}") is not None


def test_secondary_loop_break_marks_frame_skipped() -> None:
    msg = (
        "Graph break in user code at /proj/m.py:13\nGraph Break Reason: Failed to handle graph break "
        "gracefully. Skipping the function and falling back to eager. Graph break encountered:\n\n"
        "Data-dependent branching\n  Explanation: x\n\n gb0170.html\n\n"
        "*** While handling this graph break, another graph break occurred: ***\n\ngraph break in loop\n"
        "  Explanation: y\n gb7000.html\n\nUser code traceback:\n"
        '  File "/proj/m.py", line 13, in forward\n'
    )
    [b] = dedupe_breaks([parse_break_message(msg, REG)], ROOT)
    assert b.gb_type == "Data-dependent branching" and b.in_loop and b.frame_skipped


def test_dedupe_counts_occurrences() -> None:
    p = parse_break_message(PRINT_MSG, REG)
    [b] = dedupe_breaks([p, p, p], ROOT)
    assert b.count == 3 and b.path == "/proj/m.py" and b.line == 11


def test_third_party_break_names_package_and_user_call_site() -> None:
    stack = (
        Frame("/proj/model.py", 40, "forward"),
        Frame("/venv/lib/python3.11/site-packages/transformers/models/llama.py", 300, "attn"),
        Frame("/venv/lib/python3.11/site-packages/torch/nn/functional.py", 12, "softmax"),
    )
    att = attribute(stack, ROOT)
    assert att.user == Frame("/proj/model.py", 40, "forward")
    assert att.package == "transformers"
    assert att.frames[-1].path.endswith("llama.py")


def test_recompile_payload_plain_or_json_list() -> None:
    assert split_recompile_payload("0/0: n == 2") == ["0/0: n == 2"]
    assert split_recompile_payload('[\n"1/1: a", "1/0: b"\n]') == ["1/1: a", "1/0: b"]


def test_group_recompiles_location_hint_and_limit() -> None:
    reason = (
        "0/{i}: self.step == {i}    # self.step += 1  # ork/m.py:12 in forward (HINT: torch.compile "
        "considers integer attributes of the nn.Module to be static.)\nUser stack trace:\n"
        '  File "/proj/m.py", line 12, in forward\n    self.step += 1'
    )
    events = [
        {
            "reasons": reason.format(i=i),
            "function": {"name": "forward", "path": "/proj/m.py", "line": 11},
        }
        for i in range(8)
    ]
    hit = {
        "message": "torch._dynamo hit config.recompile_limit (8)\n   function: 'forward' (/proj/m.py:11)"
    }
    [r] = group_recompiles(events, [hit], ROOT)
    assert (r.path, r.line, r.count, r.hit_limit) == ("/proj/m.py", 12, 8, True)
    assert r.guard == "self.step == 0"
    assert r.hint and "integer attributes" in r.hint


def test_a_guard_without_a_user_stack_takes_the_line_its_comment_names() -> None:
    # torch 2.13: a float specialised again inside F.dropout once it is symbolic; the newest
    # reason has no user stack, its comment names the user's line (the path shortened)
    newest = (
        "0/1: attn_drop == 0.15  # attn = F.dropout(attn.softmax(-1), p=attn_drop)  "
        "# mp/adp/m.py:20 in forward (nn/functional.py:1491 in dropout)"
    )
    older = (
        "0/0: attn_drop == 0.1    # attn = F.dropout(attn.softmax(-1), p=attn_drop)  "
        '# mp/adp/m.py:20 in forward\nUser stack trace:\n  File "/tmp/adp/m.py", line 20, '
        "in forward\n    attn = F.dropout(attn.softmax(-1), p=attn_drop)"
    )
    fn = {"name": "forward", "path": "/tmp/adp/m.py", "line": 16}
    [r] = group_recompiles([{"reasons": [newest, older], "function": fn}], [], "/tmp/adp")
    assert (r.path, r.line, r.guard) == ("/tmp/adp/m.py", 20, "attn_drop == 0.15")
    # the comment names another file (a shortened tail the function's file does not end
    # with): the function's own line, as before
    other = {**fn, "path": "/tmp/adp/other.py"}
    [r] = group_recompiles([{"reasons": [newest], "function": other}], [], "/tmp/adp")
    assert (r.path, r.line) == ("/tmp/adp/other.py", 16)
    # an input guard installed at the frame's entry names the first line of code, with no
    # library frames: the def line (torch 2.13, one tensor passed as two arguments)
    alias = "1/0: x is x0    # return x0 * self.w(x) + x  # adp/m.py:10 in forward"
    fn9 = {"name": "forward", "path": "/tmp/adp/m.py", "line": 9}
    [r] = group_recompiles([{"reasons": [alias], "function": fn9}], [], "/tmp/adp")
    assert (r.path, r.line) == ("/tmp/adp/m.py", 9)


def test_torch_logs_parser_keeps_only_graph_break_records() -> None:
    pre = "V1122 08:53:21.036000 8357 site-packages/torch/_dynamo/symbolic_convert.py:5124] [0/0] [__graph_breaks] "
    warn = "W1122 08:53:21.029000 8357 site-packages/torch/_dynamo/variables/tensor.py:1759] [0/0] "
    text = (
        warn
        + "Graph break: from user code at:\n"
        + "\n".join(pre + ln for ln in PRINT_MSG.splitlines())
    )
    text += (
        "\n"
        + pre
        + "Graph break (user stack suppressed due to duplicate graph break) in user code at /proj/m.py:11\n"
    )
    text += (
        pre
        + "Graph Break Reason: Encountered graph break\n"
        + pre
        + "\n"
        + pre
        + "Failed to trace builtin operator\n"
    )
    got = {(b.gb_type, b.loc_path, b.loc_line) for b in parse_graph_breaks_log(text, REG)}
    assert got == {("Failed to trace builtin operator", "/proj/m.py", 11)}


def test_strip_resume() -> None:
    assert strip_resume("torch_dynamo_resume_in_forward_at_11") == "forward"
    assert strip_resume("forward") == "forward"


def test_a_data_dependent_guard_break_is_named_not_its_docs_link() -> None:
    msg = (
        "Graph break in user code at /w/m.py:28\n"
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function "
        "call, e.g. f(x, y):\n\n"
        "Could not guard on data-dependent expression u0 > 0 (unhinted: u0 > 0).  "
        "(Size-like symbols: none)\n\n"
        "For more information about this error, see: "
        "https://pytorch.org/docs/main/generated/exportdb/index.html#constrain-as-size-example\n"
    )
    p = parse_break_message(msg, REG)
    assert p.gb_type == "Could not guard on data-dependent expression"
    assert "u0 > 0" in p.explanation


def test_a_library_installed_outside_site_packages_is_third_party(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`pip install --target /tmp/site` plus PYTHONPATH (how the GPU machine gets kornia,
    nflows, zuko): a break inside such a library names the package, as one in site-packages
    does, so fix can route the user's call around it."""
    from compilelint.dynamic import capture

    site = tmp_path / "site"
    (site / "nflows" / "flows").mkdir(parents=True)
    root = tmp_path / "project"
    root.mkdir()
    lib_file = str(site / "nflows" / "flows" / "base.py")
    user_file = str(root / "model.py")
    monkeypatch.setattr(capture, "_library_dirs", lambda: (str(site), str(tmp_path)))
    assert capture.frame_kind(lib_file, str(root)) == "third-party"
    assert capture.package_of(lib_file, str(root)) == "nflows"
    assert capture.frame_kind(user_file, str(root)) == "user"
    # a folder on sys.path that holds the project (its parent) does not make a library
    assert capture.frame_kind(str(tmp_path / "other" / "x.py"), str(root)) == "other"
    stack = [Frame(user_file, 3, "forward"), Frame(lib_file, 40, "log_prob")]
    att = attribute(stack, str(root))
    assert att.package == "nflows"
    assert att.user is not None and att.user.line == 3
