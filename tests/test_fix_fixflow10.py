"""``requires_grad_()`` + ``torch.autograd.grad`` in forward -> ``torch.func.vjp`` (CL502,
``codemods/cl502_requires_grad_change.py``), offered where torch observed GB8985 (at the
``requires_grad_()``) or GB9186 (at the ``autograd.grad``).

VALID: a physics-informed residual with a second derivative (a gradient of a gradient), a
WGAN-GP gradient penalty (``grad_outputs=``, ``.detach()``-ed interpolates), a saliency map
without ``create_graph`` (gradients detached, as ``autograd.grad`` leaves them), the gradient
spelled ``from torch import autograd``. INVALID: ``requires_grad_()`` on the caller's input
(removing it changes the caller's tensor), the tensor read again after its gradient (a value
made from it would no longer require grad), ``allow_unused=True``, a gradient with respect to
two tensors, an in-place call between ``requires_grad_()`` and the gradient.

Marked ``torch``: the original breaks the graph; the rewrite has one graph and no break
(``explain`` first), and its outputs and parameter gradients equal the original's, uncompiled
and compiled; under ``torch.no_grad()`` both raise.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_result, fix_text, load_pair
from .torch_checks import compile_without_break

_HEAD = "import torch\nfrom torch import nn\n\n\n"


def _model(forward: str, head: str = _HEAD, dim: int = 2) -> str:
    return (
        head
        + textwrap.dedent(
            f"""\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear({dim}, 16), nn.Tanh(), nn.Linear(16, 1))
                self.k = 0.1

        """
        )
        + textwrap.indent(textwrap.dedent(forward), "    ")
    )


# case -> (code, the observed line's text, its GB id, a text the fix must contain)
VALID: dict[str, tuple[str, str, str, str]] = {
    "pinn_second_derivative": (
        _model(
            """\
            def forward(self, xt):
                xt = xt.clone().requires_grad_(True)
                u = self.net(xt)
                grads = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]
                u_x, u_t = grads[:, 0:1], grads[:, 1:2]
                u_xx = torch.autograd.grad(u_x.sum(), xt, create_graph=True)[0][:, 0:1]
                return u, u_t - self.k * u_xx
            """
        ),
        "requires_grad_(True)",
        "GB8985",
        "torch.func.vjp(_vjp_f_2, xt, has_aux=True)",
    ),
    "gradient_penalty": (
        _model(
            """\
            def forward(self, real, fake):
                alpha = torch.linspace(0, 1, real.size(0))[:, None]
                interp = (alpha * real + (1 - alpha) * fake).detach()
                interp.requires_grad_()
                score = self.net(interp)
                grad = torch.autograd.grad(
                    score, interp, grad_outputs=torch.ones_like(score), create_graph=True
                )[0]
                gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
                return self.net(real).mean() - self.net(fake).mean(), 10.0 * gp
            """
        ),
        "grad = torch.autograd.grad(",
        "GB9186",
        "grad = _vjp_pull(torch.ones_like(score))[0]",
    ),
    "saliency_no_create_graph": (
        _model(
            """\
            def forward(self, x):
                inp = x.detach().requires_grad_()
                score = self.net(inp).sum()
                (sal,) = torch.autograd.grad(score, [inp])
                return self.net(x) * sal.abs().sum(-1, keepdim=True)
            """
        ),
        "requires_grad_()",
        "GB8985",
        "tuple(_g.detach() for _g in _vjp_pull(",
    ),
    "autograd_module_alias": (
        _model(
            """\
            def forward(self, x):
                h = x * 2.0
                h = h.requires_grad_()
                y = self.net(h)
                g = autograd.grad(y.sum(), h, create_graph=True)[0]
                return y + g.pow(2).sum(-1, keepdim=True)
            """,
            head="import torch\nfrom torch import autograd, nn\n\n\n",
        ),
        "g = autograd.grad(",
        "GB9186",
        "torch.func.vjp(_vjp_f, h, has_aux=True)",
    ),
}

VALID["langevin_loop"] = (
    _model(
        """\
        @torch.enable_grad()
        def sample(self, x):
            x = x.detach().requires_grad_(True)
            for _ in range(3):
                e = self.net(x).sum()
                (grad,) = torch.autograd.grad(e, x)
                x = (x - 0.1 * grad + 0.01 * torch.cos(x)).detach().requires_grad_(True)
            return x.detach()

        def forward(self, x):
            return self.net(x).mean() - self.net(self.sample(x * 0.5)).mean()
        """
    ),
    "(grad,) = torch.autograd.grad(",
    "GB9186",
    "x = (x - 0.1 * grad + 0.01 * torch.cos(x)).detach()\n",
)

VALID["returned_gradient"] = (
    _model(
        """\
        def forward(self, x):
            h = torch.sin(x).requires_grad_()
            y = self.net(h) * h[:, :1]
            return torch.autograd.grad(y.sum(), h, create_graph=True)[0]
        """
    ),
    "requires_grad_()",
    "GB8985",
    "return _vjp_pull(torch.ones_like(_vjp_out))[0]",
)

VALID["hamiltonian_in_enable_grad"] = (
    _model(
        """\
        def forward(self, x):
            with torch.enable_grad():
                q = x.detach().requires_grad_(True)
                energy = self.net(q)
                dq = torch.autograd.grad(energy.sum(), q, create_graph=True)[0]
            flow = torch.stack([dq[:, 1], -dq[:, 0]], dim=-1)
            return energy, flow
        """
    ),
    "q = x.detach().requires_grad_(True)",
    "GB8985",
    "_vjp_out, _vjp_pull, (energy,) = torch.func.vjp(_vjp_f, q, has_aux=True)",
)

VALID["r1_penalty_attribute"] = (
    _model(
        """\
        def forward(self, real):
            real_img = real.detach()
            real_img.requires_grad = True
            real_pred = self.net(real_img)
            (grad_real,) = torch.autograd.grad(
                outputs=real_pred.sum(), inputs=real_img, create_graph=True
            )
            return real_pred.mean(), grad_real.pow(2).sum(-1).mean()
        """
    ),
    "real_img.requires_grad = True",
    "GB0206",
    "(grad_real,) = _vjp_pull(torch.ones_like(_vjp_out))",
)

VALID["pinn_argument_requires_grad"] = (
    _model(
        """\
        def forward(self, xt):
            \"\"\"The caller passes collocation points that require grad.\"\"\"
            u = self.net(xt)
            u_x = torch.autograd.grad(u, xt, torch.ones_like(u), create_graph=True)[0][:, :1]
            return u, u_x * xt[:, 1:]
        """
    ),
    "u_x = torch.autograd.grad(",
    "GB9186",
    "if not xt.requires_grad:",
)

# case -> (code, the observed line's text, its GB id, a text the refusal must contain)
INVALID: dict[str, tuple[str, str, str, str]] = {
    "callers_input": (
        _model(
            """\
            def forward(self, x):
                x.requires_grad_()
                y = self.net(x)
                return torch.autograd.grad(y.sum(), x, create_graph=True)[0]
            """
        ),
        "x.requires_grad_()",
        "GB8985",
        "is not a tensor made in this function",
    ),
    "read_after_gradient": (
        _model(
            """\
            def forward(self, x):
                h = x.clone().requires_grad_()
                y = self.net(h)
                g = torch.autograd.grad(y.sum(), h, create_graph=True)[0]
                return g + h
            """
        ),
        "requires_grad_()",
        "GB8985",
        "is read after its last gradient",
    ),
    "allow_unused": (
        _model(
            """\
            def forward(self, x):
                h = x.clone().requires_grad_()
                y = self.net(h)
                g = torch.autograd.grad(y.sum(), h, create_graph=True, allow_unused=True)[0]
                return y, g
            """
        ),
        "requires_grad_()",
        "GB8985",
        "`allow_unused=` is passed",
    ),
    "two_inputs": (
        _model(
            """\
            def forward(self, x):
                h = x.clone().requires_grad_()
                y = self.net(h)
                g, _ = torch.autograd.grad(y.sum(), [h, self.net[0].weight], create_graph=True)
                return y, g
            """
        ),
        "requires_grad_()",
        "GB8985",
        "is not a gradient with respect to `h` alone",
    ),
    "loop_value_kept_attached": (
        _model(
            """\
            def forward(self, x):
                x = x.detach().requires_grad_(True)
                for _ in range(3):
                    e = self.net(x).sum()
                    (grad,) = torch.autograd.grad(e, x)
                    x = (x - 0.1 * grad).detach().requires_grad_(True)
                return self.net(x)
            """
        ),
        "(grad,) = torch.autograd.grad(",
        "GB9186",
        "is read after its last gradient",
    ),
    "in_place_between": (
        _model(
            """\
            def forward(self, x):
                h = x.clone().requires_grad_()
                y = self.net(h).relu_()
                g = torch.autograd.grad(y.sum(), h, create_graph=True)[0]
                return y, g
            """
        ),
        "requires_grad_()",
        "GB8985",
        "changes state in place",
    ),
}


def _fix(tmp_path: Path, code: str, observed: str, gb: str) -> tuple[str, list[str]]:
    """Fix ``code`` (CL502 only) with the finding torch's ``gb`` break at the line holding
    ``observed`` makes, as ``fix --verify`` offers it."""
    return fix_text(tmp_path, code, ("CL502",), observed=[(observed, gb)])


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_computes_the_gradient_with_vjp(tmp_path: Path, case: str) -> None:
    code, observed, gb, want = VALID[case]
    fixed, _ = _fix(tmp_path, code, observed, gb)
    assert want in fixed, fixed
    assert "requires_grad_" not in fixed and "autograd.grad" not in fixed, fixed
    assert ".requires_grad =" not in fixed, fixed
    compile(fixed, "m.py", "exec")


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, observed, gb, why = INVALID[case]
    fixed, reasons = _fix(tmp_path, code, observed, gb)
    assert fixed == code
    assert any(why in r for r in reasons), reasons


def test_the_gradient_line_alone_leads_to_the_same_rewrite(tmp_path: Path) -> None:
    """GB9186 at the second gradient finds the ``requires_grad_()`` that made its input."""
    code = VALID["pinn_second_derivative"][0]
    by_grad, _ = _fix(tmp_path, code, "u_xx = torch.autograd.grad(", "GB9186")
    by_req, _ = _fix(tmp_path, code, "requires_grad_(True)", "GB8985")
    assert by_grad == by_req != code


# ---------------------------------------------------------------------------- with torch
def _inputs(torch: Any, case: str) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(3)
    if case == "gradient_penalty":
        return (torch.randn(5, 2, generator=g), torch.randn(5, 2, generator=g))
    if case == "pinn_argument_requires_grad":
        return (torch.rand(7, 2, generator=g).requires_grad_(),)
    return (torch.rand(7, 2, generator=g),)


def _run(torch: Any, mod: Any, case: str, compiled: bool) -> tuple[list[Any], list[Any]]:
    torch.manual_seed(0)
    model = mod.Model()
    args = _inputs(torch, case)
    torch._dynamo.reset()
    # explain's copies of the inputs that require grad (the caller's PINN points) do too
    fn = compile_without_break(model, args, keep_grad=True) if compiled else model
    outs = fn(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    sum(o.pow(2).sum() for o in outs).backward()
    # the inputs' gradients too (the caller's leaves, where they require grad)
    leaves = [a.grad for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    return [o.detach() for o in outs], [p.grad for p in model.parameters()] + leaves


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_rewrite_has_one_graph_and_the_same_outputs_and_gradients(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    code, observed, gb, _ = VALID[case]
    fixed, _ = _fix(tmp_path, code, observed, gb)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "vjp")
    torch._dynamo.reset()
    explained = torch._dynamo.explain(a.Model())(*_inputs(torch, case))
    assert explained.graph_break_count >= 1  # the original breaks
    want_out, want_grads = _run(torch, a, case, False)
    for compiled in (False, True):
        got_out, got_grads = _run(torch, b, case, compiled)
        for g, w in zip(got_out, want_out, strict=True):
            torch.testing.assert_close(g, w)
        for g, w in zip(got_grads, want_grads, strict=True):
            assert (g is None) == (w is None)
            if w is not None:
                torch.testing.assert_close(g, w)
    # with grad mode off both raise (autograd.grad finds no graph; the rewrite says so),
    # unless forward turns it on again (`@torch.enable_grad()`): then both run alike
    if case in ("langevin_loop", "hamiltonian_in_enable_grad"):
        with torch.no_grad():
            torch.manual_seed(0)
            want = a.Model()(*_inputs(torch, case))
            torch.manual_seed(0)
            torch.testing.assert_close(b.Model()(*_inputs(torch, case)), want)
        return
    for mod in (a, b):
        with torch.no_grad(), pytest.raises(RuntimeError, match="does not require grad"):
            mod.Model()(*_inputs(torch, case))


# ------------------------------------------------------- CL508: a layer sequence built lazily
_SEQ = _HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, out_dim=8):
            super().__init__()
            self.out_dim = out_dim
            self.proj = None

        def forward(self, feats):
            if self.proj is None:
                self.proj = nn.Sequential(
                    nn.Linear(feats.shape[-1], 2 * self.out_dim),
                    nn.ReLU(),
                    nn.Linear(2 * self.out_dim, self.out_dim),
                )
            return nn.functional.normalize(self.proj(feats), dim=-1)
    """
)

SEQ_INVALID: dict[str, tuple[str, str]] = {
    # dropout draws random numbers between the two layers' weight draws
    "dropout_between": (
        _SEQ.replace("nn.ReLU(),", "nn.Dropout(0.1),"),
        "draws random numbers between the layers",
    ),
    # the second layer's input size is not the size the first gives
    "size_mismatch": (
        _SEQ.replace("nn.Linear(2 * self.out_dim, self.out_dim)", "nn.Linear(16, self.out_dim)"),
        "is not the size the layer before gives",
    ),
}


def _fix_seq(tmp_path: Path, code: str) -> tuple[str, list[str]]:
    return fix_text(tmp_path, code, ("CL508",), observed=[("nn.Linear(feats.shape", "GB0264")])


def test_a_layer_sequence_built_on_first_use_becomes_lazy_layers_in_init(tmp_path: Path) -> None:
    fixed, _ = _fix_seq(tmp_path, _SEQ)
    assert "nn.LazyLinear(2 * self.out_dim)" in fixed and "nn.LazyLinear(self.out_dim)" in fixed
    assert "if self.proj is None" not in fixed and "nn.Linear(" not in fixed, fixed


@pytest.mark.parametrize("case", sorted(SEQ_INVALID))
def test_a_layer_sequence_that_would_draw_otherwise_is_refused(tmp_path: Path, case: str) -> None:
    code, why = SEQ_INVALID[case]
    fixed, reasons = _fix_seq(tmp_path, code)
    assert fixed == code
    assert any(why in r for r in reasons), reasons


@pytest.mark.torch
def test_lazy_sequence_draws_the_same_weights_and_compiles_whole(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    fixed, _ = _fix_seq(tmp_path, _SEQ)
    a, b = load_pair(tmp_path, _SEQ, fixed, "seq")

    def run(mod: Any, compiled: bool) -> tuple[Any, list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        x = torch.randn(4, 24, generator=torch.Generator().manual_seed(1))
        torch._dynamo.reset()
        if compiled:
            state = torch.get_rng_state()
            fn = compile_without_break(model, (x,))
            torch.set_rng_state(state)
        else:
            fn = model
        y = fn(x)
        y.pow(2).sum().backward()
        return y.detach(), [p.grad for p in model.parameters()]

    with pytest.raises(torch._dynamo.exc.Unsupported):  # the original breaks (GB0264)
        torch._dynamo.reset()
        torch.compile(a.Model(), backend="eager", fullgraph=True)(torch.randn(4, 24))
    want_y, want_g = run(a, False)
    for compiled in (False, True):
        got_y, got_g = run(b, compiled)
        torch.testing.assert_close(got_y, want_y)
        for g, w in zip(got_g, want_g, strict=True):
            torch.testing.assert_close(g, w)


def test_the_callers_input_gets_the_rewrite_as_a_proposal(tmp_path: Path) -> None:
    """``x.requires_grad_()`` on an argument: the caller would see its tensor change no more,
    so the same rewrite is shown as a patch, never applied."""
    code, observed, gb, _ = INVALID["callers_input"]
    res = fix_result(tmp_path, code, ("CL502",), observed=[(observed, gb)])
    assert not res.changes
    props = [r for r in res.records if r.status == "proposed"]
    assert props and "torch.func.vjp" in props[0].patch, [r.status for r in res.records]
    assert "would change the caller's" in props[0].reason
