"""CL510: calling an ``nn.LSTM``/``nn.GRU``/``nn.RNN`` module inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

# the classes dynamo refuses to wrap while ``torch._dynamo.config.allow_rnn`` is False (the
# default): ``isinstance(value, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM))`` in its builder
RNN_CLASSES = frozenset({"torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN"})


class RnnModuleCall(Check):
    CODE = "CL510"

    def visit_Call(self, node: cst.Call) -> None:
        """``self.lstm(x, state)`` where ``self.lstm = nn.LSTM(...)`` (or a local bound to
        such a module): dynamo breaks where it meets the module, at the call."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value  # self.lstm.forward(x)
        cls = sorted(self._rnn_classes(self.w.value(func)))
        if cls:
            self.report(node, module=self.code(func, 40), cls=cls[0].rsplit(".", 1)[-1])

    def _rnn_classes(self, v: V.Value) -> set[str]:
        """The RNN classes a value may be: a module value, or ``self.<attr>`` (``A|<class>|
        <attr>``) of a class of this file whose assignments include one."""
        out: set[str] = set()
        for m in V.members(v):
            if m[0] == "M" and isinstance(m[1], str) and m[1] in RNN_CLASSES:
                out.add(m[1])
            elif m[0] == "Y" and isinstance(m[1], str) and m[1].startswith("A|"):
                _, cls, attr = m[1].split("|", 2)
                facts = self.w.classes.get(cls)
                for a in facts.attrs.get(attr, ()) if facts is not None else ():
                    if a[0] == "M" and a[1] in RNN_CLASSES:
                        out.add(a[1])
        return out
