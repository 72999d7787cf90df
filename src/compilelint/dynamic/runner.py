"""Child process of the dynamic stage: the only module that imports torch.

    python -m compilelint.dynamic.runner spec.json [--out result.json] [--root DIR]

Builds the user's model from the spec, compiles it once with a collecting eager backend (graph
and op counts, no Inductor time), calls it with the inputs and then every variant, and records
torch's own graph-break and recompile records from the structured trace (``torch.__trace``).
The result is *raw* data (messages as torch wrote them); :mod:`compilelint.dynamic.capture`
parses it in the parent. Errors are data too: ``{"error": {"step", "type", "message", ...}}``.
Anything the user's code prints goes to stderr, never into the result.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.util
import json
import logging
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from compilelint.dynamic.capture import attribute, frame_json, parse_frames, user_function_name
from compilelint.dynamic.spec import Spec, SpecError, load_spec
from compilelint.model import Frame

INSTALL_HINT = "torch is not installed: pip install 'compilelint[torch]' (or pip install torch)"


def import_error_record(exc: ImportError) -> dict[str, Any]:
    """The error record of a run whose ``import torch`` failed (the dynamic stage and bench)."""
    return {
        "step": "import torch",
        "type": "ImportError",
        "message": INSTALL_HINT,
        "detail": str(exc),
        "frame": None,
        "frames": [],
    }


PROGRESS_PREFIX = "compilelint: "
RESULT_VERSION = 1


class StepError(Exception):
    def __init__(self, step: str, exc: BaseException) -> None:
        super().__init__(step)
        self.step = step
        self.exc = exc


def progress(msg: str) -> None:
    if os.environ.get("COMPILELINT_PROGRESS"):
        print(PROGRESS_PREFIX + msg, file=sys.stderr, flush=True)


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    try:
        yield
    except StepError:
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise StepError(name, exc) from exc


def error_record(step_name: str, exc: BaseException, root: str) -> dict[str, Any]:
    tb = traceback.extract_tb(exc.__traceback__)
    stack = tuple(Frame(f.filename, f.lineno or 0, f.name) for f in tb)
    att = attribute(stack, root)
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    last = text.splitlines()[0].strip() if text else type(exc).__name__
    if att.user is None and "from user code:" in text:
        att = attribute(parse_frames(text.split("from user code:", 1)[1].splitlines()), root)
    if isinstance(exc, SystemExit):
        last = f"SystemExit: the model called sys.exit({exc.code!r})"
    else:
        # torch wraps the user's error ("TorchRuntimeError: RuntimeError when making fake tensor
        # call"); the cause says what was wrong.
        if type(exc).__module__.startswith("torch"):
            why = ""
            for ln in text.splitlines():
                if ln.strip().startswith("Explanation:"):
                    expl = ln.strip().removeprefix("Explanation:").strip()
                    why = expl.split("): got ", 1)[1] if "): got " in expl else expl
                    break
            cause = exc.__cause__
            if not why and cause is not None:
                why = "".join(traceback.format_exception_only(type(cause), cause)).strip()
                why = why.splitlines()[0].strip() if why else ""
            if why and why not in last:
                last = f"{last}: {why}"
    frame = frame_json(att.user) if att.user else None
    if frame:
        frame["function"] = user_function_name(str(frame.get("function", "")))
    return {
        "step": step_name,
        "type": type(exc).__name__,
        "message": last,
        "frame": frame,
        "frames": [frame_json(f) for f in att.frames],
    }


# --------------------------------------------------------------------------- collectors


class TraceCollector(logging.Handler):
    """Keeps the structured-trace artifacts the dynamic stage needs."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.breaks: list[dict[str, Any]] = []
        self.recompiles: list[dict[str, Any]] = []
        self.metrics: list[dict[str, Any]] = []
        self.phase = "inputs"

    def emit(self, record: logging.LogRecord) -> None:
        try:
            md = getattr(record, "metadata", None)
            if not isinstance(md, dict):
                return
            art = md.get("artifact")
            if isinstance(art, dict):
                name = art.get("name")
                if name == "dynamo_graph_break_reason":
                    self.breaks.append(
                        {
                            "message": str(getattr(record, "payload", "") or ""),
                            "frame_id": md.get("frame_id"),
                            "frame_compile_id": md.get("frame_compile_id"),
                            "phase": self.phase,
                        }
                    )
                elif name == "recompile_reasons":
                    self.recompiles.append(
                        {
                            "payload": getattr(record, "payload", None),
                            "frame_id": md.get("frame_id"),
                            "frame_compile_id": md.get("frame_compile_id"),
                            "phase": self.phase,
                        }
                    )
            elif "compilation_metrics" in md:
                m = md["compilation_metrics"]
                if isinstance(m, dict):
                    self.metrics.append(
                        {
                            "frame_id": md.get("frame_id"),
                            "co_name": m.get("co_name"),
                            "co_filename": m.get("co_filename"),
                            "co_firstlineno": m.get("co_firstlineno"),
                            "fail_type": m.get("fail_type"),
                            "fail_reason": m.get("fail_reason"),
                            "graph_op_count": m.get("graph_op_count"),
                        }
                    )
        except Exception:
            pass


class WarningCollector(logging.Handler):
    """torch._dynamo warnings: the recompile-limit hit ("torch._dynamo hit config....")."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.limit_hits: list[dict[str, Any]] = []
        self.phase = "inputs"
        self.call = 0  # calls of the compiled model so far (1: the first call)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = record.getMessage()
        except Exception:
            return
        if "hit config." in msg:
            self.limit_hits.append({"message": msg, "phase": self.phase, "call": self.call})


def _torch_dirs() -> tuple[str, ...]:
    import torch

    return (os.path.dirname(os.path.realpath(torch.__file__)) + os.sep,)


_TORCH_DIRS: tuple[str, ...] = ()


class GraphCollector:
    """The compile backend: counts graphs and ops, records traced lines, runs eagerly."""

    def __init__(self, root: str) -> None:
        global _TORCH_DIRS
        if not _TORCH_DIRS:
            with contextlib.suppress(Exception):
                _TORCH_DIRS = _torch_dirs()
        self.root = os.path.realpath(root)
        self.graphs: list[dict[str, Any]] = []
        self.lines: dict[str, set[int]] = {}
        self.phase = "inputs"
        self.call = 0

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        ops = 0
        spans: dict[tuple[str, str], list[int]] = {}  # outermost user (file, function) -> lines
        for node in gm.graph.nodes:
            if node.op == "call_function":
                ops += 1
            st = node.meta.get("stack_trace") if hasattr(node, "meta") else None
            if st:
                outer = self._note_lines(st)
                if outer is not None and node.op == "call_function":
                    spans.setdefault((outer[0], outer[2]), []).append(outer[1])
        graph: dict[str, Any] = {"phase": self.phase, "call": self.call, "ops": ops}
        # Which frame compile produced this graph (matches the break records' ids), and the user
        # code it covers: the compiled frame's (file, function) holding most of its ops (the
        # outermost user frame of their stacks), first and last line.
        with contextlib.suppress(Exception):
            from torch._guards import CompileContext

            cid = CompileContext.current_compile_id()
            if cid is not None:
                graph["frame_id"] = cid.frame_id
                graph["frame_compile_id"] = cid.frame_compile_id
        if spans:
            (path, function), lines = max(spans.items(), key=lambda kv: len(kv[1]))
            graph.update(path=path, function=function, first_line=min(lines), last_line=max(lines))
        self.graphs.append(graph)
        return gm.forward

    def _note_lines(self, stack_trace: str) -> tuple[str, int, str] | None:
        """Record the user lines of a node's stack; return its outermost (file, line, function)."""
        outer: tuple[str, int, str] | None = None
        for ln in stack_trace.splitlines():
            ln = ln.strip()
            if not ln.startswith('File "'):
                continue
            path, _, rest = ln[6:].partition('", line ')
            num, _, fn = rest.partition(", in ")
            if not num.isdigit():
                continue
            if path.startswith(self.root):
                self.lines.setdefault(path, set()).add(int(num))
                if outer is None:
                    outer = (path, int(num), fn.strip())
            elif not path.startswith(_TORCH_DIRS) and not path.startswith("<"):
                # a scanned file outside the project (an installed package's model file, a
                # library the model calls): its traced lines tell "torch traced it" apart from
                # "torch ran it eagerly"
                self.lines.setdefault(path, set()).add(int(num))
        return outer


# --------------------------------------------------------------------------- model + inputs


def resolve_model_file(target: str, root: str, spec_dir: str) -> str | None:
    if not (target.endswith(".py") or "/" in target or os.sep in target):
        return None
    for base in (root, spec_dir):
        cand = target if os.path.isabs(target) else os.path.join(base, target)
        if os.path.isfile(cand):
            return os.path.abspath(cand)
    raise FileNotFoundError(f"model file not found: {target} (looked in {root} and {spec_dir})")


def import_target(model: str, root: str, spec_dir: str) -> Any:
    target, name = model.rsplit(":", 1)
    path = resolve_model_file(target, root, spec_dir)
    if root not in sys.path:
        sys.path.insert(0, root)
    if path is not None:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        modname = os.path.splitext(os.path.basename(path))[0]
        if not modname.isidentifier() or modname in sys.modules:
            modname = f"compilelint_user_{abs(hash(path))}"
        spec = importlib.util.spec_from_file_location(modname, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    try:
        return functools.reduce(getattr, name.split("."), module)
    except AttributeError:
        raise AttributeError(f"{target} has no attribute {name!r}") from None


def pick_device(torch: Any, device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def make_value(torch: Any, v: Any, device: str) -> Any:
    if isinstance(v, list):
        return [make_value(torch, x, device) for x in v]
    if not isinstance(v, dict):
        return v
    if "tuple" in v:
        return tuple(make_value(torch, x, device) for x in v["tuple"])
    if "dict" in v:
        return {k: make_value(torch, x, device) for k, x in v["dict"].items()}
    shape = tuple(v["tensor"])
    dtype = getattr(torch, v.get("dtype", "float32"))
    dev = pick_device(torch, v.get("device", device))
    init = v.get("init", "randn")
    low, high = v.get("low"), v.get("high")
    if "data" in v:
        t = torch.tensor(v["data"], dtype=dtype, device=dev).reshape(shape)
    elif init == "randint":
        t = torch.randint(int(low or 0), int(high or 2), shape, dtype=dtype, device=dev)
    elif init == "uniform":
        lo = 0.0 if low is None else float(low)
        hi = 1.0 if high is None else float(high)
        t = torch.empty(shape, dtype=dtype, device=dev).uniform_(lo, hi)
    elif init == "rand":
        t = torch.rand(shape, device=dev).to(dtype)
    elif init == "zeros":
        t = torch.zeros(shape, dtype=dtype, device=dev)
    elif init == "ones":
        t = torch.ones(shape, dtype=dtype, device=dev)
    elif init == "full":
        t = torch.full(shape, v.get("value", 0), dtype=dtype, device=dev)
    elif init == "arange":
        n = 1
        for d in shape:
            n *= d
        t = torch.arange(n, device=dev).reshape(shape).to(dtype)
    elif init == "bernoulli" or dtype == torch.bool:
        t = torch.rand(shape, device=dev) < float(v.get("p", 0.5))
        t = t.to(dtype)
    else:
        t = torch.randn(shape, device=dev).to(dtype)
    if v.get("requires_grad"):
        t.requires_grad_(True)
    return t


def build_model(torch: Any, obj: Any, spec: Spec, device: str) -> tuple[Any, Any]:
    """(module, default inputs from a factory or None)."""
    nn = torch.nn
    args = [make_value(torch, a, device) for a in spec.init_args]
    kwargs = {k: make_value(torch, a, device) for k, a in spec.init_kwargs.items()}
    if isinstance(obj, nn.Module):
        return obj, None
    if not callable(obj):
        raise TypeError(f"{spec.model} is a {type(obj).__name__}, not a module or factory")
    out = obj(*args, **kwargs)
    if isinstance(out, nn.Module):
        return out, None
    if isinstance(out, (tuple, list)) and len(out) == 2 and isinstance(out[0], nn.Module):
        return out[0], out[1]
    raise TypeError(
        f"{spec.model} returned {type(out).__name__}; expected an nn.Module or (module, inputs)"
    )


def split_inputs(default: Any) -> tuple[list[Any], dict[str, Any]]:
    if default is None:
        return [], {}
    if isinstance(default, dict):
        return [], dict(default)
    if isinstance(default, (tuple, list)):
        if (
            len(default) == 2
            and isinstance(default[0], (tuple, list))
            and isinstance(default[1], dict)
        ):
            return list(default[0]), dict(default[1])
        return list(default), {}
    return [default], {}


def move_value(torch: Any, v: Any, device: str, dtype: Any, moved: list[str]) -> Any:
    """``v`` with every tensor in it (nested tuples, lists, dicts) on ``device``, and floating
    tensors in ``dtype`` when one is given; ``moved`` gets ``"cpu -> cuda:0"``-style notes."""
    if isinstance(v, torch.Tensor):
        target_dtype = dtype if dtype is not None and v.is_floating_point() else v.dtype
        if str(v.device) == str(torch.device(device)) and v.dtype == target_dtype:
            return v
        t = v.detach().to(device=device, dtype=target_dtype).requires_grad_(v.requires_grad)
        what = f"{v.device} -> {t.device}" if v.device != t.device else ""
        if v.dtype != t.dtype:
            what += (
                (", " if what else "")
                + f"{str(v.dtype).removeprefix('torch.')} -> "
                + (str(t.dtype).removeprefix("torch."))
            )
        moved.append(what)
        return t
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # a namedtuple
        return type(v)(*(move_value(torch, x, device, dtype, moved) for x in v))
    if isinstance(v, tuple):
        return tuple(move_value(torch, x, device, dtype, moved) for x in v)
    if isinstance(v, list):
        return [move_value(torch, x, device, dtype, moved) for x in v]
    if isinstance(v, dict):
        return {k: move_value(torch, x, device, dtype, moved) for k, x in v.items()}
    return v


def moved_note(moved: list[str]) -> str | None:
    """``moved 2 factory input tensors (cpu -> cuda:0)`` or None."""
    if not moved:
        return None
    kinds = ", ".join(dict.fromkeys(moved))
    n = len(moved)
    return f"moved {n} factory input tensor{'s' * (n != 1)} ({kinds}) to match the spec"


class Prepared:
    """The model in the mode it runs in, its inputs on the spec's device, and what was done."""

    def __init__(
        self,
        model: Any,
        args: list[Any],
        kwargs: dict[str, Any],
        mode: str,
        mode_source: str,
        inputs_moved: str | None,
    ) -> None:
        self.model = model
        self.args = args
        self.kwargs = kwargs
        self.mode = mode
        self.mode_source = mode_source
        self.inputs_moved = inputs_moved


def prepare(
    torch: Any, obj: Any, spec: Spec, device: str, *, dtype: Any = None, train: bool = False
) -> Prepared:
    """Build the spec's model and inputs: the model (and inputs a factory returned, nested) on
    ``device`` (floating tensors in ``dtype`` if given), in the spec's mode, or, when the spec
    gives none, in the mode the factory or instance came in (a class defaults to eval)."""
    nn = torch.nn
    model, default_inputs = build_model(torch, obj, spec, device)
    if train:
        mode, source = "train", "flag"
    elif spec.mode is not None:
        mode, source = spec.mode, "spec"
    elif isinstance(obj, nn.Module):
        mode, source = ("train" if obj.training else "eval"), "instance"
    elif not isinstance(obj, type):
        mode, source = ("train" if model.training else "eval"), "factory"
    else:
        mode, source = "eval", "default"
    model = model.to(device)
    if dtype is not None:
        model = model.to(dtype)
    if mode == "train":
        model.train()
    else:
        model.eval()
    moved: list[str] = []
    if spec.inputs_given or spec.kwargs or default_inputs is None:
        args = [make_value(torch, a, device) for a in spec.inputs]
        kwargs = {k: make_value(torch, a, device) for k, a in spec.kwargs.items()}
    else:
        args, kwargs = split_inputs(default_inputs)
        args = move_value(torch, args, device, dtype, moved)
        kwargs = move_value(torch, kwargs, device, dtype, moved)
    return Prepared(model, args, kwargs, mode, source, moved_note(moved))


def mark_dynamic(torch: Any, dynamic: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    for d in dynamic:
        inp = d["input"]
        t = args[inp] if isinstance(inp, int) and inp < len(args) else kwargs.get(str(inp))
        if t is not None and isinstance(t, torch.Tensor):
            for dim in d["dims"]:
                torch._dynamo.mark_dynamic(t, dim)


def scalar_of(torch: Any, out: Any) -> Any:
    """A scalar made from every floating tensor in the outputs (for train mode)."""
    total = None
    stack = [out]
    while stack:
        x = stack.pop()
        if isinstance(x, torch.Tensor):
            if x.requires_grad and (x.is_floating_point() or x.is_complex()):
                s = x.float().sum() if not x.is_complex() else x.abs().sum()
                total = s if total is None else total + s
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__") or hasattr(x, "to_tuple"):
            with contextlib.suppress(Exception):
                stack.extend(vars(x).values())
    return total


# --------------------------------------------------------------------------- observe
# Shared by the child process (:func:`run`, from a spec) and the in-process path
# (:mod:`compilelint.dynamic.inprocess`, a live model in the user's own tests).


def new_result(root: str, *, config: dict[str, Any], mode: str | None) -> dict[str, Any]:
    """An empty raw result (the shape :func:`compilelint.dynamic.api.build_result` reads)."""
    return {
        "result_version": RESULT_VERSION,
        "torch": None,
        "device": None,
        "python": sys.version.split()[0],
        "root": os.path.realpath(root),
        "graphs": [],
        "breaks": [],
        "recompiles": [],
        "limit_hits": [],
        "metrics": [],
        "fullgraph_errors": [],
        "counters": {},
        "lines": {},
        "coverage": None,
        "phases": [],
        "compile": {},
        "config": dict(config),
        "mode": mode,
        "error": None,
        "seconds": 0.0,
    }


class Collectors:
    """The structured-trace and warning handlers plus the collecting backend, installed on
    torch's loggers for the duration of a ``with`` block and removed afterwards."""

    def __init__(self, torch: Any, root: str, *, bare: bool = False) -> None:
        self.trace = TraceCollector()
        self.warn = WarningCollector()
        self.graphs: GraphCollector | None = None if bare else GraphCollector(root)
        self.backend: Any = "eager" if bare else self.graphs
        self.counters: Any = None
        with contextlib.suppress(Exception):
            from torch._dynamo.utils import counters

            self.counters = counters
        self._restore: list[tuple[logging.Logger, logging.Handler, int]] = []

    def __enter__(self) -> Collectors:
        if self.graphs is not None:
            tlog = logging.getLogger("torch.__trace")
            self._restore.append((tlog, self.trace, tlog.level))
            tlog.addHandler(self.trace)
            tlog.setLevel(logging.DEBUG)
            dlog = logging.getLogger("torch._dynamo")
            self._restore.append((dlog, self.warn, dlog.level))
            dlog.addHandler(self.warn)
        if self.counters is not None:
            with contextlib.suppress(Exception):
                self.counters.clear()
        return self

    def __exit__(self, *exc: object) -> None:
        for logger, handler, level in reversed(self._restore):
            logger.removeHandler(handler)
            logger.setLevel(level)
        self._restore.clear()

    def set_phase(self, phase: str) -> None:
        self.trace.phase = phase
        self.warn.phase = phase
        if self.graphs is not None:
            self.graphs.phase = phase

    def fill(self, result: dict[str, Any]) -> None:
        """Copy what was collected into a raw result."""
        result["breaks"] = self.trace.breaks
        result["recompiles"] = self.trace.recompiles
        result["metrics"] = self.trace.metrics
        result["limit_hits"] = self.warn.limit_hits
        if self.graphs is not None:
            result["graphs"] = self.graphs.graphs
            result["lines"] = {p: sorted(ls) for p, ls in self.graphs.lines.items()}
        if self.counters is not None:
            with contextlib.suppress(Exception):
                result["counters"] = {
                    "graph_break": sum(self.counters["graph_break"].values()),
                    "unimplemented": sum(self.counters["unimplemented"].values()),
                }


def unsupported_errors() -> tuple[type[BaseException], ...]:
    """torch's own "cannot trace" exceptions (fullgraph=True, fail_on_recompile)."""
    with contextlib.suppress(Exception):
        from torch._dynamo import exc as dexc

        return tuple(
            t
            for t in (
                getattr(dexc, "Unsupported", None),
                getattr(dexc, "FailOnRecompileLimitHit", None),
            )
            if isinstance(t, type)
        )
    return ()


Call = tuple[str, list[Any], dict[str, Any], int]  # (phase name, args, kwargs, how many calls)


def reseed_python(seed: int, tag: str) -> None:
    """Seed Python's ``random`` (and NumPy's global generator, when imported) from the spec's
    seed and the call (``tag``), before each call: draws a model makes in forward are then the
    same in the original and a fixed copy, call by call, however many numbers an earlier call
    drew (a rewrite that draws inside a branch on every call is compared fairly)."""
    import random
    import zlib

    s = zlib.crc32(f"{seed}:{tag}".encode())
    random.seed(s)
    np = sys.modules.get("numpy")
    if np is not None:
        with contextlib.suppress(Exception):
            np.random.seed(s)


def call_phases(
    torch: Any,
    compiled: Any,
    calls: list[Call],
    col: Collectors,
    result: dict[str, Any],
    *,
    grad_ctx: Any = contextlib.nullcontext,
    train: bool = False,
    recorder: Any = None,
    eager: Any = None,
    seed: int | None = None,
) -> None:
    """Call the compiled model with each phase's inputs, noting phases and graphs; a
    fullgraph-style ``Unsupported`` ends its phase and is recorded, other errors raise
    :class:`StepError`. With ``eager`` (the model itself): when a compiled call raises but the
    same call runs eagerly, torch.compile itself failed: that is recorded as
    ``result["compile_failure"]`` (a finding, not a tool error) and the calls stop. ``recorder`` (an :class:`outputs.Recorder`) keeps every output."""
    unsupported = unsupported_errors()
    for phase, cargs, ckw, ncalls in calls:
        progress("tracing" if phase == "inputs" else f"probing variant {phase!r}")
        col.set_phase(phase)
        p0 = time.perf_counter()
        name = "forward" if phase == "inputs" else f"variant {phase!r}"
        for i in range(ncalls):
            col.warn.call += 1
            if col.graphs is not None:
                col.graphs.call += 1 if (phase, i) != ("inputs", 0) else 0
            if seed is not None:
                reseed_python(seed, f"{phase}:{i}")
            try:
                with step(name), grad_ctx():
                    out = compiled(*cargs, **ckw)
                    if train:
                        loss = scalar_of(torch, out)
                        if loss is not None:
                            loss.backward()
                    if recorder is not None:
                        recorder.called(torch, out)
            except StepError as se:
                if unsupported and isinstance(se.exc, unsupported):
                    result["fullgraph_errors"].append(
                        {
                            "phase": phase,
                            "type": type(se.exc).__name__,
                            "gb_type": getattr(se.exc, "gb_type", None),
                            "message": str(se.exc),
                        }
                    )
                    break
                if eager is not None and _runs_eagerly(torch, eager, cargs, ckw, grad_ctx):
                    record = error_record(name, se.exc, result.get("root") or os.getcwd())
                    record.update(phase=phase, call=i + 1, eager_ok=True)
                    record["config"] = sorted(set(CONFIG_RE.findall(_exc_text(se.exc))))
                    result["compile_failure"] = record
                    result["phases"].append({"name": phase, "seconds": 0.0})
                    return
                raise
        result["phases"].append({"name": phase, "seconds": round(time.perf_counter() - p0, 4)})


# --------------------------------------------------------------------------- line coverage


class LineCoverage:
    """Which lines of the covered files run: ``sys.settrace`` with a per-call filter, so frames
    of other files (torch, the standard library) cost one dictionary look-up per call and are
    not traced line by line. ``paths`` are files or folders (a folder covers every file under
    it). Used for one extra *eager* pass after the compiled calls (dynamo replaces the frame
    evaluation of compiled code, so a tracer would not see its lines), which tells "your inputs
    never ran this line" from "torch traced this line without a break"."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.files: set[str] = set()
        self.dirs: tuple[str, ...] = ()
        dirs: list[str] = []
        for p in paths:
            rp = os.path.realpath(p)
            if os.path.isdir(rp):
                dirs.append(rp.rstrip(os.sep) + os.sep)
            else:
                self.files.add(rp)
        self.dirs = tuple(dirs)
        self.lines: dict[str, set[int]] = {}
        self._known: dict[str, str | None] = {}  # co_filename -> covered real path or None

    def _covered(self, filename: str) -> str | None:
        hit = self._known.get(filename, "")
        if hit != "":
            return hit
        rp = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
        ok = bool(rp) and (rp in self.files or any(self._in_dir(rp, d) for d in self.dirs))
        self._known[filename] = rp if ok else None
        return rp if ok else None

    @staticmethod
    def _in_dir(path: str, folder: str) -> bool:
        """Under ``folder``, and not inside an environment kept there (``.venv/lib/.../
        site-packages``): installed packages are not the scanned source."""
        if not path.startswith(folder):
            return False
        parts = path[len(folder) :].split(os.sep)
        return not any(p in ("site-packages", "dist-packages") for p in parts)

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "call":
            return None
        path = self._covered(frame.f_code.co_filename)
        if path is None:
            return None
        lines = self.lines.setdefault(path, set())
        lines.add(frame.f_lineno)

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    @contextlib.contextmanager
    def tracing(self) -> Iterator[None]:
        old = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield
        finally:
            sys.settrace(old)

    def as_json(self) -> dict[str, list[int]]:
        return {p: sorted(ls) for p, ls in sorted(self.lines.items())}


def eager_coverage(
    torch: Any,
    model: Any,
    calls: list[Call],
    paths: Iterable[str],
    *,
    grad_ctx: Any = contextlib.nullcontext,
    train: bool = False,
) -> dict[str, list[int]]:
    """Call the *uncompiled* model once per phase under :class:`LineCoverage`; the lines of the
    covered files that ran. An error in the eager pass ends it (what ran so far is kept): the
    compiled run already reported the model's own errors."""
    cov = LineCoverage(paths)
    if not cov.files and not cov.dirs:
        return {}
    progress("line coverage (one eager call per phase)")
    for _phase, cargs, ckw, _n in calls:
        try:
            with cov.tracing(), grad_ctx():
                out = model(*cargs, **ckw)
                if train:
                    loss = scalar_of(torch, out)
                    if loss is not None:
                        loss.backward()
        except Exception:
            break
    return cov.as_json()


CONFIG_RE = re.compile(r"torch\._(?:dynamo|inductor)\.config\.\w+")


def _exc_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc))


def _runs_eagerly(
    torch: Any, model: Any, args: list[Any], kwargs: dict[str, Any], ctx: Any
) -> bool:
    """Whether the call that failed compiled runs without torch.compile (then compiling it is
    what failed, not the model)."""
    try:
        with ctx():
            model(*args, **kwargs)
    except KeyboardInterrupt:
        raise
    except BaseException:  # SystemExit too: the model itself fails, not torch.compile
        return False
    return True


# --------------------------------------------------------------------------- run


def run(
    spec: Spec,
    root: str,
    *,
    bare: bool = False,
    recorder: Any = None,
    cover: Iterable[str] = (),
) -> dict[str, Any]:
    """Run the spec. ``recorder`` (an :class:`outputs.Recorder`) keeps the initial weights,
    every call's outputs and the final gradients, for ``fix --verify``. ``cover``: files and
    folders whose executed lines an extra eager pass records (``result["coverage"]``)."""
    t0 = time.perf_counter()
    result = new_result(root, config=spec.config, mode=spec.mode)
    try:
        progress("importing torch")
        t_import = time.perf_counter()
        try:
            import torch
            import torch._dynamo
        except ImportError as exc:
            result["error"] = import_error_record(exc)
            return result
        result["torch"] = torch.__version__
        result["import_seconds"] = round(time.perf_counter() - t_import, 3)
        with Collectors(torch, root, bare=bare) as col:
            try:
                _run_spec(torch, spec, root, col, result, bare=bare, recorder=recorder, cover=cover)
            finally:
                col.fill(result)
    except StepError as se:
        result["error"] = error_record(se.step, se.exc, root)
    finally:
        result["seconds"] = round(time.perf_counter() - t0, 4)
    return result


def _run_spec(
    torch: Any,
    spec: Spec,
    root: str,
    col: Collectors,
    result: dict[str, Any],
    *,
    bare: bool,
    recorder: Any = None,
    cover: Iterable[str] = (),
) -> None:
    """Build the spec's model and inputs, compile, and call every phase (then, with ``cover``,
    call the uncompiled model once per phase for line coverage)."""
    with step("device"):
        device = pick_device(torch, spec.device)
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("device is cuda but torch.cuda.is_available() is False")
    result["device"] = device
    torch.manual_seed(spec.seed)

    with step("import model"):
        progress(f"loading {spec.model}")
        spec_dir = os.path.dirname(spec.source) if spec.source else root
        obj = import_target(spec.model, root, spec_dir)
    with step("init"):
        prep = prepare(torch, obj, spec, device)
        model, args, kwargs = prep.model, prep.args, prep.kwargs
        result["mode"] = prep.mode
        result["mode_source"] = prep.mode_source
        result["inputs_moved"] = prep.inputs_moved
        if recorder is not None:
            recorder.model_built(torch, model)
    with step("inputs"):
        mark_dynamic(torch, spec.dynamic, args, kwargs)

    comp = spec.compile
    result["compile"] = {
        "backend": comp.get("backend", "inductor"),
        "mode": comp.get("mode"),
        "dynamic": comp.get("dynamic"),
        "fullgraph": bool(comp.get("fullgraph", False)),
        "traced_with": "eager" if bare else "compilelint collecting eager backend",
    }
    with step("config"):
        patch: Any = contextlib.nullcontext()
        if spec.config:
            cfg = torch._dynamo.config
            for key in spec.config:
                if not hasattr(cfg, key):
                    raise AttributeError(f"torch._dynamo.config has no option {key!r}")
            patch = cfg.patch(**spec.config)
    with step("compile"):
        compiled = torch.compile(
            model,
            backend=col.backend,
            dynamic=comp.get("dynamic"),
            fullgraph=bool(comp.get("fullgraph", False)),
        )

    calls: list[Call] = [("inputs", args, kwargs, spec.calls)]
    for var in spec.variants:
        with step(f"variant {var['name']!r} inputs"):
            vargs = (
                [make_value(torch, a, device) for a in var["inputs"]]
                if "inputs" in var
                else list(args)
            )
            vkw = dict(kwargs)
            vkw.update({k: make_value(torch, a, device) for k, a in var.get("kwargs", {}).items()})
            mark_dynamic(torch, spec.dynamic, vargs, vkw)
        calls.append((str(var["name"]), vargs, vkw, int(var.get("calls", 1))))

    grad_ctx = torch.no_grad if prep.mode == "eval" else contextlib.nullcontext
    with patch:
        call_phases(
            torch,
            compiled,
            calls,
            col,
            result,
            grad_ctx=grad_ctx,
            train=prep.mode == "train",
            recorder=recorder,
            eager=model,
            seed=spec.seed,
        )
    if recorder is not None:
        recorder.finished(torch, model)
        failure = result.get("compile_failure")
        if failure:
            # the compiled calls stopped: say why, and still compare one uncompiled call
            where = failure.get("frame") or {}
            at = (
                f" at {os.path.basename(str(where.get('path')))}:{where.get('line')}"
                if where
                else ""
            )
            msg = str(failure.get("message") or "")
            kind = str(failure.get("type") or "")
            text = msg if kind and kind in msg else f"{kind}: {msg}"
            recorder.compile_failure = f"{text}{at}"
        recorder.eager_called(
            torch, model, args, kwargs, reseed=lambda: reseed_python(spec.seed, "eager")
        )
    cover = list(cover)
    if cover and not bare and recorder is None:
        result["coverage"] = eager_coverage(
            torch, model, calls, cover, grad_ctx=grad_ctx, train=prep.mode == "train"
        )


SMALL_TENSOR = 64  # tensors with at most this many values are written into a spec literally


def value_to_spec(torch: Any, v: Any, path: str = "inputs") -> Any:
    """A factory's input value as spec JSON: small tensors literally (``data``), larger ones by
    shape, dtype and an init that fits their values (token ids keep their range)."""
    if isinstance(v, torch.Tensor):
        dtype = str(v.dtype).removeprefix("torch.")
        out: dict[str, Any] = {"tensor": list(v.shape), "dtype": dtype}
        t = v.detach().cpu()
        if t.numel() <= SMALL_TENSOR:
            out["data"] = t.flatten().tolist()
        elif dtype == "bool":
            out["p"] = round(float(t.float().mean()), 4)
        elif not (t.is_floating_point() or t.is_complex()):
            out.update(init="randint", low=int(t.min()), high=int(t.max()) + 1)
        if v.requires_grad:
            out["requires_grad"] = True
        return out
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple):
        return {"tuple": [value_to_spec(torch, x, f"{path}[{i}]") for i, x in enumerate(v)]}
    if isinstance(v, list):
        return [value_to_spec(torch, x, f"{path}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: value_to_spec(torch, x, f"{path}.{k}") for k, x in v.items()}}
    raise TypeError(f"{path}: a {type(v).__name__} cannot be written into a spec")


def factory_inputs(model: str, root: str) -> dict[str, Any]:
    """Call the factory ``model`` and describe the inputs it returns as spec JSON
    (``spec init --run``): ``{"inputs": [...], "kwargs": {...}}`` or ``{"error": ...}``."""
    try:
        import torch
    except ImportError:
        return {"error": INSTALL_HINT}
    try:
        obj = import_target(model, root, root)
        if isinstance(obj, torch.nn.Module) or isinstance(obj, type) or not callable(obj):
            return {"error": f"{model} is not a factory function"}
        out = obj()
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            return {"error": f"{model} returned no (module, inputs) pair"}
        args, kwargs = split_inputs(out[1])
        return {
            "inputs": [value_to_spec(torch, a, f"inputs[{i}]") for i, a in enumerate(args)],
            "kwargs": {k: value_to_spec(torch, a, f"kwargs.{k}") for k, a in kwargs.items()},
            "mode": "train" if out[0].training else "eval",
        }
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}


def _outputs(result: dict[str, Any], recorder: Any, save: str | None, ref: str | None) -> None:
    import torch

    from compilelint.dynamic import outputs

    if save:
        outputs.save(torch, save, recorder)
    if ref:
        result["comparison"] = outputs.compare(torch, ref, recorder)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compilelint.dynamic.runner")
    ap.add_argument("spec", nargs="?")
    ap.add_argument("--factory-inputs", metavar="MODEL", help="describe a factory's inputs")
    ap.add_argument("--out", help="write the JSON result here (default: stdout)")
    ap.add_argument("--root", default=os.getcwd(), help="project root (user code lives here)")
    ap.add_argument("--bare", action="store_true", help="plain torch.compile, no collectors")
    ap.add_argument("--save-outputs", help="save weights, outputs and gradients here (torch.save)")
    ap.add_argument("--compare-outputs", help="compare with outputs saved by another run")
    ap.add_argument(
        "--cover",
        action="append",
        default=[],
        help="a file or folder whose executed lines to record (an extra eager pass; repeatable)",
    )
    ns = ap.parse_args(argv)
    if ns.factory_inputs:
        real_stdout = sys.stdout
        sys.stdout = sys.stderr  # the factory's prints must not corrupt the result
        text = json.dumps(factory_inputs(ns.factory_inputs, os.path.abspath(ns.root)))
        sys.stdout = real_stdout
        if ns.out:
            with open(ns.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        else:
            print(text)
        return 0
    if not ns.spec:
        ap.error("a spec file is needed")

    def work(spec: Spec, root: str) -> dict[str, Any]:
        recorder = None
        if ns.save_outputs or ns.compare_outputs:
            from compilelint.dynamic.outputs import Recorder

            recorder = Recorder()
        result = run(spec, root, bare=ns.bare, recorder=recorder, cover=ns.cover)
        if recorder is not None and not result.get("error"):
            _outputs(result, recorder, ns.save_outputs, ns.compare_outputs)
        return result

    return serve_child(ns.spec, ns.root, ns.out, work, result_version=RESULT_VERSION)


def serve_child(
    spec_path: str,
    root: str,
    out: str | None,
    work: Callable[[Spec, str], dict[str, Any]],
    *,
    result_version: int,
) -> int:
    """The body of a child process (this runner, the bench runner): load the spec, run ``work``
    with the user's prints sent to stderr, and write one JSON result to ``out`` (atomically) or
    stdout. A bad spec or anything ``work`` raises becomes the result's ``error``. Returns 0, or 3
    when the result carries an error."""
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the user's prints must not corrupt the result
    root = os.path.abspath(root)
    try:
        spec = load_spec(spec_path)
    except SpecError as exc:
        result: dict[str, Any] = {
            "result_version": result_version,
            "error": {"step": "spec", "type": "SpecError", "message": str(exc), "frames": []},
        }
    else:
        try:
            result = work(spec, root)
        except BaseException as exc:
            result = {"result_version": result_version, "error": error_record("run", exc, root)}
    text = json.dumps(result, default=str)
    if out:
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, out)
    else:
        real_stdout.write(text + "\n")
        real_stdout.flush()
    sys.stdout = real_stdout
    return 0 if not result.get("error") else 3


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown (torch's atexit hooks can be slow or crash on user state).
    os._exit(code)
