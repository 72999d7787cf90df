"""Lengths read one at a time in a loop over the batch (issue 22, branch fix25a).

Code written a row at a time reads each length back as a Python int (``n = int(lengths[i])``,
``lengths[i].item()``) and slices the rows by it: every read breaks the graph. Where the loop
runs over the batch and its body only writes the valid (or padding) steps of a buffer, adds up
each row's sum or mean over its valid steps, keeps each row's pooled value or its step at the
length, the loop is one masked tensor expression (:mod:`compilelint.fix.codemods.row_lengths`).

Each VALID case is checked as text and, marked ``torch``, against the original: the original
breaks; the fixed model compiles without a break; outputs and parameter gradients equal,
compiled and uncompiled; lengths that are negative, zero or longer than the steps slice as
Python does. Each INVALID case is checked for what it keeps and the reason it gives.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_case_tests, fix_result, fix_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def _model(body: str, init: str = "self.proj = nn.Linear(6, 6)") -> str:
    return (
        HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                {init}

        """
        ).format(init=init)
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


# an ESPnet-style mask made one row at a time, the length read inline in the slice
MASK_LOOP = _model(
    """\
    def forward(self, x, lengths):
        mask = torch.zeros(x.size(0), x.size(1), dtype=torch.bool)
        for b in range(lengths.size(0)):
            mask[b, : int(lengths[b])] = True
        h = self.proj(x).masked_fill(~mask[..., None], 0.0)
        return h.sum(1)
    """
)

# the padding steps set back to zero (`[n:]`), `.item()`
TAIL_ZERO = _model(
    """\
    def forward(self, x, lengths):
        h = self.proj(x).clone()
        for b in range(h.shape[0]):
            n = lengths[b].item()
            h[b, n:] = 0.0
        return h.tanh()
    """
)

# a Tacotron-style L1 over the valid frames, two tensors sliced by one length
L1_SUM = _model(
    """\
    def forward(self, x, target, lengths):
        pred = self.proj(x)
        loss = x.new_zeros(())
        for i in range(pred.size(0)):
            olen = int(lengths[i])
            loss = loss + (pred[i, :olen] - target[i, :olen]).abs().sum()
        return loss
    """
)

# a FastSpeech2-style MSE: a local row, a mean per row, a float accumulator, `len(...)`
MSE_MEAN = _model(
    """\
    def forward(self, x, target, lengths):
        pred = self.proj(x).squeeze(-1)
        total = 0.0
        batch = len(lengths)
        for idx in range(batch):
            n = lengths[idx].item()
            diff = pred[idx, :n] - target[idx, :n]
            total += (diff ** 2).mean()
        return total / batch
    """,
    "self.proj = nn.Linear(6, 1)",
)

# a VITS-like sample written over the valid frames of a zero buffer
WRITE_ROWS = _model(
    """\
    def forward(self, x, eps, lengths):
        m, logs = self.proj(x).chunk(2, dim=-1)
        z = torch.zeros_like(m)
        for i in range(x.size(0)):
            t = int(lengths[i])
            z[i, :t] = m[i, :t] + eps[i, :t] * torch.exp(logs[i, :t])
        return z
    """,
    "self.proj = nn.Linear(6, 6)",
)

# sentence mean pooling into a list, stacked
POOL_ITEM = _model(
    """\
    def forward(self, x, lengths):
        h = self.proj(x)
        pooled = []
        for i in range(h.size(0)):
            n_tok = lengths[i].item()
            pooled.append(F.relu(h[i, :n_tok]).mean(0))
        return torch.stack(pooled)
    """
)

# a user vector written row by row into a buffer (recsys)
ROW_BUFFER = _model(
    """\
    def forward(self, x, lengths):
        h = self.proj(x)
        user = torch.zeros(h.size(0), h.size(2))
        for u in range(h.size(0)):
            n = int(lengths[u])
            user[u] = h[u, :n].sum(dim=0)
        return user.sigmoid()
    """
)

# each row's mean over its valid steps and its last valid step (`H[i, n - 1]`) kept in buffers
LAST_STEP = _model(
    """\
    def forward(self, x, lengths):
        h = self.proj(x)
        mean = h.new_zeros(h.size(0), h.size(2))
        last = h.new_zeros(h.size(0), h.size(2))
        for i in range(h.size(0)):
            n = int(lengths[i])
            mean[i] = h[i, :n].mean(0)
            last[i] = h[i, n - 1]
        return mean * last
    """
)

# a padded buffer as long as the longest length, made by a helper whose one caller sums it over
# the steps: the zeros past each length change no value read, so the static size is the same
SUMMED_MAX = _model(
    """\
    def pad_frames(self, h, lengths):
        max_len = int(lengths.max())
        out = h.new_zeros(h.size(0), max_len, h.size(2))
        for i in range(h.size(0)):
            n = int(lengths[i])
            out[i, :n] = h[i, :n]
        return out

    def forward(self, x, lengths):
        return self.pad_frames(self.proj(x), lengths).sum(1)
    """
)

# the lengths left 0-d tensors, read by the slices themselves (`__index__`, CL113), inline and
# through a name
BARE = _model(
    """\
    def forward(self, x, target, lengths):
        pred = self.proj(x)
        err = pred.new_zeros(())
        for i in range(len(lengths)):
            err = err + (pred[i, : lengths[i]] - target[i, : lengths[i]]).pow(2).sum()
        out = torch.zeros_like(pred)
        for i in range(len(lengths)):
            n = lengths[i]
            out[i, :n] = pred[i, :n].tanh()
        return out.sum(1) + err / 100
    """
)

CASES = {
    "mask_loop": MASK_LOOP,
    "tail_zero": TAIL_ZERO,
    "l1_sum": L1_SUM,
    "mse_mean": MSE_MEAN,
    "write_rows": WRITE_ROWS,
    "pool_item": POOL_ITEM,
    "row_buffer": ROW_BUFFER,
    "last_step": LAST_STEP,
    "summed_max": SUMMED_MAX,
    "bare": BARE,
}


def _observed(code: str) -> list[tuple[str, str]]:
    """The lines that read a length (``int(`` / ``.item()``), as torch reports them."""
    return [
        (ln.strip(), "GB0124")
        for ln in code.splitlines()
        if ("int(lengths" in ln or ".item()" in ln) and "def " not in ln
    ]


def _fix(tmp_path: Path, code: str) -> tuple[str, str]:
    fixed, reasons = fix_text(tmp_path, code, ("CL102", "CL103", "CL113"), observed=_observed(code))
    return fixed, " | ".join(reasons)


# ---------------------------------------------------------------------------- VALID (text)
def test_a_mask_written_row_by_row_is_filled_through_one_mask(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, MASK_LOOP)
    assert "for b in range" not in fixed and "int(lengths" not in fixed
    assert "lengths < 0, lengths + mask.shape[1], lengths).clamp(0, mask.shape[1])" in fixed
    assert "valid = torch.arange(mask.shape[1], device=mask.device) < n_valid[:, None]" in fixed
    assert "mask.masked_fill_(valid.reshape(" in fixed
    fixed, _ = _fix(tmp_path, TAIL_ZERO)
    assert "h.masked_fill_(~valid.reshape(valid.shape + (1,) * (h.dim() - 2)), 0.0)" in fixed


def test_sums_and_means_over_each_rows_valid_steps_are_masked(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, L1_SUM)
    assert "rows = (pred - target).abs()" in fixed
    assert "loss = loss + torch.where(valid.reshape(" in fixed and "rows, 0).sum()" in fixed
    fixed, _ = _fix(tmp_path, MSE_MEAN)
    assert "diff = pred - target" in fixed
    assert ".flatten(1).sum(1) / (n_valid * rows.shape[2:].numel())).sum()" in fixed
    assert "total += " in fixed and ".item()" not in fixed


def test_rows_written_pooled_or_indexed_become_one_expression(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, WRITE_ROWS)
    assert "z.copy_(torch.where(valid.reshape(" in fixed
    assert "m + eps * torch.exp(logs), z))" in fixed
    fixed, _ = _fix(tmp_path, POOL_ITEM)
    assert "pooled = []" not in fixed and "torch.stack(pooled)" not in fixed
    assert "rows = F.relu(h)" in fixed and "return pooled" in fixed
    assert "pooled = torch.where(" in fixed and "rows, 0).sum(1) / n_valid.reshape(" in fixed
    fixed, _ = _fix(tmp_path, ROW_BUFFER)
    assert "user.copy_(torch.where(" in fixed and "h, 0).sum(1))" in fixed
    fixed, _ = _fix(tmp_path, LAST_STEP)
    assert (
        "last.copy_(h[torch.arange(h.shape[0], device=h.device), (lengths - 1).to(h.device)])"
        in fixed
    )
    assert "mean.copy_(torch.where(" in fixed


def test_a_buffer_sized_by_the_longest_length_and_only_summed_takes_the_static_size(
    tmp_path: Path,
) -> None:
    fixed, _ = _fix(tmp_path, SUMMED_MAX)
    assert "int(lengths" not in fixed and "max_len" not in fixed
    assert "out = h.new_zeros(h.size(0), h.size(1), h.size(2))" in fixed
    assert "out.copy_(torch.where(" in fixed


def test_lengths_left_tensors_and_read_by_the_slices_are_masked(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, BARE)
    assert "for i in range" not in fixed and "lengths[i]" not in fixed
    assert "rows = (pred - target).pow(2)" in fixed
    assert "out.copy_(torch.where(" in fixed and "pred.tanh(), out))" in fixed


# ---------------------------------------------------------------------------- INVALID
# a buffer as long as the longest length, returned: the static size changes the output's shape
RETURNED_MAX = _model(
    """\
    def forward(self, x, lengths):
        h = self.proj(x)
        max_len = int(lengths.max())
        out = h.new_zeros(h.size(0), max_len, h.size(2))
        for i in range(h.size(0)):
            n = int(lengths[i])
            out[i, :n] = h[i, :n]
        return out
    """
)

# frames packed one utterance after another: a running offset
PACKED = _model(
    """\
    def forward(self, packed, lengths):
        out = packed.new_zeros(lengths.size(0), 5, packed.size(1))
        start = 0
        for i in range(lengths.size(0)):
            n = int(lengths[i])
            out[i, :n] = packed[start : start + n]
            start += n
        return out
    """
)

# a log of the rows: its derivative at the padding steps may be infinite (NaN gradients)
LOG_ROWS = _model(
    """\
    def forward(self, x, lengths):
        p = self.proj(x).sigmoid()
        nll = x.new_zeros(())
        for i in range(x.size(0)):
            n = int(lengths[i])
            nll = nll - p[i, :n].log().sum()
        return nll
    """
)

# the loop runs over a number of rows given by the caller, not over the batch
NOT_BATCH = _model(
    """\
    def forward(self, x, lengths, rows: int = 2):
        out = torch.zeros_like(x)
        for i in range(rows):
            n = int(lengths[i])
            out[i, :n] = x[i, :n]
        return out
    """
)

# two tensors sliced by two lengths
TWO_LENGTHS = _model(
    """\
    def forward(self, x, y, lengths, y_lengths):
        loss = x.new_zeros(())
        for i in range(x.size(0)):
            n = int(lengths[i])
            m = int(y_lengths[i])
            loss = loss + (x[i, :n].sum() - y[i, :m].sum())
        return loss
    """
)

# the body also logs each length
PRINTS = _model(
    """\
    def forward(self, x, lengths):
        out = torch.zeros_like(x)
        for i in range(x.size(0)):
            n = int(lengths[i])
            out[i, :n] = x[i, :n]
            print(n)
        return out
    """
)


def test_a_returned_buffer_sized_by_the_longest_length_is_proposed(tmp_path: Path) -> None:
    res = fix_result(tmp_path, RETURNED_MAX, ("CL102",), observed=_observed(RETURNED_MAX))
    assert not res.changes
    props = [r for r in res.records if r.status == "proposed"]
    assert props, [(r.status, r.reason) for r in res.records]
    why = props[0].reason
    assert "has as many steps as the longest length" in why
    assert "the static size `h.size(1)`" in why and "its shape changes" in why
    assert "out = h.new_zeros(h.size(0), h.size(1), h.size(2))" in props[0].patch
    assert "out.copy_(torch.where(" in props[0].patch


def test_packed_rows_at_running_offsets_are_refused_with_the_gather(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, PACKED)
    assert fixed == PACKED
    assert "`start += n` reads the lengths as running offsets" in why
    assert "(L.cumsum(0) - L)[b]" in why


def test_a_log_of_the_rows_is_refused(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, LOG_ROWS)
    assert "int(lengths[i])" in fixed and "n_valid" not in fixed
    assert "is not elementwise with a finite derivative" in why


def test_a_loop_not_over_the_batch_is_refused(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, NOT_BATCH)
    assert "n_valid" not in fixed
    assert "does not run over the batch" in why


def test_two_lengths_or_a_print_in_the_loop_are_refused(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, TWO_LENGTHS)
    assert "n_valid" not in fixed
    fixed, why = _fix(tmp_path, PRINTS)
    assert "n_valid" not in fixed
    assert "the loop's body also does `print(n)`" in why


# ---------------------------------------------------------------------------- torch
def _inputs(torch: Any, case: str, lengths: Any = None) -> tuple[Any, ...]:
    torch.manual_seed(3)
    lengths = torch.tensor([7, 3, 5, 1]) if lengths is None else lengths
    x = torch.randn(4, 7, 6)
    if case in ("l1_sum", "write_rows", "bare"):
        y = torch.randn(4, 7, 3) if case == "write_rows" else torch.randn(4, 7, 6)
        return x, y, lengths
    if case == "mse_mean":
        return x, torch.randn(4, 7), lengths
    return x, lengths


# the originals break (in the loop: dynamo skips the frame, ``unimplemented``); the fixed
# models compile whole with the same outputs and gradients
test_the_originals_break, test_fixed_model_compiles_and_keeps_outputs_and_grads = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: _fix(tmp_path, code)[0],
    lambda torch, case, seed: _inputs(torch, case),
    prefix="fix25a",
    seeds=(0,),
    counted=("graph_break", "unimplemented"),
)


@pytest.mark.torch
@pytest.mark.parametrize(
    "case", ["mask_loop", "tail_zero", "l1_sum", "write_rows", "row_buffer", "bare"]
)
def test_negative_zero_or_too_long_lengths_slice_as_python_does(tmp_path: Path, case: str) -> None:
    """``[:n]`` keeps ``T + n`` steps for a negative ``n``, none for 0, all for ``n >= T``."""
    torch = pytest.importorskip("torch")
    code = CASES[case]
    fixed, _ = _fix(tmp_path, code)
    a, b = load_pair(tmp_path, code, fixed, "fix25a")
    assert_same_as_original(a, b, _inputs(torch, case, torch.tensor([-2, 9, 0, -9])))
    torch._dynamo.reset()


@pytest.mark.torch
def test_the_proposed_static_buffer_holds_the_same_rows(tmp_path: Path) -> None:
    """The proposal's buffer, cut to the longest length after the call, equals the original's
    (what its reason tells the caller to do)."""
    torch = pytest.importorskip("torch")
    res = fix_result(tmp_path, RETURNED_MAX, ("CL102",), observed=_observed(RETURNED_MAX))
    patch = next(r.patch for r in res.records if r.status == "proposed")
    fixed = _apply(RETURNED_MAX, patch)
    a, b = load_pair(tmp_path, RETURNED_MAX, fixed, "fix25a")
    x, lengths = torch.randn(3, 7, 6), torch.tensor([5, 2, 4])
    torch.manual_seed(0)
    want = a.Model()(x, lengths)
    torch.manual_seed(0)
    got = torch.compile(b.Model(), backend="eager", fullgraph=True)(x, lengths)
    assert got.shape == (3, 7, 6) and want.shape == (3, 5, 6)
    torch.testing.assert_close(got[:, : int(lengths.max())], want)
    torch._dynamo.reset()


def _apply(code: str, patch: str) -> str:
    """``code`` with a unified diff of one hunk group applied (the proposal's patch)."""
    out = code.splitlines(keepends=True)
    hunks: list[list[str]] = []
    for ln in patch.splitlines(keepends=True):
        if ln.startswith("@@"):
            hunks.append([])
        elif hunks and not ln.startswith(("---", "+++")):
            hunks[-1].append(ln)
    for h in reversed(hunks):
        old = [ln[1:] for ln in h if ln[:1] in (" ", "-")]
        new = [ln[1:] for ln in h if ln[:1] in (" ", "+")]
        text = "".join(out)
        assert "".join(old) in text, "".join(old)
        out = text.replace("".join(old), "".join(new), 1).splitlines(keepends=True)
    return "".join(out)
