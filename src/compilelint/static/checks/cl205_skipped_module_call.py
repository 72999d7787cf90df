"""CL205: calls into standard-library functions that dynamo skips or cannot trace."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedTable

# Each verified to break the graph on torch 2.13 (see the rule's catalogue entry). Functions
# that dynamo traces (os.getenv, os.environ.get, os.path.join, sys.exc_info, inspect.signature,
# importlib.util.find_spec, ...) are deliberately absent.
SKIPPED = frozenset(
    {
        # time: C builtins dynamo marks as skipped
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "time.sleep",
        # os / os.path: file system and process queries
        "os.getpid",
        "os.getcwd",
        "os.listdir",
        "os.cpu_count",
        "os.makedirs",
        "os.mkdir",
        "os.remove",
        "os.path.exists",
        "os.path.isfile",
        "os.path.isdir",
        "os.path.getsize",
        "os.system",
        # sys
        "sys.getsizeof",
        "sys.getrefcount",
        "sys.stdout.write",
        "sys.stdout.flush",
        "sys.stderr.write",
        "sys.stderr.flush",
        # inspect / importlib: frame introspection and imports
        "inspect.currentframe",
        "inspect.stack",
        "inspect.getsource",
        "importlib.import_module",
        # I/O, processes, sockets, serialisation
        "io.StringIO",
        "io.BytesIO",
        "subprocess.run",
        "subprocess.check_output",
        "subprocess.Popen",
        "subprocess.call",
        "socket.gethostname",
        "pickle.dumps",
        "pickle.loads",
        "pickle.dump",
        "pickle.load",
        "json.dumps",
        "json.loads",
        "json.dump",
        "json.load",
        # other runtime services
        "random.random",
        # the `random` module's other draws: pure-Python functions over `random()` (or C
        # methods, `getrandbits`) that dynamo skips; it traces only `uniform`, `randint` and
        # `randrange` itself (torch 2.13: "Attempted to call function marked as skipped")
        "random.choice",
        "random.choices",
        "random.sample",
        "random.shuffle",
        "random.gauss",
        "random.normalvariate",
        "random.lognormvariate",
        "random.expovariate",
        "random.betavariate",
        "random.gammavariate",
        "random.triangular",
        "random.getrandbits",
        # serialisation to a file
        "torch.save",
        "datetime.datetime.now",
        "uuid.uuid4",
        "threading.Lock",
        "gc.collect",
        "glob.glob",
        "shutil.which",
        "warnings.simplefilter",
        "warnings.filterwarnings",
        # C extension functions dynamo cannot trace ("Failed to trace builtin operator")
        "zlib.crc32",
        # hashing: C constructors dynamo skips ("Attempted to call function marked as
        # skipped", then "Unsupported method call" at `.hexdigest()`)
        "hashlib.md5",
        "hashlib.sha1",
        "hashlib.sha256",
        "hashlib.sha512",
        # `heapq`'s selections: pure-Python functions over the C `_heapq` helpers
        # (`_heapify_max`, `heapify`), which dynamo skips whatever the items are (torch 2.13:
        # GB0007 in a module's `forward`, for Python numbers too; GB0207 where `n` is at least
        # the number of items, as `sorted`)
        "heapq.nlargest",
        "heapq.nsmallest",
        # torch functions dynamo itself marks as skipped or cannot trace (torch 2.13): packed
        # sequences ("Attempted to call function marked as skipped", GB0007) and sparse
        # tensors (GB0007 for the COO constructor, "Sparse tensor creation not supported" for
        # CSR; the sparse tensor a resume function then gets is not traced either)
        "torch.nn.utils.rnn.pack_padded_sequence",
        "torch.nn.utils.rnn.pack_sequence",
        "torch.sparse_coo_tensor",
        "torch.sparse_csr_tensor",
        # nested tensors: the constructor does not run on fake tensors (GB0090, "Operator does
        # not support running with fake tensors"); the nested tensor it makes then reaches the
        # resume function, which cannot take it either (GB0016)
        "torch.nested.nested_tensor",
        "torch.nested.as_nested_tensor",
        # the CPU generator's state (GB0007: C functions dynamo marks as skipped)
        "torch.get_rng_state",
        "torch.set_rng_state",
        "torch.random.get_rng_state",
        "torch.random.set_rng_state",
        # a checkpointed Sequential (GB0007; `checkpoint` itself is traced)
        "torch.utils.checkpoint.checkpoint_sequential",
        # autograd's functional API takes a Python callable torch cannot put in a graph
        # (GB0055, "Failed to convert args/kwargs to proxy"; `torch.func` is traced)
        "torch.autograd.functional.jacobian",
        "torch.autograd.functional.hessian",
        "torch.autograd.functional.vjp",
        # torch.testing's comparisons: `assert_close` branches on the comparison's result
        # (GB0170, "Data-dependent branching"), `assert_allclose` is skipped (GB0007)
        "torch.testing.assert_close",
        "torch.testing.assert_allclose",
        # tqdm's bars: the constructor takes locks and weak references dynamo skips (GB0007,
        # GB0008 at the loop `for _ in tqdm(...)`, for a disabled bar too; torch 2.13)
        "tqdm.tqdm",
        "tqdm.trange",
        "tqdm.auto.tqdm",
        "tqdm.auto.trange",
        "tqdm.std.tqdm",
        "tqdm.std.trange",
        "tqdm.notebook.tqdm",
        "tqdm.notebook.trange",
        # scipy's KD-trees: classes of a compiled extension (`scipy.spatial._ckdtree`),
        # constructed and queried by C code dynamo cannot trace (GB0156 "Unsupported method
        # call" at the constructor and at each method call, see _OPAQUE)
        "scipy.spatial.cKDTree",
        "scipy.spatial.KDTree",
    }
)
# Tensor methods dynamo cannot trace, on a tensor: a sparse copy (GB0277, "Attempted to wrap
# sparse Tensor with VariableTracker") and per-element Python callables (GB0055).
# In-place resizing (GB0148, "Unsupported Tensor.resize_() call", also `resize_as_`).
_METHODS = frozenset({"to_sparse", "apply_", "map_", "resize_", "resize_as_"})
# Calls making a tensor of a layout dynamo cannot wrap (sparse, strided nested): the call
# itself breaks, and the resume function that follows gets the tensor as an input, which it
# cannot wrap either (GB0015 "Attempted to wrap sparse Tensor", GB0016 "... strided
# NestedTensor"): its first use breaks the graph again.
_LAYOUTS = {
    "torch.sparse_coo_tensor": "sparse",
    "torch.sparse_csr_tensor": "sparse",
    "to_sparse": "sparse",
    "torch.nested.nested_tensor": "nested",
    "torch.nested.as_nested_tensor": "nested",
}
# Lock types: ``with <lock>:`` is a context manager dynamo does not support (GB0142).
_LOCKS = frozenset(
    {"threading.Lock", "threading.RLock", "threading.Semaphore", "threading.Condition"}
)
# ``contextvars.ContextVar`` methods: dynamo cannot call them (GB "Unsupported method call").
_CONTEXTVARS = frozenset({"contextvars.ContextVar"})
_CONTEXTVAR_METHODS = frozenset({"get", "set", "reset"})
_BUILTINS = frozenset({"open", "input"})
# Objects of classes dynamo cannot trace whose every method call breaks (GB0156 "Unsupported
# method call"): a KD-tree's `query`, `query_ball_point`...
_OPAQUE = frozenset({"scipy.spatial.cKDTree", "scipy.spatial.KDTree"})
# Module classes whose ``forward`` lives in files dynamo skips: torch.ao's observers and fake
# quantizers (GB0008 "Attempted to inline function marked as skipped" where the module is
# called; torch 2.13, each checked as a submodule; `QuantStub`/`DeQuantStub` trace)
_AO = ("torch.ao.quantization.", "torch.quantization.")
_SKIPPED_MODULES = frozenset(
    {
        "FakeQuantize",
        "FusedMovingAvgObsFakeQuantize",
        "FixedQParamsFakeQuantize",
        "MinMaxObserver",
        "MovingAverageMinMaxObserver",
        "PerChannelMinMaxObserver",
        "MovingAveragePerChannelMinMaxObserver",
        "HistogramObserver",
    }
)


def _skipped_module(cls: str) -> bool:
    """Whether a module class (qualified) is one of torch.ao's observers or fake quantizers."""
    head, _, name = cls.rpartition(".")
    return name in _SKIPPED_MODULES and any((head + ".").startswith(p) for p in _AO)


class SkippedModuleCall(Check):
    CODE = "CL205"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        # names bound to a sparse or nested tensor (the kind, the call that made it and the
        # taint its finding requires)
        self._layouts: ScopedTable[tuple[str, str, Taint]] = ScopedTable(walker)

    def _layout_call(self, e: cst.BaseExpression) -> tuple[str, Taint] | None:
        """The layout of the tensor a call makes (and the taint its report requires)."""
        if not isinstance(e, cst.Call) or any(a.star for a in e.args):
            return None
        func = e.func
        q = self.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if q is not None and q in _LAYOUTS:
            return _LAYOUTS[q], NO_TAINT
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _LAYOUTS
            and (q is None or not q.startswith("torch."))
        ):
            recv = self.taint(func.value)
            if recv:
                return _LAYOUTS[func.attr.value], recv
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        made = self._layout_call(node.value)
        entry = None if made is None else (made[0], self.code(node.value, 40), made[1])
        for t in node.targets:
            self._layouts.put(t.target, entry)

    def _made_here(self, name: str) -> bool:
        """Whether the statement being walked binds ``name`` to the call that makes it
        (``s = s.to_sparse()``: that call's operands are not a use after the break)."""
        stmt = self.w.current_stmt
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
        return any(
            isinstance(a, cst.Assign)
            and any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)
            and self._layout_call(a.value) is not None
            for a in smalls
        )

    def _resumed_use(self, node: cst.CSTNode, operands: list[cst.BaseExpression]) -> None:
        """Report the first use of a sparse or nested tensor made by a breaking call earlier in
        the function: the resume function receives it and cannot wrap it."""
        for e in operands:
            if not isinstance(e, cst.Name):
                continue
            held = self._layouts.get(e.value)
            if held is None:
                continue
            if self._made_here(e.value):
                return  # `s = s.to_sparse()`: the statement that makes it
            kind, made, requires = held
            self._layouts.drop(e.value)
            self.report(
                node,
                requires=requires,
                func=(
                    f"{self.code(node, 40)} with {e.value} (a {kind} tensor from {made}: "
                    "the resume function after that break gets it and cannot wrap it)"
                ),
            )
            return

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._resumed_use(node, [node.left, node.right])

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._layouts:
            operands = [a.value for a in node.args]
            if isinstance(func, cst.Attribute):
                operands.append(func.value)
            self._resumed_use(node, operands)
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _METHODS
            and not any(a.star for a in node.args)
        ):
            recv = self.taint(func.value)
            q = self.qualify(func)
            if recv and (q is None or not q.startswith("torch.")):
                self.report(node, requires=recv, func=f"Tensor.{func.attr.value}")
                return
        if isinstance(func, cst.Name):
            name = func.value
            if name in _BUILTINS:
                if not self.w.shadowed(name):
                    self.report(node, func=f"{name}()")
                return
            if name not in self.w.imports:
                return
        elif not isinstance(func, cst.Attribute):
            return
        q = self.qualify(func)
        if q in SKIPPED:
            self.report(node, func=q)
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value in _CONTEXTVAR_METHODS
            and self.holds(func.value, _CONTEXTVARS)
        ):
            self.report(node, func=f"{self.code(func.value)}.{func.attr.value}() (a ContextVar)")
        elif isinstance(func, cst.Attribute) and self.holds(func.value, _OPAQUE):
            self.report(node, func=f"{self.code(func.value, 30)}.{func.attr.value}() (a KD-tree)")
        else:
            cls = self._module_class(func)
            if cls is not None:
                self.report(node, func=f"{self.code(func, 30)} (a {cls.rsplit('.', 1)[-1]} module)")

    def _module_class(self, func: cst.BaseExpression) -> str | None:
        """The torch.ao observer or fake-quantizer class of a called module (``self.act_fq =
        FakeQuantize(...)`` in ``__init__``, then ``self.act_fq(x)``), or None."""
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        for m in V.members(self.w.value(func)):
            if m[0] == "M" and isinstance(m[1], str) and _skipped_module(m[1]):
                return m[1]
            if m[0] == "Y" and isinstance(m[1], str) and m[1].startswith("A|"):
                _, cq, attr = m[1].split("|", 2)
                facts = self.w.classes.get(cq)
                for a in facts.attrs.get(attr, ()) if facts is not None else ():
                    for am in V.members(a):
                        if am[0] == "M" and isinstance(am[1], str) and _skipped_module(am[1]):
                            return am[1]
        return None

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if self.holds(item.item, _LOCKS):
                self.report(item.item, func=f"with {self.code(item.item)}")
