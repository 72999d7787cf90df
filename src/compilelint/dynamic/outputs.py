"""Outputs, gradients and initial weights of a dynamic run, saved for ``fix --verify`` and
compared between the original and the fixed model. Imported only by the runner (child
process): it uses torch."""

from __future__ import annotations

import contextlib
from typing import Any

FORMAT = 1


def snapshot(torch: Any, x: Any) -> Any:
    """A detached CPU copy of a (nested) output; non-tensor leaves kept if plain, else repr."""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().clone()
    if isinstance(x, (list, tuple)):
        return [snapshot(torch, v) for v in x]
    if isinstance(x, dict):
        return {str(k): snapshot(torch, v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, complex, str)):
        return x
    if hasattr(x, "to_tuple"):  # transformers ModelOutput
        with contextlib.suppress(Exception):
            return snapshot(torch, list(x.to_tuple()))
    if hasattr(x, "__dataclass_fields__"):
        with contextlib.suppress(Exception):
            return snapshot(torch, dict(vars(x)))
    return repr(type(x))


class Recorder:
    """Filled by the runner: initial weights, every call's outputs, final gradients."""

    def __init__(self) -> None:
        self.weights: dict[str, Any] = {}
        self.outputs: list[Any] = []
        self.grads: dict[str, Any] = {}
        # one more call of the uncompiled model after the compiled ones: a fix must also work
        # in eager (dynamo traces NumPy as tensors, say, where eager would not); a str when
        # that call raised
        self.eager: Any = None
        # eval-mode runs make no backward pass: the uncompiled call is repeated with gradients
        # on, and the parameters' gradients of a sum of its outputs are kept, so a fix that
        # computes the same values but other gradients (a where that cuts a path) is caught
        self.eager_grads: Any = None
        self.eager_grads_noise = 0.0
        # why the compiled calls stopped early (torch.compile itself failed: the call ran
        # uncompiled); None when every call ran compiled
        self.compile_failure: str | None = None

    def model_built(self, torch: Any, model: Any) -> None:
        # a lazy module's parameters (`nn.LazyLinear`) have no values until the first call:
        # they are left out, as the original (which builds that layer in forward) has none
        lazy = torch.nn.parameter.is_lazy
        self.weights = {
            k: v.detach().cpu().clone() for k, v in model.state_dict().items() if not lazy(v)
        }

    def called(self, torch: Any, out: Any) -> None:
        self.outputs.append(snapshot(torch, out))

    def finished(self, torch: Any, model: Any) -> None:
        self.grads = {
            n: p.grad.detach().cpu().clone()
            for n, p in model.named_parameters()
            if p.grad is not None
        }

    def eager_called(
        self, torch: Any, model: Any, args: Any, kwargs: Any, reseed: Any = None
    ) -> None:
        """One uncompiled call (and two for gradients); ``reseed`` (when given) runs before
        each, so that Python draws in forward are the same in every copy and run."""
        reseed = reseed or (lambda: None)
        try:
            reseed()
            with torch.no_grad():
                self.eager = snapshot(torch, model(*args, **kwargs))
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            self.eager = f"error: {type(exc).__name__}: {text}"
            return
        if self.grads:
            return  # a train-mode run: the compiled calls' gradients are compared already
        from compilelint.dynamic.runner import scalar_of

        try:
            runs = []
            for _ in range(2):  # twice: backward on a GPU is not deterministic (atomics)
                model.zero_grad(set_to_none=True)
                reseed()
                with torch.enable_grad():
                    loss = scalar_of(torch, model(*args, **kwargs))
                if loss is None:
                    return
                loss.backward()
                runs.append(
                    {
                        n: p.grad.detach().cpu().clone()
                        for n, p in model.named_parameters()
                        if p.grad is not None
                    }
                )
            model.zero_grad(set_to_none=True)
            self.eager_grads = runs[0]
            # how far two identical backward passes differ: the tolerance of the comparison
            self.eager_grads_noise = max(
                (
                    float((runs[0][n].double() - runs[1][n].double()).abs().max())
                    for n in runs[0]
                    if n in runs[1] and runs[0][n].numel()
                ),
                default=0.0,
            )
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            self.eager_grads = f"error: {type(exc).__name__}: {text}"

    def data(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "weights": self.weights,
            "outputs": self.outputs,
            "grads": self.grads,
            "eager": self.eager,
            "eager_grads": self.eager_grads,
            "eager_grads_noise": self.eager_grads_noise,
            "compile_failure": self.compile_failure,
        }


def save(torch: Any, path: str, rec: Recorder) -> None:
    torch.save(rec.data(), path)


def _leaves(x: Any, path: str, out: list[tuple[str, Any]]) -> None:
    if isinstance(x, list):
        out.append((path + "#len", len(x)))
        for i, v in enumerate(x):
            _leaves(v, f"{path}[{i}]", out)
    elif isinstance(x, dict):
        out.append((path + "#keys", sorted(x)))
        for k in sorted(x):
            _leaves(x[k], f"{path}[{k!r}]", out)
    else:
        out.append((path, x))


def _close(torch: Any, actual: Any, expected: Any) -> str:
    a: list[tuple[str, Any]] = []
    e: list[tuple[str, Any]] = []
    _leaves(actual, "", a)
    _leaves(expected, "", e)
    if [p for p, _ in a] != [p for p, _ in e]:
        return "differ: the outputs have another structure"
    try:
        for (path, x), (_, y) in zip(a, e):
            if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
                try:
                    torch.testing.assert_close(x, y, equal_nan=True)
                except AssertionError as exc:
                    raise AssertionError(f"at output{path}: {exc}") from None
            elif x != y and not (x != x and y != y):  # NaN == NaN here
                raise AssertionError(f"at output{path}: {x!r} != {y!r}")
    except AssertionError as exc:
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
        return "differ: " + "; ".join(lines[:3])
    except (TypeError, ValueError, RuntimeError) as exc:
        return f"differ: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return "match"


def compare(torch: Any, reference: str, rec: Recorder) -> dict[str, Any]:
    """Compare this run with a saved one (the original model on the same spec and seed)."""
    try:
        ref = torch.load(reference, weights_only=False)
    except Exception as exc:
        return {"ok": False, "error": f"cannot read the original's outputs: {exc}"}
    mine = rec.data()
    shared = sorted(set(ref["weights"]) & set(mine["weights"]))
    weights = _close(
        torch, [mine["weights"][k] for k in shared], [ref["weights"][k] for k in shared]
    )
    outputs = _calls(torch, mine, ref)
    if not ref["grads"] and not mine["grads"]:
        grads = "none"
    elif set(ref["grads"]) != set(mine["grads"]):
        grads = "differ: other parameters received gradients"
    else:
        names = sorted(ref["grads"])
        grads = _close(torch, [mine["grads"][n] for n in names], [ref["grads"][n] for n in names])
    eager = _eager(torch, mine.get("eager"), ref.get("eager"))
    noise = max(
        float(ref.get("eager_grads_noise") or 0.0), float(mine.get("eager_grads_noise") or 0.0)
    )
    eager_grads = _eager_grads(torch, mine.get("eager_grads"), ref.get("eager_grads"), noise)
    ok = (
        weights == "match"
        and outputs == "match"
        and grads in ("match", "none")
        and eager in ("match", "none")
        and eager_grads in ("match", "none")
    )
    return {
        "ok": ok,
        "weights": weights,
        "outputs": outputs,
        "grads": grads,
        "eager": eager,
        "eager_grads": eager_grads,
        "calls": len(mine["outputs"]),
    }


def _calls(torch: Any, mine: dict[str, Any], ref: dict[str, Any]) -> str:
    """The compiled calls' outputs, this run against the original's. A run whose compiled
    call raised (while the same call ran uncompiled) stopped there: that is said, never a bare
    count of calls; where the original stopped, the calls both made are compared (its
    uncompiled call is compared by ``_eager``)."""
    made, expected = len(mine["outputs"]), len(ref["outputs"])
    mine_fail, ref_fail = mine.get("compile_failure"), ref.get("compile_failure")
    if made < expected and mine_fail:
        return (
            f"differ: torch.compile fails on this model at call {made + 1} (it runs "
            f"uncompiled): {mine_fail}"
        )
    if made != expected and not (ref_fail and made > expected):
        return f"differ: {made} calls made, {expected} expected"
    return _close(torch, mine["outputs"][:expected], ref["outputs"])


def _eager(torch: Any, mine: Any, ref: Any) -> str:
    """The uncompiled call after the compiled ones, this run against the original's."""
    if mine is None or ref is None:
        return "none"  # not recorded (an older reference, or the run stopped early)
    if isinstance(mine, str) and mine.startswith("error: "):
        if isinstance(ref, str) and ref.startswith("error: "):
            return "match"
        return "differ: run eagerly, it raises " + mine.removeprefix("error: ")
    if isinstance(ref, str) and ref.startswith("error: "):
        return "differ: the original raises when run eagerly, this one does not"
    return _close(torch, mine, ref)


def _eager_grads(torch: Any, mine: Any, ref: Any, noise: float = 0.0) -> str:
    """The gradients of the uncompiled call (eval-mode runs), this run against the original's,
    within 4 times the difference of two identical backward passes (``noise``) beyond the
    usual tolerance."""
    if mine is None or ref is None:
        return "none"
    if isinstance(mine, str) or isinstance(ref, str):
        if isinstance(mine, str) and isinstance(ref, str):
            return "match"
        return f"differ: {mine if isinstance(mine, str) else ref}"
    if set(mine) != set(ref):
        return "differ: other parameters received gradients"
    names = sorted(ref)
    if noise > 0:
        for n in names:
            try:
                torch.testing.assert_close(mine[n], ref[n], atol=4 * noise + 1e-5, rtol=1.3e-6)
            except AssertionError as exc:
                lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
                return f"differ: at {n} (beyond the run-to-run noise {noise:.2g}): " + "; ".join(
                    lines[:3]
                )
        return "match"
    return _close(torch, [mine[n] for n in names], [ref[n] for n in names])
