"""The input spec: which model to build and what to call it with.

Hand-written validation (no jsonschema at runtime): every problem is one line naming the JSON
path and what was expected, e.g. ``inputs[1].dtype: unknown dtype "flaot32"; expected one of
float32, ...``. ``spec.schema.json`` next to this file documents the same format as a JSON Schema.

Values (``inputs``, ``kwargs``, ``init`` args, variants) are JSON with tagged objects:

- ``{"tensor": [2, 8], "dtype": "float32", "init": "randn"}`` a tensor (``init``: randn,
  uniform (``low``/``high``), randint (``low``/``high``; token ids), zeros, ones, arange, bool
  masks via dtype ``bool`` (``p`` = probability of True)); optional ``device``, ``requires_grad``;
- ``{"tensor": [5], "data": [0.0, 0.25, 0.5, 0.75, 1.0]}`` a tensor given literally (flat or
  nested to the shape), for what random values cannot express: sorted time grids, valid indices;
- ``{"tuple": [...]}`` a tuple, ``{"dict": {...}}`` a dict, ``{"none": true}`` None is also
  plain ``null``; JSON numbers, strings, booleans and lists stand for themselves.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

DTYPES = (
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
    "complex128",
)
DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
}
INITS = (
    "randn",
    "rand",
    "uniform",
    "randint",
    "zeros",
    "ones",
    "arange",
    "full",
    "bernoulli",
    "data",
)
DEVICES = ("cpu", "cuda", "auto")
MODES = ("eval", "train")
MODE_SOURCES = {
    "spec": "as the spec says",
    "factory": "as the factory returned it",
    "instance": "as the module instance was",
    "default": "the default for a class (the spec gives no mode)",
    "flag": "from --train",
}


def mode_text(mode: str | None, source: str | None) -> str:
    """``train mode as the factory returned it``."""
    if not mode:
        return ""
    why = MODE_SOURCES.get(source or "")
    return f"{mode} mode" + (f", {why}" if source == "default" else f" {why}" if why else "")


TOP_KEYS = (
    "$schema",
    "model",
    "init",
    "inputs",
    "kwargs",
    "variants",
    "dynamic",
    "mode",
    "device",
    "seed",
    "compile",
    "config",
    "calls",
    "memory_mb",
    "description",
)
COMPILE_KEYS = ("backend", "mode", "dynamic", "fullgraph", "options")
TENSOR_KEYS = (
    "tensor",
    "data",
    "dtype",
    "device",
    "init",
    "low",
    "high",
    "value",
    "p",
    "requires_grad",
)
VARIANT_KEYS = ("name", "inputs", "kwargs", "calls")
MODEL_RE = re.compile(r"^(?P<target>[^:]+):(?P<name>[A-Za-z_][\w.]*)$")


class SpecError(Exception):
    """A bad spec. ``str(exc)`` is one line: ``<json path>: <problem>``."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class Spec:
    """A validated spec (values kept as JSON; the runner turns them into tensors)."""

    model: str
    init_args: tuple[Any, ...] = ()
    init_kwargs: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    inputs_given: bool = True
    variants: tuple[dict[str, Any], ...] = ()
    dynamic: tuple[dict[str, Any], ...] = ()
    mode: str | None = None  # None: the factory's or instance's own mode (a class: eval)
    device: str = "cpu"
    seed: int = 0
    compile: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    calls: int = 1
    memory_mb: int | None = None  # cap on the child's memory (MiB); None: the default
    source: str = ""  # the spec file, for relative model paths

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "init": {"args": list(self.init_args), "kwargs": self.init_kwargs},
            "inputs": list(self.inputs) if self.inputs_given else None,
            "kwargs": self.kwargs,
            "variants": list(self.variants),
            "dynamic": list(self.dynamic),
            "mode": self.mode,
            "device": self.device,
            "seed": self.seed,
            "compile": self.compile,
            "config": self.config,
            "calls": self.calls,
            "memory_mb": self.memory_mb,
            "source": self.source,
        }


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(v), type(v).__name__)


def _expect(cond: bool, path: str, problem: str) -> None:
    if not cond:
        raise SpecError(path, problem)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _unknown_keys(obj: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for k in obj:
        if k not in allowed:
            close = difflib.get_close_matches(k, allowed, n=1)
            hint = (
                f'; did you mean "{close[0]}"?'
                if close
                else f"; expected one of {', '.join(a for a in allowed if not a.startswith('$'))}"
            )
            raise SpecError(_join(path, k), f"unknown key {json.dumps(k)}{hint}")


_PLAIN_KEY = re.compile(r"^[A-Za-z_$][\w$-]*$")
MAX_DEPTH = 64  # values nested deeper than this are refused (JSON allows any depth)


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not _PLAIN_KEY.match(key):  # a key with dots, spaces, brackets: quote it
        return f"{path}[{json.dumps(key)}]"
    return f"{path}.{key}" if path else key


def _depth(path: str) -> int:
    return path.count("[") + path.count(".")


def check_dtype(v: Any, path: str) -> str:
    _expect(isinstance(v, str), path, f"expected a dtype string, got {_type_name(v)}")
    name = str(v).removeprefix("torch.")
    name = DTYPE_ALIASES.get(name, name)
    if name not in DTYPES:
        raise SpecError(path, f"unknown dtype {json.dumps(v)}; expected one of {', '.join(DTYPES)}")
    return name


def check_value(v: Any, path: str) -> Any:
    """Validate one input value; returns it with dtype aliases normalised."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if _depth(path) > MAX_DEPTH:
        raise SpecError(path, f"nested too deep (more than {MAX_DEPTH} levels)")
    if isinstance(v, list):
        return [check_value(x, _join(path, i)) for i, x in enumerate(v)]
    _expect(isinstance(v, dict), path, f"unsupported value of type {_type_name(v)}")
    if "tensor" in v:
        return check_tensor(v, path)
    if "tuple" in v:
        _unknown_keys(v, ("tuple",), path)
        items = v["tuple"]
        _expect(isinstance(items, list), _join(path, "tuple"), "expected an array")
        return {
            "tuple": [check_value(x, _join(_join(path, "tuple"), i)) for i, x in enumerate(items)]
        }
    if "dict" in v:
        _unknown_keys(v, ("dict",), path)
        d = v["dict"]
        _expect(isinstance(d, dict), _join(path, "dict"), "expected an object")
        return {"dict": {k: check_value(x, _join(_join(path, "dict"), k)) for k, x in d.items()}}
    if "none" in v:
        return None
    raise SpecError(
        path,
        'expected a tagged object ({"tensor": [...]}, {"tuple": [...]} or {"dict": {...}}), '
        f"got keys {', '.join(json.dumps(k) for k in sorted(v)) or '(none)'}",
    )


def check_tensor(v: dict[str, Any], path: str) -> dict[str, Any]:
    _unknown_keys(v, TENSOR_KEYS, path)
    shape = v["tensor"]
    sp = _join(path, "tensor")
    _expect(
        isinstance(shape, list),
        sp,
        f"expected a shape (array of integers), got {_type_name(shape)}",
    )
    for i, d in enumerate(shape):
        _expect(_is_int(d) and d >= 0, _join(sp, i), f"expected a non-negative integer, got {d!r}")
    out = dict(v)
    dtype = check_dtype(v.get("dtype", "float32"), _join(path, "dtype"))
    out["dtype"] = dtype
    init = v.get("init")
    if "data" in v:
        _expect(init is None, _join(path, "init"), 'give either "data" or "init", not both')
        init = "data"
    if init is None:
        init = (
            "randint"
            if dtype.startswith(("int", "uint"))
            else "bernoulli"
            if dtype == "bool"
            else "randn"
        )
    _expect(
        init in INITS,
        _join(path, "init"),
        f"unknown init {json.dumps(init)}; expected one of {', '.join(INITS)}",
    )
    out["init"] = init
    for key in ("low", "high", "value", "p"):
        if key in v:
            _expect(
                _is_num(v[key]), _join(path, key), f"expected a number, got {_type_name(v[key])}"
            )
            _expect(
                math.isfinite(v[key]), _join(path, key), f"expected a finite number, got {v[key]}"
            )
    if init == "randint":
        _expect(
            not dtype.startswith("float") and dtype != "bool",
            _join(path, "init"),
            f'randint needs an integer dtype, got "{dtype}"',
        )
        _expect("high" in v, _join(path, "high"), "randint needs an upper bound (high)")
        low = v.get("low", 0)
        _expect(low < v["high"], _join(path, "high"), f"must be greater than low ({low})")
    if init == "uniform" and "low" in v and "high" in v:
        _expect(v["low"] < v["high"], _join(path, "high"), f"must be greater than low ({v['low']})")
    if "p" in v:
        _expect(0 <= v["p"] <= 1, _join(path, "p"), "expected a probability between 0 and 1")
    if "device" in v:
        _expect(
            isinstance(v["device"], str) and v["device"].split(":")[0] in DEVICES,
            _join(path, "device"),
            f"unknown device {json.dumps(v['device'])}; expected one of {', '.join(DEVICES)}",
        )
    if "requires_grad" in v:
        _expect(
            isinstance(v["requires_grad"], bool),
            _join(path, "requires_grad"),
            "expected true or false",
        )
    if "data" in v:
        out["data"] = check_data(v["data"], shape, dtype, _join(path, "data"))
    return out


MAX_DATA = 65536  # literal values per tensor; larger inputs are better made by an init


def check_data(data: Any, shape: list[int], dtype: str, path: str) -> list[Any]:
    """Literal tensor values: a flat list of ``prod(shape)`` numbers, or nested lists of the
    tensor's shape. Returned flat (the runner reshapes)."""
    flat: list[Any] = []

    def walk(x: Any, p: str, depth: int) -> None:
        if isinstance(x, list):
            if depth > len(shape) or len(flat) > MAX_DATA:
                raise SpecError(p, f"nested deeper than the shape {shape}")
            for i, y in enumerate(x):
                walk(y, _join(p, i), depth + 1)
            return
        ok = isinstance(x, bool) if dtype == "bool" else _is_num(x)
        _expect(
            ok, p, f"expected a {'boolean' if dtype == 'bool' else 'number'}, got {_type_name(x)}"
        )
        _expect(isinstance(x, bool) or math.isfinite(x), p, f"expected a finite number, got {x}")
        if dtype.startswith(("int", "uint")):
            _expect(_is_int(x), p, f"expected an integer for dtype {dtype}, got {x!r}")
        flat.append(x)

    _expect(isinstance(data, list), path, f"expected an array of values, got {_type_name(data)}")
    walk(data, path, 0)
    n = math.prod(shape)
    _expect(len(flat) <= MAX_DATA, path, f"more than {MAX_DATA} values; use an init instead")
    _expect(
        len(flat) == n,
        path,
        f"{len(flat)} value{'s' * (len(flat) != 1)} for shape {shape} ({n} expected)",
    )
    return flat


def _check_args(v: Any, path: str) -> tuple[Any, ...]:
    _expect(
        isinstance(v, list), path, f"expected an array of positional values, got {_type_name(v)}"
    )
    return tuple(check_value(x, _join(path, i)) for i, x in enumerate(v))


def _check_kwargs(v: Any, path: str) -> dict[str, Any]:
    _expect(isinstance(v, dict), path, f"expected an object of keyword values, got {_type_name(v)}")
    out: dict[str, Any] = {}
    for k, x in v.items():
        _expect(k.isidentifier(), _join(path, k), "keyword names must be Python identifiers")
        out[k] = check_value(x, _join(path, k))
    return out


def validate(data: Any, source: str = "") -> Spec:
    """Validate decoded spec JSON; raise :class:`SpecError` naming the first problem."""
    _expect(isinstance(data, dict), "", f"a spec is a JSON object, got {_type_name(data)}")
    _unknown_keys(data, TOP_KEYS, "")
    _expect(
        "model" in data,
        "model",
        'missing; expected "path/to/file.py:Name" or "package.module:Name"',
    )
    model = data["model"]
    _expect(
        isinstance(model, str) and bool(MODEL_RE.match(model)),
        "model",
        f'expected "path/to/file.py:Name" or "package.module:Name", got {json.dumps(model)}',
    )
    init = data.get("init", {})
    _expect(
        isinstance(init, dict),
        "init",
        f'expected {{"args": [...], "kwargs": {{...}}}}, got {_type_name(init)}',
    )
    _unknown_keys(init, ("args", "kwargs"), "init")
    init_args = _check_args(init.get("args", []), "init.args")
    init_kwargs = _check_kwargs(init.get("kwargs", {}), "init.kwargs")
    raw_inputs = data.get("inputs")
    inputs_given = raw_inputs is not None
    inputs = _check_args(raw_inputs, "inputs") if inputs_given else ()
    kwargs = _check_kwargs(data.get("kwargs", {}), "kwargs")

    variants: list[dict[str, Any]] = []
    raw_variants = data.get("variants", [])
    _expect(
        isinstance(raw_variants, list),
        "variants",
        f"expected an array, got {_type_name(raw_variants)}",
    )
    for i, var in enumerate(raw_variants):
        vp = _join("variants", i)
        _expect(
            isinstance(var, dict),
            vp,
            f'expected an object with "inputs" and/or "kwargs", got {_type_name(var)}',
        )
        _unknown_keys(var, VARIANT_KEYS, vp)
        _expect(
            "inputs" in var or "kwargs" in var,
            vp,
            'a variant needs "inputs" and/or "kwargs"',
        )
        name = var.get("name", f"variant {i}")
        _expect(isinstance(name, str), _join(vp, "name"), "expected a string")
        entry: dict[str, Any] = {"name": name}
        if "inputs" in var:
            entry["inputs"] = list(_check_args(var["inputs"], _join(vp, "inputs")))
        if "kwargs" in var:
            entry["kwargs"] = _check_kwargs(var["kwargs"], _join(vp, "kwargs"))
        calls = var.get("calls", 1)
        _expect(_is_int(calls) and calls >= 1, _join(vp, "calls"), "expected a positive integer")
        entry["calls"] = calls
        variants.append(entry)

    dynamic: list[dict[str, Any]] = []
    raw_dyn = data.get("dynamic", [])
    if isinstance(raw_dyn, dict):  # {"x": [0], "0": [0, 1]}
        raw_dyn = [{"input": k, "dims": d} for k, d in raw_dyn.items()]
    _expect(
        isinstance(raw_dyn, list),
        "dynamic",
        f'expected an array of {{"input", "dims"}}, got {_type_name(raw_dyn)}',
    )
    for i, d in enumerate(raw_dyn):
        dp = _join("dynamic", i)
        _expect(isinstance(d, dict), dp, 'expected {"input": name or index, "dims": [...]}')
        _unknown_keys(d, ("input", "dims"), dp)
        inp = d.get("input")
        if isinstance(inp, str) and inp.isdigit():
            inp = int(inp)
        _expect(
            _is_int(inp) or (isinstance(inp, str) and inp.isidentifier()),
            _join(dp, "input"),
            "expected an input index or a keyword name",
        )
        if _is_int(inp):
            _expect(
                0 <= inp < len(inputs) or not inputs_given,
                _join(dp, "input"),
                f"no positional input {inp} (inputs has {len(inputs)})",
            )
        dims = d.get("dims", [0])
        _expect(
            isinstance(dims, list) and all(_is_int(x) for x in dims),
            _join(dp, "dims"),
            "expected an array of dimension indices",
        )
        dynamic.append({"input": inp, "dims": dims})

    mode = data.get("mode")
    _expect(
        mode is None or mode in MODES,
        "mode",
        f"unknown mode {json.dumps(mode)}; expected one of eval, train",
    )
    device = data.get("device", "cpu")
    _expect(
        isinstance(device, str) and device.split(":")[0] in DEVICES,
        "device",
        f"unknown device {json.dumps(device)}; expected one of {', '.join(DEVICES)}",
    )
    seed = data.get("seed", 0)
    _expect(_is_int(seed), "seed", f"expected an integer, got {_type_name(seed)}")
    calls = data.get("calls", 1)
    _expect(_is_int(calls) and calls >= 1, "calls", "expected a positive integer")
    memory_mb = data.get("memory_mb")
    _expect(
        memory_mb is None or (_is_int(memory_mb) and memory_mb >= 0),
        "memory_mb",
        f"expected a number of MiB (0: no limit), got {json.dumps(memory_mb)}",
    )

    comp = data.get("compile", {})
    _expect(isinstance(comp, dict), "compile", f"expected an object, got {_type_name(comp)}")
    _unknown_keys(comp, COMPILE_KEYS, "compile")
    if "backend" in comp:
        _expect(isinstance(comp["backend"], str), "compile.backend", "expected a backend name")
    if comp.get("mode") is not None:
        _expect(isinstance(comp["mode"], str), "compile.mode", "expected a string or null")
    if "dynamic" in comp:
        _expect(
            comp["dynamic"] in (True, False, None),
            "compile.dynamic",
            "expected true, false or null",
        )
    if "fullgraph" in comp:
        _expect(isinstance(comp["fullgraph"], bool), "compile.fullgraph", "expected true or false")
    if "options" in comp:
        _expect(isinstance(comp["options"], dict), "compile.options", "expected an object")

    config = data.get("config", {})
    _expect(
        isinstance(config, dict),
        "config",
        f"expected an object of torch._dynamo.config overrides, got {_type_name(config)}",
    )
    for k, v in config.items():
        _expect(
            isinstance(k, str) and bool(re.match(r"^[A-Za-z_]\w*$", k)),
            _join("config", k),
            "expected a torch._dynamo.config option name",
        )
        _expect(
            v is None or isinstance(v, (bool, int, float, str, list)),
            _join("config", k),
            f"expected a JSON scalar or array, got {_type_name(v)}",
        )

    return Spec(
        model=model,
        init_args=init_args,
        init_kwargs=init_kwargs,
        inputs=inputs,
        kwargs=kwargs,
        inputs_given=inputs_given,
        variants=tuple(variants),
        dynamic=tuple(dynamic),
        mode=mode,
        device=device,
        seed=seed,
        compile=dict(comp),
        config=dict(config),
        calls=calls,
        memory_mb=memory_mb,
        source=source,
    )


def load_spec(path: str) -> Spec:
    """Read and validate a spec file; :class:`SpecError` names the problem on one line."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise SpecError("", f"cannot read spec {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(
            "", f"cannot read spec {path}: not UTF-8 (byte {exc.start}: {exc.reason})"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError("", f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise SpecError("", f"{path}: invalid JSON: nested too deep") from None
    try:
        return validate(data, source=os.path.abspath(path))
    except RecursionError:  # pragma: no cover - check_value stops at MAX_DEPTH first
        raise SpecError("", f"{path}: nested too deep") from None


def schema_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec.schema.json")


# --------------------------------------------------------------------------- spec init

_TOKEN_NAMES = ("ids", "input_ids", "tokens", "token_ids", "labels", "idx", "indices", "targets")
_MASK_NAMES = ("mask", "attention_mask", "padding_mask", "key_padding_mask")


def _find_source(target: str, cwd: str) -> str:
    if target.endswith(".py") or "/" in target or os.sep in target:
        path = target if os.path.isabs(target) else os.path.join(cwd, target)
        if os.path.isfile(path):
            return path
        raise SpecError("model", f"file not found: {target}")
    rel = target.replace(".", os.sep)
    for base in (cwd, *[p for p in __import__("sys").path if p]):
        for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
            if os.path.isfile(cand):
                return cand
    raise SpecError("model", f"cannot find module {target} (looked on sys.path, not importing it)")


def _ann_text(node: Any) -> str:
    import ast

    return ast.unparse(node) if node is not None else ""


def _guess_value(name: str, annotation: str, default: Any, has_default: bool) -> Any:
    ann = annotation.replace("torch.", "").replace(" ", "")
    lname = name.lower()
    if "Tensor" in ann or (not ann and not has_default):
        if lname in _MASK_NAMES or lname.endswith("_mask"):
            return {"tensor": [2, 16], "dtype": "bool"}
        if lname in _TOKEN_NAMES or lname.endswith("_ids"):
            return {"tensor": [2, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}
        return {"tensor": [2, 16], "dtype": "float32"}
    if has_default and (default is None or isinstance(default, (bool, int, float, str))):
        return default
    if ann.startswith("bool"):
        return False
    if ann.startswith("int"):
        return 1
    if ann.startswith("float"):
        return 1.0
    if ann.startswith("str"):
        return ""
    return None


def _params(fn: Any, skip_self: bool) -> list[tuple[str, str, Any, bool, bool]]:
    """(name, annotation, default, has_default, keyword_only) for a def's parameters."""
    import ast

    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    if skip_self and pos:
        pos = pos[1:]
    defaults: list[Any] = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = []
    for arg, d in zip(pos, defaults[-len(pos) :] if pos else []):
        val = ast.literal_eval(d) if d is not None and _is_literal(d) else None
        out.append((arg.arg, _ann_text(arg.annotation), val, d is not None, False))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        val = ast.literal_eval(d) if d is not None and _is_literal(d) else None
        out.append((arg.arg, _ann_text(arg.annotation), val, d is not None, True))
    return out


def _is_literal(node: Any) -> bool:
    import ast

    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def init_spec(target: str, cwd: str | None = None) -> dict[str, Any]:
    """A starter spec for ``file.py:Name`` / ``pkg.mod:Name`` from the source, never importing it.

    Tensors get a guessed shape ``[2, 16]`` (token ids and masks by parameter name); required
    constructor arguments get values from their annotations. Edit the shapes before use.
    """
    import ast

    m = MODEL_RE.match(target)
    if not m:
        raise SpecError(
            "model", f'expected "path/to/file.py:Name" or "package.module:Name", got "{target}"'
        )
    cwd = cwd or os.getcwd()
    path = _find_source(m.group("target"), cwd)
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise SpecError("model", f"cannot parse {path}: {exc}") from None
    name = m.group("name").split(".")[-1]
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == name
        ),
        None,
    )
    if node is None:
        raise SpecError("model", f"{m.group('target')} defines no class or function {name!r}")
    spec: dict[str, Any] = {"model": target}
    init_kwargs: dict[str, Any] = {}
    inputs: list[Any] = []
    kwargs: dict[str, Any] = {}
    if isinstance(node, ast.ClassDef):
        methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        init = methods.get("__init__")
        if init is not None:
            for pname, ann, default, has_default, _kw in _params(init, True):
                if not has_default:
                    init_kwargs[pname] = _guess_value(pname, ann, default, has_default)
        fwd = methods.get("forward")
        if fwd is not None:
            for pname, ann, default, has_default, kw in _params(fwd, True):
                if has_default:
                    continue
                if kw:
                    kwargs[pname] = _guess_value(pname, ann, default, has_default)
                else:
                    inputs.append(_guess_value(pname, ann, default, has_default))
        else:
            spec["description"] = f"{name} defines no forward(); fill in inputs by hand"
    else:
        for pname, ann, default, has_default, _kw in _params(node, False):
            if not has_default:
                init_kwargs[pname] = _guess_value(pname, ann, default, has_default)
        spec["description"] = (
            f"{name} is a factory: it must return a module (or a module and its inputs); "
            "fill in inputs by hand"
        )
    if init_kwargs:
        spec["init"] = {"args": [], "kwargs": init_kwargs}
    spec["inputs"] = inputs
    if kwargs:
        spec["kwargs"] = kwargs
    if isinstance(node, ast.ClassDef):
        spec["mode"] = "eval"  # a factory's model keeps the mode it returns
    spec.update({"device": "cpu", "seed": 0, "variants": []})
    spec["compile"] = {"backend": "inductor", "dynamic": None, "fullgraph": False}
    spec["config"] = {}
    validate(spec)  # a starter spec must itself be valid
    return spec
