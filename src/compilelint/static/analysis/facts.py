"""Per-file facts: what phase 1 learns from one file, as plain serialisable data.

Phase 1 (one parse, one walk per file, parallel and cached) produces :class:`FileFacts`.
Phase 2 (:mod:`compilelint.static.analysis.project`) joins the facts of every scanned file to
decide which functions torch.compile traces and which values are tensors, then keeps only the
candidate findings whose conditions hold.

Values are abstract values of :mod:`values` (plain tuples, so facts stay marshal-friendly).
A *taint* is the set of sources under which a value is a tensor (:func:`values.sources`), what a
candidate finding ``requires``; sources are strings:

- ``"T"``                       definitely a tensor
- ``"P|<func>|<param>"``        the value of a parameter of function ``<func>`` of this file
- ``"R|<ref>"``                 the return value of a call to a scanned function ``<ref>``
- ``"A|<class>|<attr>"``        the attribute ``self.<attr>`` of class ``<class>`` of this file

each optionally followed by an element path (``@0``, ``@*``; see :mod:`values`).

Function refs (strings):

- ``"Q|<qual>"``                a function or class of this file by qualified name
- ``"M|<class>|<name>"``        ``self.<name>`` in a method of ``<class>`` (looked up on its MRO)
- ``"S|<class>|<name>"``        ``super().<name>`` in ``<class>``
- ``"D|<dotted>"``              an imported dotted name, e.g. ``pkg.utils.helper``
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Value = tuple[Any, ...]  # see compilelint.static.analysis.values

Taint = frozenset[str]
NO_TAINT: Taint = frozenset()
TENSOR: Taint = frozenset({"T"})


@dataclass
class ParamFacts:
    name: str
    index: int  # position (-1 for keyword-only, -2 for *args, -3 for **kwargs)
    annotation: (
        # "tensor" | "nontensor" | "named" (an alias or class) | "unknown" | "container" |
        # "object" (a class torch defines that is no tensor: ``transform: Transform`` with
        # ``Transform`` from ``torch.distributions``)
        str
    )
    default: str  # "none" | "nodefault" | "literal" | "other"
    # the default's Python value when it is a literal or None (``[value]``), else ``[]``
    literal: list[object] = field(default_factory=list)
    # the body calls a method on it that only a tensor has (``n.max()``, ``n.sum()``, not a
    # method of a Python number, string or container): a tensor whatever its name reads like
    tensor_use: bool = False


# ``CallSite.fwd`` key of the enclosing function's ``**kwargs`` parameter passed on unchanged
KWARGS_SLOT = "**"


@dataclass
class CallSite:
    ref: str
    args: list[Value]  # value of each positional argument
    kwargs: dict[str, Value]
    in_loop: bool
    line: int = 0  # position of the call (anchors findings followed into other files)
    col: int = 0
    star: bool = False  # the call unpacks *args or **kwargs: positions and keywords are unknown
    # the call unpacks only ``**kwargs``: its positional arguments and explicit keywords are
    # exact, only the parameters it leaves to the dict are unknown
    kwstar: bool = False
    # ``REGISTRY[key](...)`` whose ``key`` is a parameter of the enclosing function: the site
    # stands for the registry entry ``[param, entry key, param's literal default or None,
    # what a None key becomes]`` (JSON), so that it is dropped when no caller passes that key
    # (see ``follow``); the last is the literal the function itself binds under ``if param is
    # None``, or ``[helper ref, argument slot, tuple index]`` of a checking helper it is passed
    # to and unpacked from (the helper's ``none_literals``), or null
    guard: str = ""
    # conditions on the enclosing function's parameters under which the call runs (see
    # :func:`~compilelint.static.analysis.conds.parse`): dropped when callers' values refute one
    conds: list[str] = field(default_factory=list)
    # arguments that pass one of the enclosing function's own parameters on unchanged
    # (``ignore_index=ignore_index``): position (``"0"``) or keyword -> ``P|<func>|<param>``,
    # so that the callee's parameter holds what the caller's callers give (call-site values)
    # (``KWARGS_SLOT``: the enclosing function's own ``**kwargs`` parameter, passed on
    # unchanged as the call's ``**`` argument: a keyword the call leaves to it)
    fwd: dict[str, str] = field(default_factory=dict)
    # arguments (position as a string, or keyword) that are a name the enclosing loop binds
    # again after the call: a loop-carried value, what the next iteration passes differs
    carried: list[str] = field(default_factory=list)
    # in a branch whose test ``conds`` do not describe in full (``if isinstance(h, Tensor):``,
    # an ``except`` handler): not every call of the function runs it (``CalleeBreaks.surely``)
    branch: bool = False
    # arguments (position as a string, or keyword) whose expression never gives ``None``
    # (arithmetic, a comparison, ``len(...)``, an f-string): certainly not ``None`` whatever
    # their operands hold (``minlength=4 * num_labels``)
    never_none: list[str] = field(default_factory=list)
    # the call's only ``**`` argument is a local bound only to dicts of literal keys (one per
    # binding, their values): it passes the keys of one of them, a parameter none of them
    # holds keeps its default (``spline_fn(**spline_kwargs)`` after ``spline_kwargs = {}`` /
    # ``= {"tails": self.tails}``)
    kwalts: list[dict[str, Value]] = field(default_factory=list)
    # arguments that pass one of the enclosing function's own parameters re-bound only under
    # conditions (``if exists(lens): mask = lens_to_mask(...)``, then ``f(mask=mask)``):
    # position or keyword -> ``[P|<func>|<param>, the guards of its re-bindings]``
    # (:func:`~compilelint.static.analysis.conds.guarded`): the caller's callers' values where
    # every re-binding is dead code there, else the argument's own value
    gfwd: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class FunctionFacts:
    qual: str  # "Class.method", "func", "func.<locals>.inner"
    name: str
    cls: str | None  # enclosing class qualname for methods
    line: int
    params: list[ParamFacts]
    compiled: bool = False  # decorated with torch.compile / torch._dynamo.optimize
    # decorated with torch.compiler.disable / torch._dynamo.disable, or a forward that a class
    # decorator replaces: never a root, and reachability does not enter it
    disabled: bool = False
    calls: list[CallSite] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)  # functions referenced without a call
    # functions a parameter's default names (``reduce_fn: Callable = _recall_at_precision``):
    # param -> ref; reached only by a call that leaves the parameter out (or a root's)
    default_refs: dict[str, str] = field(default_factory=dict)
    # an ``__init__`` that stores a bound method of the object on it (``self.g = self._zero``,
    # ``self.f = getattr(sde, "f", self.f_default)``): torch cannot rebuild such an object,
    # built while tracing, to resume a frame that holds it
    binds_own_method: bool = False
    # values of its return statements (in terms of its own P| sources): the summary is their join
    returns: list[Value] = field(default_factory=list)
    has_loop_break_risk: bool = False
    # decorators that may wrap it, as call sites of the decorator (or decorator factory) at the
    # decorator's line: torch.compile traces the wrapper closure the decorator returns
    decorators: list[CallSite] = field(default_factory=list)
    # nested defs it returns by name (``return wrapper``), and those whose call it returns
    # (``return wrapped_fn(func)``): how a decorator's returned closure is found
    returned_defs: list[str] = field(default_factory=list)
    returned_calls: list[str] = field(default_factory=list)
    # refs of the module-level names it returns (``return Euler``): a factory's classes
    returned_names: list[str] = field(default_factory=list)
    # parameters re-bound to a literal when they are None (``if method is None: method =
    # "dopri5"``, the parameter's only other binding): param -> that literal
    none_literals: dict[str, object] = field(default_factory=dict)
    # calls a parameter of an enclosing function (``func(*args, **kwargs)`` in a wrapper)
    calls_closure_param: bool = False
    # the first such call: the enclosing function's parameter it calls and the call's line (a
    # wrapper compiled as a frame for several functions guards on that parameter there)
    closure_call: list[Any] = field(default_factory=list)
    # where its parameters meet dynamo's guards: ``[param, kind, line, op, literal]`` rows
    # (see :mod:`compilelint.static.analysis.guards`)
    guards: list[list[Any]] = field(default_factory=list)
    # parameters it uses as what a tensor is not, before assigning them: an attribute
    # ``torch.Tensor`` lacks (``sde.noise_type``) or a size (``torch.zeros(n)``, ``range(n)``);
    # a library-mode entry point's such parameter is not taken for a tensor input
    object_params: list[str] = field(default_factory=list)
    # a checking helper that hands parameters back (``return shapes, func, ..., event_fn``):
    # tuple position -> [its parameter returned there by every return statement, the guards
    # of that parameter's re-bindings before them (``conds.guarded``)]
    passes: dict[str, list[Any]] = field(default_factory=dict)
    # ``[line, col, conds]`` of its calls on objects the walk does not resolve
    # (``solver.integrate_until_event(...)`` under ``if event_fn is not None:``), for the call
    # sites through objects that library mode adds later (``dispatch.add_object_calls``)
    call_conds: list[list[Any]] = field(default_factory=list)


@dataclass
class ClassFacts:
    qual: str
    name: str
    bases: list[str]  # each a ref ("L|<module>|Name" or "D|dotted")
    methods: list[str]
    attrs: dict[str, list[Value]]  # self.<attr> -> values assigned to it
    # self.<attr> -> refs of classes instantiated into it; "*<ref>": repeated instances of <ref>
    # held by a container module (nn.ModuleList([Block() for _ in range(n)]))
    attr_classes: dict[str, list[str]]
    line: int = 0
    # self.<attr> -> one entry per assignment in the class's methods: ``["P", param]`` when it
    # assigns a parameter of ``__init__`` not yet re-bound, ``["L", value]`` a literal, else
    # ``[]`` (so that a value assigned once can be told from one assigned again)
    attr_stores: dict[str, list[list[object]]] = field(default_factory=dict)


@dataclass
class Candidate:
    """A finding predicted by a check, kept in phase 2 if its conditions hold."""

    code: str
    func: str  # enclosing function qualname ("" at module level)
    line: int
    col: int
    end_line: int
    end_col: int
    requires: list[str]  # taint that must resolve to a tensor; empty: unconditional
    args: dict[str, str]  # message placeholders
    scope: str  # "traced": only in traced code; "any": anywhere
    in_loop: bool = False
    line_text: str = ""
    conds: list[str] = field(default_factory=list)  # as ``CallSite.conds``


# ``Candidate.args`` key of a candidate in a branch whose test its ``conds`` do not describe in
# full (an ``except`` handler, ``if isinstance(h, Tensor):``): not every call reaches it
BRANCH = "in_branch"
# ``Candidate.args`` key of a candidate inside a ``try:`` body of its function: a break there
# ends the frame's tracing (torch 2.13 cannot resume inside the ``try``: the rest of the
# function runs eagerly, ``Project.kept``)
IN_TRY = "in_try"

# the rule of a method that breaks, called on an object the traced code built (torch cannot
# rebuild it to resume the caller's frame: "Reconstruction failure"); its candidates' ``via``
# is AT_CALL: the object calls (``O|...`` call sites) recorded at the candidate's own position
REBUILT = "CL116"
AT_CALL = "@"
# the rule of a call given a generator the traced code built, whose callee breaks (torch cannot
# rebuild the generator to resume the caller's frame: "Generator reconstruction with
# mutations"); its candidates' ``via`` is AT_CALL too, over every call recorded at the position
GENERATOR_ARG = "CL118"
# rules whose break is decided by the callee's breaks and after which the frame runs eagerly
# the rule of a call whose callee breaks in a frame that holds, live after the call, an object
# it built whose ``__init__`` stores a bound method of the object; its ``via`` is AT_CALL too
HELD_OBJECT = "CL119"
REBUILD_CODES = frozenset({REBUILT, GENERATOR_ARG, HELD_OBJECT})
# breaks torch 2.13 cannot resume after ("Encountered graph break that we cannot resume from
# ... skipping the rest of the function"): a tensor read as a slice bound (``x[:i]`` calls
# ``Tensor.item()`` inside ``BUILD_SLICE``/``BINARY_SUBSCR``, no resume point), unlike a boolean
# mask or an integer tensor index (resumed after). The function's later lines run eagerly.
# Python arithmetic on a drawn number (CL121, GB0213) the same ("skipping the rest of the frame");
# an `nn.RNN`/`GRU`/`LSTM` call (CL510, GB0014: "Failed to handle graph break gracefully.
# Skipping the function and falling back to eager"): the rest of the function holding the call
UNRESUMABLE_CODES = frozenset({"CL113", "CL121", "CL510"})
EAGER_REST_CODES = REBUILD_CODES | UNRESUMABLE_CODES


@dataclass
class FileFacts:
    path: str
    module: str  # dotted module name guessed from packages ("" if unknown)
    is_package: bool
    lines: int
    imports: dict[str, str]  # local name -> dotted target
    functions: dict[str, FunctionFacts]
    classes: dict[str, ClassFacts]
    compiled_refs: list[str]  # refs passed to torch.compile(...) / .compile()
    candidates: list[Candidate]
    # refs of the functions this module registers with ``allow_in_graph`` when imported (at
    # module level, or in a function the module calls at module level): graph ops
    graph_op_refs: list[str] = field(default_factory=list)
    error: str | None = None  # parse/read error (becomes CL000)
    error_line: int = 1
    error_col: int = 1
    torch_free: bool = False  # skipped by the pre-filter (no "torch" in the text)
    # refs the module calls under ``if __name__ == "__main__":`` (running the file as a
    # script): not the package's API, so never a library-mode entry point
    script_refs: list[str] = field(default_factory=list)
    # the module's ``__all__`` (literal names; None: none, or computed): its public names
    all_names: list[str] | None = None
    noqa: dict[int, list[str]] = field(default_factory=dict)  # line -> suppressed codes
