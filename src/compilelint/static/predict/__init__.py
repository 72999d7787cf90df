"""Predict, without torch, what torch.compile will do with the spec's calls: graphs, breaks and
recompiles.

A consumer of the shared analyses: the project view (reachability from the spec's entry,
:mod:`compilelint.static.analysis.project`), the findings kept from it (break predictions), and
the guard facts phase 1 records per function (:mod:`compilelint.static.analysis.guards`). It
never imports torch or the model; the spec is read by :mod:`compilelint.dynamic.spec` (pure).

**Recompiles** are simulated the way dynamo's cache works (torch 2.13): the first call compiles
an entry guarded on what it read; each later call runs the newest entry whose guards pass, else
recompiles (the reason torch reports is the newest entry's first failing guard), until the
recompile limit (8) sends the frame to eager. The guards per argument mirror dynamo's variable
trackers:

- ``str``, ``bool``: ``ConstantVariable``, guarded on the value: each new value recompiles;
- ``None`` vs a tensor: guarded on ``is None``;
- ``int``, ``float``: guarded on the value on the first compile; a different value recompiles
  once and automatic dynamic shapes makes it a symbol, unless a use needs the constant
  (``range(n)``, a ``torch.nn.functional`` normalisation/dropout/interpolation): then every
  new value recompiles. A branch on a symbolic number guards on the branch's outcome; ints 0 and
  1 stay specialised;
- tensors: guarded on dtype and every size; the first size change recompiles once and marks the
  dim dynamic (``tensor 'x' size mismatch at index 1``);
- module state changed in traced code (CL501: an int counter, a list that grows) changes on
  every call: every call recompiles (``self.step == 3``, ``len(self.cache) == 2``);
- a Python number read from a tensor at a break (``.item()``, CL103) is an input of the resume
  function: new data recompiles it once, then the float is symbolic.

**Graphs** of the first call (what ``dynamic.graph_count`` counts): the entry frame makes one
graph, plus one per break on its path (dynamo compiles up to the break and resumes after it). A
break inside a ``for`` loop of the frame being compiled makes dynamo give up on that frame
(torch 2.13: "graph break in for loop" skips the frame): it runs eagerly, and the user
functions and modules it calls are compiled as frames of their own. A break in a called user
function (not in a loop) breaks the caller at the call, and the callee, run from the resume, is
compiled as its own frame.


The package, one module per concern (docs/static.md, "Predicting graphs and recompiles"):

- :mod:`.prediction`: the types and the spec's calls as abstract values;
- :mod:`.reach`: the spec's entry, what it reaches, the break sites;
- :mod:`.graphs`: the graph count of the first call;
- :mod:`.recompiles`: one module per guard torch installs (``inputs``, ``numbers``, ``sizes``,
  ``loops``, ``state``, ``globals``);
- :mod:`.findings`: the recompiles without a spec and as ``CL303`` findings;
- :mod:`.entry`: :func:`predict`.

This module re-exports what the engine, the API, the dynamic stage, tests and benchmarks import.
"""

from __future__ import annotations

from compilelint.static.analysis.trees import function_node as _function_node
from compilelint.static.analysis.trees import surely_runs as _surely_runs
from compilelint.static.predict.entry import predict
from compilelint.static.predict.findings import (
    _RECOMPILE_RULES,
    PREDICTED_RECOMPILE,
    recompile_findings,
    spec_decided,
    spec_free_recompiles,
)
from compilelint.static.predict.graphs import graph_count, graphless_lines, graphless_tail
from compilelint.static.predict.prediction import (
    _SELF_ATTR,
    RECOMPILE_LIMIT,
    Abstract,
    BreakSite,
    PredictedRecompile,
    Prediction,
    abstract,
    spec_calls,
)
from compilelint.static.predict.reach import break_sites, find_entry, reachable
from compilelint.static.predict.recompiles.globals import global_state
from compilelint.static.predict.recompiles.inputs import _bound_attr_branches, predict_recompiles
from compilelint.static.predict.recompiles.loops import guarding_read
from compilelint.static.predict.recompiles.numbers import (
    number_break,
    number_breaks,
    number_guard_lines,
    settled_numbers,
    value_use_line,
)
from compilelint.static.predict.recompiles.sizes import settled_sizes
from compilelint.static.predict.recompiles.state import (
    _float_state_applies,
    dict_state,
    first_read,
    float_state,
    grown_tensors,
    submodule_state,
)

__all__ = [
    "PREDICTED_RECOMPILE",
    "RECOMPILE_LIMIT",
    "_RECOMPILE_RULES",
    "_SELF_ATTR",
    "Abstract",
    "BreakSite",
    "PredictedRecompile",
    "Prediction",
    "_bound_attr_branches",
    "_float_state_applies",
    "_function_node",
    "_surely_runs",
    "abstract",
    "break_sites",
    "dict_state",
    "find_entry",
    "first_read",
    "float_state",
    "global_state",
    "graph_count",
    "graphless_lines",
    "graphless_tail",
    "grown_tensors",
    "guarding_read",
    "number_break",
    "number_breaks",
    "number_guard_lines",
    "predict",
    "predict_recompiles",
    "reachable",
    "recompile_findings",
    "settled_numbers",
    "settled_sizes",
    "spec_calls",
    "spec_decided",
    "spec_free_recompiles",
    "submodule_state",
    "value_use_line",
]
