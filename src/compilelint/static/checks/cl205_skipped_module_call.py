"""CL205: calls into standard-library functions that dynamo skips or cannot trace."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

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
    }
)
# Lock types: ``with <lock>:`` is a context manager dynamo does not support (GB0142).
_LOCKS = frozenset(
    {"threading.Lock", "threading.RLock", "threading.Semaphore", "threading.Condition"}
)
# ``contextvars.ContextVar`` methods: dynamo cannot call them (GB "Unsupported method call").
_CONTEXTVARS = frozenset({"contextvars.ContextVar"})
_CONTEXTVAR_METHODS = frozenset({"get", "set", "reset"})
_BUILTINS = frozenset({"open", "input"})


class SkippedModuleCall(Check):
    CODE = "CL205"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
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
            and self._holds(func.value, _CONTEXTVARS)
        ):
            self.report(node, func=f"{self.code(func.value)}.{func.attr.value}() (a ContextVar)")

    def _holds(self, expr: cst.BaseExpression, kinds: frozenset[str]) -> bool:
        """Whether ``expr`` holds an object made by one of ``kinds`` (a local, a module-level
        variable or ``self.<attr>`` assigned ``threading.Lock()``, ``ContextVar(...)``...)."""
        value = self.w.value(expr)
        if isinstance(expr, cst.Name) and self.w.lookup(expr.value) is None:
            # a module-level variable read in a method (class bodies do not see module scope)
            value = self.w.module_scope.env.get(expr.value, value)
        for m in V.members(value):
            if m[0] != "Y":
                continue
            src = m[1]
            if src.startswith("R|D|") and src[4:] in kinds:
                return True
            if src.startswith("A|"):
                cq, _, attr = src[2:].rpartition("|")
                cf = self.w.classes.get(cq)
                for v in cf.attrs.get(attr, ()) if cf is not None else ():
                    if any(x[0] == "Y" and x[1][4:] in kinds for x in V.members(v)):
                        return True
        return False

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if self._holds(item.item, _LOCKS):
                self.report(item.item, func=f"with {self.code(item.item)}")
