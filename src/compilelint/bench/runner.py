"""Child process of ``compilelint bench``: times one configuration of the spec's model.

    python -m compilelint.bench.runner spec.json --mode eager|default|reduce-overhead|...
        [--backend inductor] [--steps 50] [--warmup 10] [--attribution-steps 20] [--train]
        [--dtype bfloat16] [--save-reference ref.pt | --reference ref.pt] --out result.json

One process per configuration: every mode starts from a fresh dynamo state. The model, its
weights and inputs are built exactly as the dynamic stage builds them
(:mod:`compilelint.dynamic.runner`), from the spec's seed, so every configuration sees the same
weights and inputs; the result carries their checksums so the parent can verify that.

What is measured, in order:

1. the first call (compiles, for a compile mode), synchronized, wall clock;
2. ``warmup`` more calls, and on a GPU more until ``warmup_seconds`` have passed (clocks
   settle), not measured (for cudagraph modes this records the graphs);
3. ``steps`` timed calls, each synchronized, timed with CUDA events on a GPU and
   ``time.perf_counter`` on the CPU; peak memory over these steps;
4. the same number of steps back to back, in 5 chunks synchronized only at their ends (the
   host may run ahead of the device, as in a training loop): a throughput figure;
5. ``attribution_steps`` more calls with the timing wrappers switched on: the compile backend
   wraps every compiled graph, and each call of a graph is bracketed by marks (CUDA events or
   clock reads). The step then splits into time inside graphs and the gaps between them; the
   parent attributes each gap to the graph break that ended the graph before it. The wrappers
   are a no-op during steps 3 and 4, so they do not disturb the step times.

Graph breaks and recompiles come from torch's structured trace, as in the dynamic stage.
The result is raw data; :mod:`compilelint.bench.api` turns it into the report.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import logging
import os
import platform
import resource
import subprocess
import sys
import time
from typing import Any

from compilelint.dynamic.runner import (
    StepError,
    TraceCollector,
    WarningCollector,
    error_record,
    import_error_record,
    import_target,
    mark_dynamic,
    pick_device,
    prepare,
    progress,
    scalar_of,
    serve_child,
    step,
)
from compilelint.dynamic.spec import load_spec

RESULT_VERSION = 1
EAGER = "eager"
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
DTYPES = ("float32", "bfloat16", "float16")


class Marks:
    """Time marks around compiled-graph calls: CUDA events on a GPU, clock reads on the CPU."""

    def __init__(self, torch: Any, cuda: bool) -> None:
        self.torch = torch
        self.cuda = cuda
        self.on = False
        self.items: list[tuple[str, int, Any]] = []
        self._pool: list[Any] = []
        self._used = 0

    def mark(self, kind: str, gid: int) -> None:
        if self.cuda:
            if self._used == len(self._pool):
                self._pool.append(self.torch.cuda.Event(enable_timing=True))
            ev = self._pool[self._used]
            self._used += 1
            ev.record()
            self.items.append((kind, gid, ev))
        else:
            self.items.append((kind, gid, time.perf_counter()))

    def reset(self) -> None:
        self.items = []
        self._used = 0

    def segments(self) -> list[list[Any]]:
        """``[kind, graph id, ms]`` between consecutive marks (call after a synchronize).

        kinds: ``graph`` (inside graph gid), ``gap`` (from the end of graph gid to the next
        graph), ``head`` (step start to the first graph), ``tail`` (the last graph gid to the
        step end; gid -1 when no graph ran).
        """
        out: list[list[Any]] = []
        items = self.items
        for (ka, ga, ta), (kb, _gb, tb) in itertools.pairwise(items):
            if self.cuda:
                ms = float(ta.elapsed_time(tb))
            else:
                ms = (tb - ta) * 1e3
            if ka == "start" and kb == "end":
                out.append(["graph", ga, ms])
            elif ka == "step" and kb == "start":
                out.append(["head", -1, ms])
            elif ka == "end" and kb == "start":
                out.append(["gap", ga, ms])
            elif ka == "end" and kb == "stepend":
                out.append(["tail", ga, ms])
            elif ka == "step" and kb == "stepend":
                out.append(["tail", -1, ms])
            else:  # a graph called from inside another (should not happen): keep the time
                out.append(["graph" if ka == "start" else "gap", ga, ms])
        return out


class TimedBackend:
    """The compile backend: the real one (inductor with the mode's options), each compiled
    graph wrapped so that its calls can be bracketed by :class:`Marks`."""

    def __init__(self, inner: Any, marks: Marks, root: str) -> None:
        self.inner = inner
        self.marks = marks
        self.root = os.path.realpath(root)
        self.graphs: list[dict[str, Any]] = []
        self.phase = "first"
        self.__name__ = f"compilelint_timed_{getattr(inner, 'compiler_name', 'backend')}"

    def __call__(self, gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        cid = None
        with contextlib.suppress(Exception):
            from torch._guards import CompileContext

            cid = CompileContext.current_compile_id()
        ops = 0
        lines: set[int] = set()
        for node in gm.graph.nodes:
            if node.op == "call_function":
                ops += 1
            st = node.meta.get("stack_trace") if hasattr(node, "meta") else None
            if st:
                lines.update(self._user_lines(st))
        fn = self.inner(gm, example_inputs, **kwargs)
        gid = len(self.graphs)
        self.graphs.append(
            {
                "id": gid,
                "compile_id": str(cid) if cid is not None else None,
                "frame_id": getattr(cid, "frame_id", None),
                "frame_compile_id": getattr(cid, "frame_compile_id", None),
                "ops": ops,
                "lines": sorted(lines),
                "phase": self.phase,
            }
        )
        marks = self.marks

        def timed(*args: Any, **kw: Any) -> Any:
            # Forwards exactly what it gets: a boxed call (one list) stays boxed.
            if not marks.on:
                return fn(*args, **kw)
            marks.mark("start", gid)
            try:
                return fn(*args, **kw)
            finally:
                marks.mark("end", gid)

        if getattr(fn, "_boxed_call", False):
            # torch reads this flag off the compiled function (its boxed calling convention);
            # mypy types no attributes on a function, and ruff's B010 refuses a setattr
            timed._boxed_call = True  # type: ignore[attr-defined]
        return timed

    def _user_lines(self, stack_trace: str) -> set[int]:
        out: set[int] = set()
        for ln in stack_trace.splitlines():
            ln = ln.strip()
            if not ln.startswith('File "'):
                continue
            path, _, rest = ln[6:].partition('", line ')
            if path.startswith(self.root):
                num = rest.split(",", 1)[0]
                if num.isdigit():
                    out.add(int(num))
        return out


def inner_backend(
    torch: Any, backend: str, mode: str, options: dict[str, Any], dynamic: Any
) -> Any:
    """What ``torch.compile(backend=..., mode=..., options=...)`` would compile graphs with."""
    if backend == "inductor":
        wrapper = getattr(torch, "_TorchCompileInductorWrapper", None)
        if wrapper is not None:
            return wrapper(None if mode == "default" else mode, options or None, dynamic)
        from torch._inductor import list_mode_options
        from torch._inductor.compile_fx import compile_fx

        patches = {**list_mode_options(mode), **(options or {})}
        return lambda gm, ex, **kw: compile_fx(gm, ex, config_patches=patches)
    if mode != "default":
        raise ValueError(f"compile mode {mode!r} applies to the inductor backend only")
    from torch._dynamo.backends.registry import lookup_backend

    return lookup_backend(backend)


def environment(torch: Any, device: str) -> dict[str, Any]:
    env: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "torch": torch.__version__,
        "triton": None,
        "cuda": getattr(torch.version, "cuda", None),
        "cudnn": None,
        "driver": None,
        "gpu": None,
        "gpu_count": 0,
        "device": device,
        "threads": torch.get_num_threads(),
    }
    with contextlib.suppress(Exception):
        import triton

        env["triton"] = triton.__version__
    if device.startswith("cuda"):
        with contextlib.suppress(Exception):
            env["gpu"] = torch.cuda.get_device_name(torch.device(device))
            env["gpu_count"] = torch.cuda.device_count()
        with contextlib.suppress(Exception):
            env["cudnn"] = torch.backends.cudnn.version()
        with contextlib.suppress(Exception):
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            if out.returncode == 0 and out.stdout.strip():
                env["driver"] = out.stdout.strip().splitlines()[0].strip()
    return env


def parse_cpulist(text: str) -> set[int]:
    """``0-3,8,10-11`` (a sysfs cpulist) -> {0, 1, 2, 3, 8, 10, 11}."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def gpu_local_cpus(pci_bus_id: str, sysfs: str = "/sys/bus/pci/devices") -> set[int]:
    """The CPUs on the GPU's NUMA node, from sysfs (``00000000:1B:00.0`` -> ``0000:1b:00.0``)."""
    bus = pci_bus_id.strip().lower()
    if len(bus) > 12:
        bus = bus[-12:]
    try:
        with open(os.path.join(sysfs, bus, "local_cpulist"), encoding="ascii") as fh:
            return parse_cpulist(fh.read())
    except (OSError, ValueError):
        return set()


def pin_to_gpu_cores(torch: Any, device: str, sysfs: str = "/sys/bus/pci/devices") -> str | None:
    """Restrict this process (and the compile workers it starts) to the CPUs local to the GPU,
    so that every configuration's host side runs under the same conditions. Returns the
    cpulist pinned to, or None where it cannot (no sysfs entry, no sched_setaffinity)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        index = torch.device(device).index
        props = torch.cuda.get_device_properties(0 if index is None else index)
        bus_id = getattr(props, "pci_bus_id", None)
        if isinstance(bus_id, int):  # torch reports the bus number alone: ask nvidia-smi
            bus_id = None
        if not bus_id:
            out = subprocess.run(
                [
                    "nvidia-smi",
                    "--query-gpu=pci.bus_id",
                    "--format=csv,noheader",
                    "-i",
                    str(0 if index is None else index),
                ],
                capture_output=True,
                text=True,
                timeout=20,
            )
            bus_id = out.stdout.strip().splitlines()[0] if out.returncode == 0 else ""
        local = gpu_local_cpus(str(bus_id), sysfs) & os.sched_getaffinity(0)
        if not local:
            return None
        os.sched_setaffinity(0, local)
    except Exception:  # pinning is best effort: the timings are still taken
        return None
    return _cpulist(sorted(local))


def _cpulist(cpus: list[int]) -> str:
    parts: list[str] = []
    for _, grp in itertools.groupby(enumerate(cpus), lambda p: p[1] - p[0]):
        run = [c for _, c in grp]
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def _cpu_name() -> str:
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for ln in fh:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cast_value(torch: Any, v: Any, dtype: Any) -> Any:
    if isinstance(v, torch.Tensor):
        if v.is_floating_point():
            t = v.detach().to(dtype)
            return t.requires_grad_(v.requires_grad)
        return v
    if isinstance(v, tuple):
        return tuple(cast_value(torch, x, dtype) for x in v)
    if isinstance(v, list):
        return [cast_value(torch, x, dtype) for x in v]
    if isinstance(v, dict):
        return {k: cast_value(torch, x, dtype) for k, x in v.items()}
    return v


def checksum(torch: Any, values: Any) -> float:
    """A float that changes when any weight or input value changes (same seed, same value)."""
    total = 0.0
    stack = [values]
    i = 0
    while stack:
        x = stack.pop()
        if isinstance(x, torch.Tensor):
            if x.numel():
                i += 1
                t = x.detach().double().flatten()
                w = torch.arange(1, t.numel() + 1, device=t.device, dtype=torch.float64)
                total += float((t * w.remainder(7).add(1)).sum()) * (1 + i % 5)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return total


def first_tensor(torch: Any, out: Any) -> Any:
    stack = [out]
    while stack:
        x = stack.pop(0)
        if isinstance(x, torch.Tensor):
            return x
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__") or hasattr(x, "to_tuple"):
            with contextlib.suppress(Exception):
                stack.extend(vars(x).values())
    return None


class BenchTraceCollector(TraceCollector):
    """The dynamic stage's collector; breaks also keep their compile id (to match graphs), and
    each frame's compile time is kept."""

    def __init__(self) -> None:
        super().__init__()
        self.metrics_full: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        n = len(self.breaks)
        super().emit(record)
        with contextlib.suppress(Exception):
            md = getattr(record, "metadata", None)
            if not isinstance(md, dict):
                return
            if len(self.breaks) > n:
                self.breaks[-1]["frame_compile_id"] = md.get("frame_compile_id")
                self.breaks[-1]["attempt"] = md.get("attempt")
            m = md.get("compilation_metrics")
            if isinstance(m, dict):
                self.metrics_full.append(
                    {
                        "frame_id": md.get("frame_id"),
                        "frame_compile_id": md.get("frame_compile_id"),
                        "co_name": m.get("co_name"),
                        "entire_frame_compile_time_s": m.get("entire_frame_compile_time_s"),
                        "backend_compile_time_s": m.get("backend_compile_time_s"),
                        "phase": self.phase,
                    }
                )


def run(ns: argparse.Namespace, root: str) -> dict[str, Any]:
    t_start = time.perf_counter()
    result: dict[str, Any] = {
        "result_version": RESULT_VERSION,
        "mode": ns.mode,
        "backend": ns.backend if ns.mode != EAGER else None,
        "root": os.path.realpath(root),
        "environment": None,
        "device": None,
        "train": bool(ns.train),
        "dtype": ns.dtype,
        "checksums": {},
        "first_call_ms": None,
        "warmup": ns.warmup,
        "step_ms": [],
        "wall_ms": [],
        "back_to_back_ms": [],
        "peak_memory_bytes": None,
        "peak_memory_kind": None,
        "compile_s": None,
        "graphs": [],
        "attribution": [],
        "breaks": [],
        "recompiles": [],
        "limit_hits": [],
        "metrics": [],
        "reference": None,
        "error": None,
        "seconds": 0.0,
    }
    try:
        progress(f"{ns.mode}: importing torch")
        try:
            import torch
            import torch._dynamo
        except ImportError as exc:
            result["error"] = import_error_record(exc)
            return result
        spec = load_spec(ns.spec)
        trace = BenchTraceCollector()
        warn = WarningCollector()
        tlog = logging.getLogger("torch.__trace")
        tlog.addHandler(trace)
        tlog.setLevel(logging.DEBUG)
        logging.getLogger("torch._dynamo").addHandler(warn)
        trace.phase = "first"
        warn.phase = "first"

        with step("device"):
            device = pick_device(torch, ns.device or spec.device)
            if device.startswith("cuda") and not torch.cuda.is_available():
                raise RuntimeError("device is cuda but torch.cuda.is_available() is False")
        cuda = device.startswith("cuda")
        result["device"] = device
        result["environment"] = environment(torch, device)
        if cuda:
            # Every configuration runs on the cores local to the GPU: a sync-bound eager step
            # took 5.1 and 3.6 ms in two processes that the scheduler placed differently.
            result["environment"]["cpu_affinity"] = pin_to_gpu_cores(torch, device)
        torch.manual_seed(spec.seed)

        with step("import model"):
            progress(f"{ns.mode}: loading {spec.model}")
            spec_dir = os.path.dirname(spec.source) if spec.source else root
            obj = import_target(spec.model, root, spec_dir)
        with step("init"):
            dt = getattr(torch, ns.dtype) if ns.dtype else None
            prep = prepare(torch, obj, spec, device, dtype=dt, train=bool(ns.train))
            model, args, kwargs = prep.model, prep.args, prep.kwargs
            train = prep.mode == "train"
            result["train"] = train
            result["mode_source"] = prep.mode_source
            result["inputs_moved"] = prep.inputs_moved
        with step("inputs"):
            if dt is not None:
                args = cast_value(torch, args, dt)
                kwargs = cast_value(torch, kwargs, dt)
            mark_dynamic(torch, spec.dynamic, args, kwargs)
        result["checksums"] = {
            "weights": checksum(
                torch,
                [v for v in model.state_dict().values() if not torch.nn.parameter.is_lazy(v)],
            ),
            "inputs": checksum(torch, [args, kwargs]),
        }

        marks = Marks(torch, cuda)
        backend: TimedBackend | None = None
        comp = spec.compile
        patch: Any = contextlib.nullcontext()
        if ns.mode == EAGER:
            fn: Any = model
        else:
            with step("config"):
                if spec.config:
                    cfg = torch._dynamo.config
                    for key in spec.config:
                        if not hasattr(cfg, key):
                            raise AttributeError(f"torch._dynamo.config has no option {key!r}")
                    patch = cfg.patch(**spec.config)
            with step("compile"):
                inner = inner_backend(
                    torch, ns.backend, ns.mode, comp.get("options") or {}, comp.get("dynamic")
                )
                backend = TimedBackend(inner, marks, root)
                fn = torch.compile(
                    model,
                    backend=backend,
                    dynamic=comp.get("dynamic"),
                    fullgraph=bool(comp.get("fullgraph", False)),
                )
        cudagraphs = ns.mode in ("reduce-overhead", "max-autotune")
        mark_step = None
        if cudagraphs:
            mark_step = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)
        grad_ctx = contextlib.nullcontext if train else torch.no_grad
        params = [p for p in model.parameters() if p.requires_grad] if train else []

        def one_step() -> Any:
            warn.call += 1
            if mark_step is not None:
                mark_step()
            with grad_ctx():
                out = fn(*args, **kwargs)
                if train:
                    loss = scalar_of(torch, out)
                    if loss is not None:
                        loss.backward()
                    for p in params:
                        p.grad = None
            return out

        def sync() -> None:
            if cuda:
                torch.cuda.synchronize()

        with patch:
            name = "forward" if ns.mode == EAGER else "compile and first call"
            progress(f"{ns.mode}: {name}")
            with step(name):
                sync()
                t0 = time.perf_counter()
                out = one_step()
                sync()
                result["first_call_ms"] = (time.perf_counter() - t0) * 1e3
            with step("reference"):
                result["reference"] = reference(torch, ns, out)
            del out
            trace.phase = "warmup"
            warn.phase = "warmup"
            if backend is not None:
                backend.phase = "warmup"
            progress(f"{ns.mode}: {ns.warmup} warm-up steps")
            with step("warm-up"):
                # N steps, and on a GPU at least --warmup-seconds, so that clocks settle.
                w0 = time.perf_counter()
                done = 0
                while done < ns.warmup or (
                    cuda and time.perf_counter() - w0 < ns.warmup_seconds and done < 100_000
                ):
                    one_step()
                    done += 1
                    if cuda and done % 8 == 0:
                        sync()
                sync()
                result["warmup_steps_run"] = done
            trace.phase = "timed"
            warn.phase = "timed"
            if backend is not None:
                backend.phase = "timed"
            progress(f"{ns.mode}: {ns.steps} timed steps")
            with step("timed steps"):
                if cuda:
                    gc.collect()
                    torch.cuda.empty_cache()
                    torch.cuda.reset_peak_memory_stats()
                    pairs = [
                        (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                        for _ in range(ns.steps)
                    ]
                    for a, b in pairs:
                        torch.cuda.synchronize()
                        w0 = time.perf_counter()
                        a.record()
                        one_step()
                        b.record()
                        b.synchronize()
                        result["wall_ms"].append((time.perf_counter() - w0) * 1e3)
                    result["step_ms"] = [float(a.elapsed_time(b)) for a, b in pairs]
                    # Reserved, not allocated: CUDA-graph pools hold their memory as reserved
                    # blocks, and replays allocate nothing.
                    result["peak_memory_bytes"] = int(torch.cuda.max_memory_reserved())
                    result["peak_allocated_bytes"] = int(torch.cuda.max_memory_allocated())
                    result["peak_memory_kind"] = (
                        "cuda max_memory_reserved during the timed steps (after empty_cache)"
                    )
                else:
                    for _ in range(ns.steps):
                        w0 = time.perf_counter()
                        one_step()
                        result["wall_ms"].append((time.perf_counter() - w0) * 1e3)
                    result["step_ms"] = list(result["wall_ms"])
                    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                    scale = 1 if sys.platform == "darwin" else 1024
                    result["peak_memory_bytes"] = int(rss * scale)
                    result["peak_memory_kind"] = "process max RSS, whole run"
            # Back to back: the same number of steps in 5 chunks, synchronized only at the end
            # of each chunk, so the host can run ahead of the device as in a training loop.
            trace.phase = "back-to-back"
            warn.phase = "back-to-back"
            progress(f"{ns.mode}: {ns.steps} back-to-back steps")
            with step("back-to-back steps"):
                chunks = min(5, ns.steps)
                per = max(1, ns.steps // chunks)
                for _ in range(chunks):
                    sync()
                    if cuda:
                        a = torch.cuda.Event(enable_timing=True)
                        b = torch.cuda.Event(enable_timing=True)
                        a.record()
                        for _ in range(per):
                            one_step()
                        b.record()
                        b.synchronize()
                        result["back_to_back_ms"].append(float(a.elapsed_time(b)) / per)
                    else:
                        w0 = time.perf_counter()
                        for _ in range(per):
                            one_step()
                        result["back_to_back_ms"].append((time.perf_counter() - w0) * 1e3 / per)
            if backend is not None and ns.attribution_steps > 0:
                trace.phase = "attribution"
                warn.phase = "attribution"
                backend.phase = "attribution"
                progress(f"{ns.mode}: {ns.attribution_steps} attribution steps")
                with step("attribution steps"):
                    marks.on = True
                    for _ in range(ns.attribution_steps):
                        sync()
                        marks.reset()
                        marks.mark("step", -1)
                        one_step()
                        marks.mark("stepend", -1)
                        sync()
                        result["attribution"].append(marks.segments())
                    marks.on = False
    except StepError as se:
        result["error"] = error_record(se.step, se.exc, root)
    finally:
        if "trace" in locals():
            result["breaks"] = trace.breaks
            result["recompiles"] = trace.recompiles
            result["metrics"] = trace.metrics
            result["limit_hits"] = warn.limit_hits
            result["compile_s"] = compile_seconds(trace.metrics_full)
            result["frame_compiles"] = trace.metrics_full
        be = locals().get("backend")
        if isinstance(be, TimedBackend):
            result["graphs"] = be.graphs
        result["seconds"] = round(time.perf_counter() - t_start, 4)
    return result


def reference(torch: Any, ns: argparse.Namespace, out: Any) -> dict[str, Any] | None:
    """Compare the first output tensor with ``--reference`` and/or save it (``--save-reference``)."""
    t = first_tensor(torch, out)
    if t is None:
        return None
    t = t.detach().float().cpu()
    info: dict[str, Any] = {"shape": list(t.shape)}
    if ns.reference and os.path.exists(ns.reference):
        ref = torch.load(ns.reference)
        if tuple(ref.shape) != tuple(t.shape):
            info["reference_shape"] = list(ref.shape)
        else:
            diff = (t - ref).abs()
            denom = float(ref.norm()) or 1.0
            info["max_abs_diff"] = float(diff.max()) if diff.numel() else 0.0
            info["rel_l2"] = float((t - ref).norm()) / denom
    if ns.save_reference:
        torch.save(t, ns.save_reference)
        info["saved"] = True
    return info


def compile_seconds(metrics: list[dict[str, Any]]) -> float:
    return round(sum(float(m.get("entire_frame_compile_time_s") or 0.0) for m in metrics), 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compilelint.bench.runner")
    ap.add_argument("spec")
    ap.add_argument("--mode", default=EAGER, choices=(EAGER, *COMPILE_MODES))
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--device", default=None)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--warmup-seconds", type=float, default=2.0)
    ap.add_argument("--attribution-steps", type=int, default=20)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--dtype", default=None, choices=DTYPES)
    ap.add_argument("--save-reference", default=None)
    ap.add_argument("--reference", default=None)
    ap.add_argument("--out", help="write the JSON result here (default: stdout)")
    ap.add_argument("--root", default=os.getcwd())
    ns = ap.parse_args(argv)
    return serve_child(
        ns.spec, ns.root, ns.out, lambda _spec, root: run(ns, root), result_version=RESULT_VERSION
    )


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
