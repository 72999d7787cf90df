"""The verifier's search over sets of fixes, with the dynamic runs stubbed out."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from compilelint.fix import verify
from compilelint.fix.records import FixCheck, FixRecord


def _rec(key: str) -> FixRecord:
    return FixRecord(
        rule="CL101",
        path="m.py",
        line=1,
        col=0,
        message="",
        safety="unsafe",
        status="applied",
        key=key,
    )


def _check(key: str, accepted: bool) -> FixCheck:
    return FixCheck(
        rule="CL101",
        path="m.py",
        line=1,
        title=key,
        breaks_before=1,
        breaks_after=0 if accepted else 1,
        recompiles_before=0,
        recompiles_after=0,
        new_breaks=(),
        outputs="match",
        accepted=accepted,
        reason="",
    )


def test_a_fix_that_does_not_apply_alone_is_rejected_not_a_crash() -> None:
    """Together the two fixes fail; alone, fix "b" is not applied at all (no check for it):
    the search rejects it with a reason instead of raising KeyError."""
    a, b = ("m.py", "a"), ("m.py", "b")
    full: Any = SimpleNamespace(records=[_rec("a"), _rec("b")])

    def attempt(keys: frozenset[Any], engine: Any) -> Any:
        v.runs += 1
        checks = {k: _check(k[1], True) for k in keys if k == a}
        failure = "the fixed model fails: forward: boom" if len(keys) > 1 else None
        return verify._Attempt(
            keys=keys,
            engine=SimpleNamespace(),  # type: ignore[arg-type]
            result=SimpleNamespace(block={}),  # type: ignore[arg-type]
            checks=checks,
            failure=failure,
        )

    v: Any = verify.Verifier.__new__(verify.Verifier)
    v.runs = 0
    v.passes = 1
    v.before = SimpleNamespace(block={})
    v._attempt = attempt
    engine, ver = v._search(full, frozenset({a, b}))
    by_title = {c.title: c for c in ver.checks}
    assert by_title["a"].accepted
    assert not any(c.accepted for c in ver.checks if c.title != "a")
    rejected = [c for c in ver.checks if not c.accepted]
    assert rejected and "not applied when tried without the other fixes" in rejected[0].reason


def test_a_fix_not_applied_alone_carries_the_codemods_reason() -> None:
    """Alone, the codemod declined "b" (it shares a value with "a"): that reason is shown."""
    import dataclasses

    a, b = ("m.py", "a"), ("m.py", "b")
    full: Any = SimpleNamespace(records=[_rec("a"), _rec("b")])
    declined = dataclasses.replace(_rec("b"), status="no-fix", reason="`n` is read by `print(n)`")

    def attempt(keys: frozenset[Any], engine: Any) -> Any:
        v.runs += 1
        return verify._Attempt(
            keys=keys,
            engine=SimpleNamespace(records=[declined] if keys == {b} else []),  # type: ignore[arg-type]
            result=SimpleNamespace(block={}),  # type: ignore[arg-type]
            checks={k: _check(k[1], False) for k in keys if k == a},
            failure=None if keys == {b} else "torch.compile fails on the fixed model",
        )

    v: Any = verify.Verifier.__new__(verify.Verifier)
    v.runs = 0
    v.passes = 1
    v.before = SimpleNamespace(block={})
    v._attempt = attempt
    _, ver = v._search(full, frozenset({a, b}))
    (rej_b,) = [c for c in ver.checks if c.title != "a"]
    assert rej_b.reason == (
        "not applied when tried without the other fixes (no-fix: `n` is read by `print(n)`)"
    )
