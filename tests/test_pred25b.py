"""New break forms from the fifth development set (issue 23, pred25b).

tqdm's bars, ``torch.testing.assert_close``, scipy's KD-trees (constructed, then queried),
``Tensor.resize_``, torch.ao's fake quantizers and observers called as submodules, a numpy
generator held on ``self``, a Python list indexed by the entry's tensor input, and the handle a
hook registration returns, used after the registration's break (GB0013). Each case is predicted
and run through torch (``run_dynamic``); the table is in docs/corpus.md (pred25b).
"""

from __future__ import annotations

from pathlib import Path

from tests.pred_helpers import case_tests, line_of, predicted_break_lines, torch_break_lines

HEAD = """import numpy as np
import torch
from torch import nn
from torch.ao.quantization import FakeQuantize, MinMaxObserver


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act_fq = FakeQuantize()
        self.obs = MinMaxObserver()
        self.rng = np.random.default_rng(0)
        self.sigmas = torch.linspace(1.0, 0.1, 5).tolist()
        self.captured = []

    def forward(self, x, i):
"""
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "tqdm_loop": (
        """        for _ in tqdm(range(2), disable=True):  # BRK1
            x = self.fc(x)
        return x
""",
        ("BRK1",),
    ),
    "assert_close": (
        """        y = self.fc(x)
        torch.testing.assert_close(self.fc(x.flip(0)).flip(0), y)  # BRK1
        return y
""",
        ("BRK1",),
    ),
    "kd_tree": (
        """        y = self.fc(x)
        tree = cKDTree(y.detach().numpy())  # BRK1
        _, nbr = tree.query(y.detach().numpy(), k=2)  # BRK2
        return y[torch.as_tensor(nbr)].mean(1)
""",
        ("BRK1", "BRK2"),
    ),
    "resize_": (
        """        y = self.fc(x)
        buf = torch.zeros(1, 4)
        buf.resize_(3, 4)  # BRK1
        return y + 1
""",
        ("BRK1",),
    ),
    "fake_quant_and_observer": (
        """        y = self.act_fq(self.fc(x))  # BRK1
        return self.obs(y) * 2  # BRK2
""",
        ("BRK1", "BRK2"),
    ),
    "numpy_generator_on_self": (
        """        y = self.fc(x)
        idx = self.rng.integers(0, 3, size=2)  # BRK1
        return y[torch.from_numpy(idx)]
""",
        ("BRK1",),
    ),
    "list_indexed_by_input": (
        """        sigma = self.sigmas[i]  # BRK1
        return self.fc(x) * sigma
""",
        ("BRK1",),
    ),
    "hook_handle": (
        """        handle = self.fc.register_forward_hook(lambda m, a, out: self.captured.append(out))  # BRK1
        y = self.fc(x)
        handle.remove()  # BRK2
        return y + self.captured.pop()
""",
        ("BRK1", "BRK2"),
    ),
}
SPEC = {
    "inputs": [
        {"tensor": [3, 4]},
        {"tensor": [], "dtype": "int64", "init": "randint", "low": 0, "high": 4},
    ]
}


# the packages a case imports beyond torch and numpy (not in the `dev` extra: the torch run
# skips where they are not installed; the prediction reads the source only)
NEEDS = {"kd_tree": "scipy", "tqdm_loop": "tqdm"}
IMPORTS = {"scipy": "from scipy.spatial import cKDTree\n", "tqdm": "from tqdm.auto import tqdm\n"}


def _source(name: str) -> str:
    body, _ = CASES[name]
    return (IMPORTS[NEEDS[name]] if name in NEEDS else "") + HEAD + body


test_the_predicted_break_lines, test_the_predicted_break_lines_match_torch = case_tests(
    {name: (_source(name), SPEC, markers) for name, (_, markers) in CASES.items()},
    predicted_break_lines,
    torch_break_lines,
    observed_spec={"calls": 1},
    needs=NEEDS,
)


def test_a_list_indexed_by_a_python_int_input_is_no_break(tmp_path: Path) -> None:
    """The list case needs the index to be a tensor: a Python number from the caller is not."""
    src = HEAD.replace("def forward(self, x, i):", "def forward(self, x, i: int = 0):") + (
        "        return self.fc(x) * self.sigmas[len(self.sigmas) - 1]\n"
    )
    assert predicted_break_lines(tmp_path, src, SPEC) == set()


def test_a_handle_rebound_before_its_use_is_not_reported(tmp_path: Path) -> None:
    """Only a name still bound to the registration's handle is followed."""
    body = """        handle = self.fc.register_forward_hook(lambda m, a, out: None)  # BRK1
        handle = [x]
        y = self.fc(x)
        handle.append(y)
        return y
"""
    src = HEAD + body
    assert predicted_break_lines(tmp_path, src, SPEC) == {line_of(src, "BRK1")}
