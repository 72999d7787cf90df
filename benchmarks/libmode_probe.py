"""Library mode labelled by the dynamic stage: public entry points of the installed libraries.

    python benchmarks/libmode_probe.py label [PACKAGE ...]   # dynamic stage, writes the dev labels
    python benchmarks/libmode_probe.py label --set dev3                # the dev3 packages only
    python benchmarks/libmode_probe.py score [--set heldout|dev3|dev4|dev5] [--json out.json] [--detail]

Most library-mode findings of ``corpus_libs.py score`` sit in code no corpus model runs, so its
"precision on all findings" counts every one of them as false. This probe labels the code library
mode judges the way the corpus oracle labels model files: it calls public entry points of 11
installed libraries (torchdiffeq kornia torchmetrics vector-quantize-pytorch gpytorch zuko nflows
x-transformers rotary-embedding-torch torchsde einops) as a user first meets them: a module built
with a small configuration (only the arguments it needs), called on random inputs; a function
called with its required arguments only, every other argument left at its default.

``label`` runs each package's entries in a child process: an eager run under ``sys.settrace``
records the package's lines that ran, then the dynamic stage in-process
(:func:`compilelint.dynamic.inprocess.observe_live`: torch.compile with compilelint's collecting
eager backend, torch's own graph-break records) gives the break lines (the innermost frame of
each break inside the package). The entries are split into a dev half and a held-out half by a
hash of their names (per package, sorted by ``sha1(name)``, every second one held out), decided
before any labels existed; ``labels_heldout.json`` is committed first and never tuned on.

``score`` runs library mode (``compilelint check <folders> --no-follow`` with ``entries`` the
globs of the set's entries) on the package folders the entries ran in and reports, per package
and in all: recall of the break lines, precision on the lines that ran, and precision on **all**
findings (every library-mode finding, latent ones hidden, against the break lines). Breaks are
what the calls made observe; a break only another input would hit is not seen, so precision is a
lower bound.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus_libs import SITE, ran_dirs, rel, static_json  # benchmarks/ is the script's folder

HERE = Path(__file__).resolve().parent / "libmode_probe"
LABELS = {
    "dev": HERE / "labels_dev.json",
    "heldout": HERE / "labels_heldout.json",
    "dev3": HERE / "labels_dev3.json",
    "dev4": HERE / "labels_dev4.json",
    "dev5": HERE / "labels_dev5.json",
}
# The second-call labels (``label --recompiles``): files of their own, the break labels above
# are never rewritten by them.
RECOMPILE_LABELS = {s: p.with_name(p.stem + "_recompiles.json") for s, p in LABELS.items()}

Build = Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]
# package folder -> [(entry name as the user imports it, class?, build)]
ENTRIES: dict[str, list[tuple[str, bool, Build]]] = {}


def entry(pkg: str, name: str, cls: bool = False) -> Callable[[Build], Build]:
    def deco(fn: Build) -> Build:
        ENTRIES.setdefault(pkg, []).append((name, cls, fn))
        return fn

    return deco


# The seed every entry's ``build`` draws its module and inputs with: 0 for the labelled first
# call; ``label --recompiles`` builds once more under another seed for the second call's inputs.
SEED = [0]


def _t() -> Any:
    import torch

    torch.manual_seed(SEED[0])
    return torch


# --------------------------------------------------------------------------- torchdiffeq
class _ODEFunc:  # built lazily (torch is imported in the child only)
    @staticmethod
    def make() -> Any:
        torch = _t()

        class F(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lin = torch.nn.Linear(2, 2)

            def forward(self, t: Any, y: Any) -> Any:
                return torch.tanh(self.lin(y))

        return F()


@entry("torchdiffeq", "torchdiffeq.odeint")
def _odeint() -> Any:
    torch = _t()
    import torchdiffeq

    f = _ODEFunc.make()
    return (lambda y0, t: torchdiffeq.odeint(f, y0, t)), (torch.randn(2), torch.linspace(0, 1, 3))


@entry("torchdiffeq", "torchdiffeq.odeint_adjoint")
def _odeint_adjoint() -> Any:
    torch = _t()
    import torchdiffeq

    f = _ODEFunc.make()
    return (lambda y0, t: torchdiffeq.odeint_adjoint(f, y0, t)), (
        torch.randn(2),
        torch.linspace(0, 1, 3),
    )


@entry("torchdiffeq", "torchdiffeq.odeint_dense")
def _odeint_dense() -> Any:
    torch = _t()
    import torchdiffeq

    f = _ODEFunc.make()
    return (lambda y0, t0, t1: torchdiffeq.odeint_dense(f, y0, t0, t1)), (
        torch.randn(2),
        torch.tensor(0.0),
        torch.tensor(1.0),
    )


# --------------------------------------------------------------------------- torchsde
def _sde() -> Any:
    torch = _t()

    class S(torch.nn.Module):
        noise_type = "diagonal"
        sde_type = "ito"

        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)

        def f(self, t: Any, y: Any) -> Any:
            return torch.tanh(self.lin(y))

        def g(self, t: Any, y: Any) -> Any:
            return torch.sigmoid(y)

    return S()


@entry("torchsde", "torchsde.sdeint")
def _sdeint() -> Any:
    torch = _t()
    import torchsde

    s = _sde()
    return (lambda y0, ts: torchsde.sdeint(s, y0, ts, dt=0.25)), (
        torch.randn(3, 2),
        torch.linspace(0, 1, 3),
    )


@entry("torchsde", "torchsde.sdeint_adjoint")
def _sdeint_adjoint() -> Any:
    torch = _t()
    import torchsde

    s = _sde()
    return (lambda y0, ts: torchsde.sdeint_adjoint(s, y0, ts, dt=0.25)), (
        torch.randn(3, 2),
        torch.linspace(0, 1, 3),
    )


@entry("torchsde", "torchsde.BrownianInterval", cls=True)
def _bi() -> Any:
    torch = _t()
    import torchsde

    bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(3, 2))
    return (lambda ta, tb: bm(ta, tb)), (torch.tensor(0.25), torch.tensor(0.5))


@entry("torchsde", "torchsde.BrownianTree", cls=True)
def _bt() -> Any:
    torch = _t()
    import torchsde

    bm = torchsde.BrownianTree(t0=0.0, w0=torch.zeros(3, 2), t1=1.0)
    return (lambda ta, tb: bm(ta, tb)), (torch.tensor(0.25), torch.tensor(0.5))


@entry("torchsde", "torchsde.BrownianPath", cls=True)
def _bp() -> Any:
    torch = _t()
    import torchsde

    bm = torchsde.BrownianPath(t0=0.0, w0=torch.zeros(3, 2))
    return (lambda ta, tb: bm(ta, tb)), (torch.tensor(0.25), torch.tensor(0.5))


# --------------------------------------------------------------------------- kornia
def _img() -> Any:
    return _t().rand(2, 3, 16, 16)


def _kmod(name: str, *args: Any, **kw: Any) -> Build:
    def build() -> Any:
        import importlib

        mod, _, cls = name.rpartition(".")
        m = getattr(importlib.import_module(mod), cls)(*args, **kw)
        return m, (_img(),)

    return build


def _kfn(name: str, *args: Any, **kw: Any) -> Build:
    def build() -> Any:
        import importlib

        mod, _, fn = name.rpartition(".")
        f = getattr(importlib.import_module(mod), fn)
        return (lambda x: f(x, *args, **kw)), (_img(),)

    return build


for _name, _args, _cls in [
    ("kornia.filters.GaussianBlur2d", ((3, 3), (1.5, 1.5)), True),
    ("kornia.filters.BoxBlur", ((3, 3),), True),
    ("kornia.filters.MedianBlur", ((3, 3),), True),
    ("kornia.filters.Sobel", (), True),
    ("kornia.filters.Laplacian", (3,), True),
    ("kornia.filters.Canny", (), True),
    ("kornia.filters.UnsharpMask", ((3, 3), (1.5, 1.5)), True),
    ("kornia.filters.MotionBlur", (3, 35.0, 0.5), True),
    ("kornia.filters.BlurPool2D", (3,), True),
    ("kornia.filters.bilateral_blur", ((3, 3), 0.1, (1.5, 1.5)), False),
    ("kornia.filters.gaussian_blur2d", ((3, 3), (1.5, 1.5)), False),
    ("kornia.filters.spatial_gradient", (), False),
    ("kornia.augmentation.RandomHorizontalFlip", (), True),
    ("kornia.augmentation.ColorJitter", (0.1, 0.1, 0.1, 0.1), True),
    ("kornia.augmentation.RandomAffine", (10.0,), True),
    ("kornia.augmentation.RandomCrop", ((8, 8),), True),
    ("kornia.augmentation.RandomGaussianNoise", (), True),
    ("kornia.augmentation.RandomGrayscale", (), True),
    ("kornia.augmentation.Normalize", ((0.5, 0.5, 0.5), (0.2, 0.2, 0.2)), True),
    ("kornia.augmentation.RandomResizedCrop", ((8, 8),), True),
    ("kornia.geometry.transform.Resize", ((8, 8),), True),
    ("kornia.geometry.transform.Rotate", (None,), False),
    ("kornia.geometry.transform.resize", ((8, 8),), False),
    ("kornia.geometry.transform.hflip", (), False),
    ("kornia.geometry.transform.pyrdown", (), False),
    ("kornia.color.rgb_to_grayscale", (), False),
    ("kornia.color.rgb_to_hsv", (), False),
    ("kornia.color.RgbToYcbcr", (), True),
    ("kornia.enhance.adjust_brightness", (0.2,), False),
    ("kornia.enhance.equalize", (), False),
]:
    if _name.endswith("Rotate"):
        continue
    entry("kornia", _name, _cls)(
        _kmod(_name, *_args) if _cls else _kfn(_name, *_args)  # type: ignore[arg-type]
    )


@entry("kornia", "kornia.geometry.transform.rotate")
def _rotate() -> Any:
    torch = _t()
    import kornia.geometry.transform as T

    return (lambda x, a: T.rotate(x, a)), (_img(), torch.tensor([10.0, 20.0]))


# --------------------------------------------------------------------------- torchmetrics
def _tm_fn(name: str, kind: str, **kw: Any) -> Build:
    def build() -> Any:
        import importlib

        torch = _t()
        mod, _, fn = name.rpartition(".")
        f = getattr(importlib.import_module(mod), fn)
        n, c = 16, 3
        inputs = {
            "bin": (torch.rand(n), torch.randint(0, 2, (n,))),
            "mc": (torch.randn(n, c).softmax(-1), torch.randint(0, c, (n,))),
            "ml": (torch.rand(n, c), torch.randint(0, 2, (n, c))),
            "reg": (torch.randn(n), torch.randn(n)),
            "pos": (torch.rand(n) + 0.1, torch.rand(n) + 0.1),
            "img": (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16)),
        }[kind]
        return (lambda p, t: f(p, t, **kw)), inputs

    return build


def _tm_mod(name: str, kind: str, **kw: Any) -> Build:
    def build() -> Any:
        import importlib

        mod, _, cls = name.rpartition(".")
        m = getattr(importlib.import_module(mod), cls)(**kw)
        _, inputs = _tm_fn("torch.add", kind)()
        return m, inputs

    return build


_C = "torchmetrics.functional.classification"
for _name, _kind, _kw in [
    (f"{_C}.binary_accuracy", "bin", {}),
    (f"{_C}.multiclass_accuracy", "mc", {"num_classes": 3}),
    (f"{_C}.multilabel_accuracy", "ml", {"num_labels": 3}),
    (f"{_C}.binary_auroc", "bin", {}),
    (f"{_C}.multiclass_auroc", "mc", {"num_classes": 3}),
    (f"{_C}.multilabel_auroc", "ml", {"num_labels": 3}),
    (f"{_C}.binary_average_precision", "bin", {}),
    (f"{_C}.multiclass_average_precision", "mc", {"num_classes": 3}),
    (f"{_C}.binary_matthews_corrcoef", "bin", {}),
    (f"{_C}.binary_confusion_matrix", "bin", {}),
    (f"{_C}.multilabel_confusion_matrix", "ml", {"num_labels": 3}),
    (f"{_C}.binary_cohen_kappa", "bin", {}),
    (f"{_C}.binary_calibration_error", "bin", {}),
    (f"{_C}.binary_hinge_loss", "bin", {}),
    (f"{_C}.binary_roc", "bin", {}),
    (f"{_C}.binary_precision_recall_curve", "bin", {}),
    (f"{_C}.multilabel_ranking_loss", "ml", {"num_labels": 3}),
    (f"{_C}.binary_precision_at_fixed_recall", "bin", {"min_recall": 0.5}),
    (f"{_C}.binary_logauc", "bin", {}),
    (f"{_C}.binary_f1_score", "bin", {}),
    (f"{_C}.multiclass_precision", "mc", {"num_classes": 3}),
    (f"{_C}.binary_specificity", "bin", {}),
    ("torchmetrics.functional.regression.mean_squared_error", "reg", {}),
    ("torchmetrics.functional.regression.r2_score", "reg", {}),
    ("torchmetrics.functional.regression.pearson_corrcoef", "reg", {}),
    ("torchmetrics.functional.regression.spearman_corrcoef", "reg", {}),
    ("torchmetrics.functional.regression.explained_variance", "reg", {}),
    ("torchmetrics.functional.regression.kendall_rank_corrcoef", "reg", {}),
    ("torchmetrics.functional.regression.mean_squared_log_error", "pos", {}),
    ("torchmetrics.functional.regression.tweedie_deviance_score", "pos", {}),
    ("torchmetrics.functional.image.peak_signal_noise_ratio", "img", {}),
    ("torchmetrics.functional.image.structural_similarity_index_measure", "img", {}),
]:
    entry("torchmetrics", _name)(_tm_fn(_name, _kind, **_kw))
for _name, _kind in [
    ("torchmetrics.regression.MeanSquaredError", "reg"),
    ("torchmetrics.regression.MeanAbsoluteError", "reg"),
    ("torchmetrics.regression.PearsonCorrCoef", "reg"),
    ("torchmetrics.regression.R2Score", "reg"),
    ("torchmetrics.regression.CosineSimilarity", "reg"),
    ("torchmetrics.regression.ExplainedVariance", "reg"),
]:
    entry("torchmetrics", _name, cls=True)(_tm_mod(_name, _kind))


# --------------------------------------------------------------------------- vector-quantize
def _vq(cls: str, x_shape: tuple[int, ...], **kw: Any) -> Build:
    def build() -> Any:
        torch = _t()
        import vector_quantize_pytorch as V

        m = getattr(V, cls)(**kw)
        return m, (torch.randn(*x_shape),)

    return build


for _cls, _shape, _kw in [
    ("VectorQuantize", (2, 8, 16), {"dim": 16, "codebook_size": 32}),
    ("ResidualVQ", (2, 8, 16), {"dim": 16, "codebook_size": 32, "num_quantizers": 2}),
    ("GroupedResidualVQ", (2, 8, 16), {"dim": 16, "codebook_size": 32, "num_quantizers": 2}),
    ("FSQ", (2, 8, 3), {"levels": [8, 5, 5]}),
    ("ResidualFSQ", (2, 8, 16), {"dim": 16, "levels": [8, 5, 5], "num_quantizers": 2}),
    ("LFQ", (2, 8, 4), {"dim": 4, "codebook_size": 16}),
    ("ResidualLFQ", (2, 8, 16), {"dim": 16, "codebook_size": 16, "num_quantizers": 2}),
    ("LatentQuantize", (2, 8, 16), {"levels": [5, 5], "dim": 16}),
    ("SimVQ", (2, 8, 16), {"dim": 16, "codebook_size": 32}),
    ("ResidualSimVQ", (2, 8, 16), {"dim": 16, "codebook_size": 32, "num_quantizers": 2}),
    ("RandomProjectionQuantizer", (2, 8, 16), {"dim": 16, "codebook_size": 32, "codebook_dim": 8}),
]:
    entry("vector_quantize_pytorch", f"vector_quantize_pytorch.{_cls}", cls=True)(
        _vq(_cls, _shape, **_kw)
    )


# --------------------------------------------------------------------------- gpytorch
def _gp_kernel(cls: str, **kw: Any) -> Build:
    def build() -> Any:
        torch = _t()
        import gpytorch.kernels as K

        k = getattr(K, cls)(**kw)
        return (lambda a, b: k(a, b).to_dense()), (torch.randn(5, 2), torch.randn(4, 2))

    return build


for _cls, _kw in [
    ("RBFKernel", {}),
    ("MaternKernel", {}),
    ("PeriodicKernel", {}),
    ("LinearKernel", {}),
    ("RQKernel", {}),
    ("CosineKernel", {}),
    ("PolynomialKernel", {"power": 2}),
    ("PiecewisePolynomialKernel", {}),
    ("SpectralMixtureKernel", {"num_mixtures": 2}),
]:
    entry("gpytorch", f"gpytorch.kernels.{_cls}", cls=True)(_gp_kernel(_cls, **_kw))


@entry("gpytorch", "gpytorch.kernels.ScaleKernel", cls=True)
def _scale() -> Any:
    torch = _t()
    import gpytorch.kernels as K

    k = K.ScaleKernel(K.RBFKernel())
    return (lambda a, b: k(a, b).to_dense()), (torch.randn(5, 2), torch.randn(4, 2))


for _cls, _kw in [("ConstantMean", {}), ("ZeroMean", {}), ("LinearMean", {"input_size": 2})]:

    def _mean(cls: str = _cls, kw: dict[str, Any] = _kw) -> Any:
        torch = _t()
        import gpytorch.means as M

        return getattr(M, cls)(**kw), (torch.randn(5, 2),)

    entry("gpytorch", f"gpytorch.means.{_cls}", cls=True)(_mean)


# --------------------------------------------------------------------------- zuko
def _zuko(cls: str, **kw: Any) -> Build:
    def build() -> Any:
        torch = _t()
        import zuko

        flow = getattr(zuko.flows, cls)(**kw)
        return (lambda x: flow().log_prob(x)), (torch.randn(4, 3),)

    return build


for _cls, _kw in [
    ("MAF", {"features": 3}),
    ("NSF", {"features": 3}),
    ("RealNVP", {"features": 3}),
    ("NICE", {"features": 3}),
    ("SOSPF", {"features": 3}),
    ("GMM", {"features": 3}),
    ("NCSF", {"features": 3}),
    ("BPF", {"features": 3}),
]:
    entry("zuko", f"zuko.flows.{_cls}", cls=True)(_zuko(_cls, **_kw))


# --------------------------------------------------------------------------- nflows
def _nflows(cls: str, *args: Any, **kw: Any) -> Build:
    def build() -> Any:
        torch = _t()
        import nflows.transforms as T

        m = getattr(T, cls)(*args, **kw)
        return m, (torch.randn(4, 4),)

    return build


for _cls, _args, _kw in [
    ("MaskedAffineAutoregressiveTransform", (4, 8), {}),
    ("MaskedPiecewiseRationalQuadraticAutoregressiveTransform", (4, 8), {}),
    ("MaskedPiecewiseLinearAutoregressiveTransform", (8, 4, 8), {}),
    ("ActNorm", (4,), {}),
    ("LULinear", (4,), {}),
    ("RandomPermutation", (4,), {}),
    ("ReversePermutation", (4,), {}),
    ("BatchNorm", (4,), {}),
    ("NaiveLinear", (4,), {}),
    ("SVDLinear", (4,), {"num_householder": 2}),
    ("Tanh", (), {}),
    ("LeakyReLU", (), {}),
    ("Sigmoid", (), {}),
]:
    entry("nflows", f"nflows.transforms.{_cls}", cls=True)(_nflows(_cls, *_args, **_kw))


# --------------------------------------------------------------------------- x-transformers
def _xt(build_fn: Callable[[Any, Any], tuple[Any, tuple[Any, ...]]]) -> Build:
    def build() -> Any:
        torch = _t()
        import x_transformers as X

        return build_fn(torch, X)

    return build


for _name, _fn in [
    (
        "TransformerWrapper",
        lambda torch, X: (
            X.TransformerWrapper(
                num_tokens=20, max_seq_len=16, attn_layers=X.Decoder(dim=16, depth=1, heads=2)
            ),
            (torch.randint(0, 20, (2, 8)),),
        ),
    ),
    (
        "Encoder",
        lambda torch, X: (X.Encoder(dim=16, depth=1, heads=2), (torch.randn(2, 8, 16),)),
    ),
    (
        "Decoder",
        lambda torch, X: (X.Decoder(dim=16, depth=1, heads=2), (torch.randn(2, 8, 16),)),
    ),
    (
        "ContinuousTransformerWrapper",
        lambda torch, X: (
            X.ContinuousTransformerWrapper(
                dim_in=4,
                dim_out=4,
                max_seq_len=16,
                attn_layers=X.Encoder(dim=16, depth=1, heads=2),
            ),
            (torch.randn(2, 8, 4),),
        ),
    ),
    (
        "ViTransformerWrapper",
        lambda torch, X: (
            X.ViTransformerWrapper(
                image_size=8, patch_size=4, attn_layers=X.Encoder(dim=16, depth=1, heads=2)
            ),
            (torch.randn(2, 3, 8, 8),),
        ),
    ),
    (
        "Attention",
        lambda torch, X: (X.Attention(dim=16, heads=2), (torch.randn(2, 8, 16),)),
    ),
    (
        "FeedForward",
        lambda torch, X: (X.FeedForward(dim=16), (torch.randn(2, 8, 16),)),
    ),
    (
        "RMSNorm",
        lambda torch, X: (X.RMSNorm(16), (torch.randn(2, 8, 16),)),
    ),
    (
        "AttentionPool",
        lambda torch, X: (X.AttentionPool(16), (torch.randn(2, 8, 16),)),
    ),
    (
        "CrossAttender",
        lambda torch, X: (X.CrossAttender(dim=16, depth=1, heads=2), (torch.randn(2, 8, 16),)),
    ),
]:
    entry("x_transformers", f"x_transformers.{_name}", cls=True)(_xt(_fn))


# --------------------------------------------------------------------------- rotary
@entry("rotary_embedding_torch", "rotary_embedding_torch.RotaryEmbedding", cls=True)
def _rot() -> Any:
    torch = _t()
    from rotary_embedding_torch import RotaryEmbedding

    return RotaryEmbedding(dim=8), (torch.arange(6).float(),)


@entry("rotary_embedding_torch", "rotary_embedding_torch.apply_rotary_emb")
def _rot_apply() -> Any:
    torch = _t()
    from rotary_embedding_torch import apply_rotary_emb

    return (lambda f, t: apply_rotary_emb(f, t)), (torch.randn(6, 8), torch.randn(2, 2, 6, 16))


@entry("rotary_embedding_torch", "rotary_embedding_torch.broadcat")
def _rot_broadcat() -> Any:
    torch = _t()
    from rotary_embedding_torch import broadcat

    return (lambda a, b: broadcat((a, b))), (torch.randn(2, 1, 4), torch.randn(1, 3, 4))


@entry("rotary_embedding_torch", "rotary_embedding_torch.apply_learned_rotations")
def _rot_learned() -> Any:
    torch = _t()
    from rotary_embedding_torch import apply_learned_rotations

    return (lambda r, t: apply_learned_rotations(r, t)), (
        torch.randn(2, 6, 4),
        torch.randn(2, 6, 8),
    )


# --------------------------------------------------------------------------- einops
@entry("einops", "einops.rearrange")
def _rearrange() -> Any:
    torch = _t()
    import einops

    return (lambda x: einops.rearrange(x, "b c h w -> b (h w) c")), (torch.randn(2, 3, 4, 4),)


@entry("einops", "einops.reduce")
def _reduce() -> Any:
    torch = _t()
    import einops

    return (lambda x: einops.reduce(x, "b c h w -> b c", "mean")), (torch.randn(2, 3, 4, 4),)


@entry("einops", "einops.repeat")
def _repeat() -> Any:
    torch = _t()
    import einops

    return (lambda x: einops.repeat(x, "b c -> b c n", n=3)), (torch.randn(2, 3),)


@entry("einops", "einops.pack")
def _pack() -> Any:
    torch = _t()
    import einops

    return (lambda a, b: einops.pack([a, b], "b *")), (torch.randn(2, 3), torch.randn(2, 4, 5))


@entry("einops", "einops.unpack")
def _unpack() -> Any:
    torch = _t()
    import einops

    return (lambda x: einops.unpack(x, [(3,), (4, 5)], "b *")), (torch.randn(2, 23),)


@entry("einops", "einops.einsum")
def _einsum() -> Any:
    torch = _t()
    import einops

    return (lambda a, b: einops.einsum(a, b, "b i, b j -> b i j")), (
        torch.randn(2, 3),
        torch.randn(2, 4),
    )


@entry("einops", "einops.parse_shape")
def _parse_shape() -> Any:
    torch = _t()
    import einops

    return (lambda x: x * einops.parse_shape(x, "b c")["c"]), (torch.randn(2, 3),)


@entry("einops", "einops.layers.torch.Rearrange", cls=True)
def _l_rearrange() -> Any:
    torch = _t()
    from einops.layers.torch import Rearrange

    return Rearrange("b c h w -> b (c h w)"), (torch.randn(2, 3, 4, 4),)


@entry("einops", "einops.layers.torch.Reduce", cls=True)
def _l_reduce() -> Any:
    torch = _t()
    from einops.layers.torch import Reduce

    return Reduce("b c h w -> b c", "max"), (torch.randn(2, 3, 4, 4),)


@entry("einops", "einops.layers.torch.EinMix", cls=True)
def _l_einmix() -> Any:
    torch = _t()
    from einops.layers.torch import EinMix

    return EinMix("b t c -> b t d", weight_shape="c d", c=4, d=6), (torch.randn(2, 3, 4),)


# --------------------------------------------------------------------------- dev3 (lib23i)
# Fifteen packages no other probe set or corpus uses, every entry development material: a set of its
# own (``labels_dev3.json``), so the dev/held-out split of the eleven packages above is unchanged.
DEV3: set[str] = set()


def entry3(pkg: str, name: str, cls: bool = False) -> Callable[[Build], Build]:
    DEV3.add(pkg)
    return entry(pkg, name, cls)


def _mod3(mod: str, cls: str, make: Callable[[Any], tuple[Any, ...]], **kw: Any) -> Build:
    """A module of ``mod`` built with ``kw``, called on ``make(torch)``."""

    def build() -> Any:
        torch = _t()
        import importlib

        m = getattr(importlib.import_module(mod), cls)(**kw)
        return m, make(torch)

    return build


def _x(*shape: int) -> Callable[[Any], tuple[Any, ...]]:
    return lambda torch: (torch.randn(*shape),)


def _tok(*shape: int) -> Callable[[Any], tuple[Any, ...]]:
    return lambda torch: (torch.randint(0, 20, shape),)


for _pkg, _cls, _make, _kw in [
    (
        "local_attention",
        "LocalAttention",
        lambda t: (t.randn(2, 8, 8),) * 3,
        {"window_size": 4, "dim": 8},
    ),
    ("local_attention", "LocalMHA", _x(2, 8, 16), {"dim": 16, "window_size": 4, "heads": 2}),
    (
        "local_attention",
        "LocalTransformer",
        _tok(2, 8),
        {
            "num_tokens": 20,
            "max_seq_len": 16,
            "dim": 16,
            "depth": 1,
            "local_attn_window_size": 4,
            "heads": 2,
        },
    ),
    ("local_attention", "DynamicPositionBias", lambda t: (8, 8), {"dim": 8, "heads": 2}),
    ("performer_pytorch", "FastAttention", lambda t: (t.randn(2, 2, 8, 8),) * 3, {"dim_heads": 8}),
    ("performer_pytorch", "SelfAttention", _x(2, 8, 16), {"dim": 16, "heads": 2, "dim_head": 8}),
    (
        "performer_pytorch",
        "Performer",
        _x(2, 8, 16),
        {"dim": 16, "depth": 1, "heads": 2, "dim_head": 8},
    ),
    (
        "performer_pytorch",
        "PerformerLM",
        _tok(2, 8),
        {"num_tokens": 20, "max_seq_len": 16, "dim": 16, "depth": 1, "heads": 2},
    ),
    (
        "nystrom_attention",
        "NystromAttention",
        _x(2, 8, 16),
        {"dim": 16, "dim_head": 8, "heads": 2, "num_landmarks": 4},
    ),
    (
        "nystrom_attention",
        "Nystromformer",
        _x(2, 8, 16),
        {"dim": 16, "depth": 1, "dim_head": 8, "heads": 2, "num_landmarks": 4},
    ),
    (
        "linear_attention_transformer",
        "LinearAttentionTransformer",
        _x(2, 8, 16),
        {"dim": 16, "depth": 1, "max_seq_len": 16, "heads": 2},
    ),
    (
        "linear_attention_transformer",
        "LinearAttentionTransformerLM",
        _tok(2, 8),
        {"num_tokens": 20, "dim": 16, "depth": 1, "max_seq_len": 16, "heads": 2},
    ),
    (
        "linear_attention_transformer",
        "ImageLinearAttention",
        _x(2, 4, 8, 8),
        {"chan": 4, "heads": 2, "key_dim": 8, "value_dim": 8},
    ),
    ("siren_pytorch", "Siren", _x(4, 2), {"dim_in": 2, "dim_out": 8}),
    (
        "siren_pytorch",
        "SirenNet",
        _x(4, 2),
        {"dim_in": 2, "dim_hidden": 16, "dim_out": 3, "num_layers": 2},
    ),
    ("siren_pytorch", "Sine", _x(4, 2), {}),
    (
        "linformer",
        "Linformer",
        _x(2, 8, 16),
        {"dim": 16, "seq_len": 8, "depth": 1, "k": 4, "heads": 2},
    ),
    (
        "linformer",
        "LinformerLM",
        _tok(2, 8),
        {"num_tokens": 20, "dim": 16, "seq_len": 8, "depth": 1, "k": 4, "heads": 2},
    ),
    (
        "linformer",
        "LinformerSelfAttention",
        _x(2, 8, 16),
        {"dim": 16, "seq_len": 8, "k": 4, "heads": 2},
    ),
    (
        "product_key_memory",
        "PKM",
        _x(2, 8, 16),
        {"dim": 16, "heads": 2, "num_keys": 8, "topk": 4, "dim_head": 8},
    ),
    (
        "axial_positional_embedding",
        "AxialPositionalEmbedding",
        _x(2, 8, 16),
        {"dim": 16, "axial_shape": (4, 4)},
    ),
    (
        "axial_positional_embedding",
        "AxialPositionalEmbeddingImage",
        _x(2, 4, 8, 8),
        {"dim": 4, "axial_shape": (8, 8)},
    ),
    (
        "axial_positional_embedding",
        "ContinuousAxialPositionalEmbedding",
        lambda t: ((4, 4),),
        {"dim": 16, "num_axial_dims": 2},
    ),
]:
    entry3(_pkg, f"{_pkg}.{_cls}", cls=True)(_mod3(_pkg, _cls, _make, **_kw))


@entry3("performer_pytorch", "performer_pytorch.CrossAttention", cls=True)
def _perf_cross() -> Any:
    torch = _t()
    from performer_pytorch import CrossAttention

    m = CrossAttention(dim=16, heads=2, dim_head=8)
    return (lambda x, c: m(x, context=c)), (torch.randn(2, 8, 16), torch.randn(2, 6, 16))


@entry3("siren_pytorch", "siren_pytorch.SirenWrapper", cls=True)
def _siren_wrap() -> Any:
    _t()
    from siren_pytorch import SirenNet, SirenWrapper

    net = SirenNet(dim_in=2, dim_hidden=16, dim_out=3, num_layers=2)
    return SirenWrapper(net, image_width=4, image_height=4), ()


def _cde_path(torch: Any) -> Any:
    return torch.randn(2, 5, 3)


for _fn in [
    "natural_cubic_coeffs",
    "linear_interpolation_coeffs",
    "hermite_cubic_coefficients_with_backward_differences",
]:

    def _coeffs(fn: str = _fn) -> Any:
        torch = _t()
        import torchcde

        f = getattr(torchcde, fn)
        return (lambda x: f(x)), (_cde_path(torch),)

    entry3("torchcde", f"torchcde.{_fn}")(_coeffs)


@entry3("torchcde", "torchcde.cdeint")
def _cdeint() -> Any:
    torch = _t()
    import torchcde

    class F(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(4, 4 * 3)

        def forward(self, t: Any, z: Any) -> Any:
            return torch.tanh(self.lin(z)).view(z.shape[0], 4, 3)

    f = F()
    coeffs = torchcde.natural_cubic_coeffs(_cde_path(torch))

    def run(c: Any, z0: Any) -> Any:
        X = torchcde.CubicSpline(c)
        return torchcde.cdeint(X=X, func=f, z0=z0, t=X.interval)

    return run, (coeffs, torch.randn(2, 4))


@entry3("torchode", "torchode.solve_ivp")
def _solve_ivp() -> Any:
    torch = _t()
    import torchode

    return (lambda y0, t: torchode.solve_ivp(lambda t, y: -y, y0, t)), (
        torch.randn(2, 2),
        torch.linspace(0, 1, 3).repeat(2, 1),
    )


# dev3, second part: five more packages (normalising flows, LSH attention, metric-learning
# losses and miners, k-means, Perceiver)
for _pkg, _cls, _make, _kw in [
    ("normflows.flows", "Planar", _x(8, 4), {"shape": (4,)}),
    ("normflows.flows", "Radial", _x(8, 4), {"shape": (4,)}),
    (
        "normflows.flows",
        "AutoregressiveRationalQuadraticSpline",
        _x(8, 4),
        {"num_input_channels": 4, "num_blocks": 1, "num_hidden_channels": 8},
    ),
    (
        "normflows.flows",
        "CoupledRationalQuadraticSpline",
        _x(8, 4),
        {"num_input_channels": 4, "num_blocks": 1, "num_hidden_channels": 8},
    ),
    (
        "normflows.flows",
        "MaskedAffineAutoregressive",
        _x(8, 4),
        {"features": 4, "hidden_features": 8},
    ),
    ("normflows.flows", "Permute", _x(8, 4), {"num_channels": 4}),
    ("normflows.flows", "LULinearPermute", _x(8, 4), {"num_channels": 4}),
    ("normflows.flows", "Invertible1x1Conv", _x(2, 4, 4, 4), {"num_channels": 4}),
    (
        "reformer_pytorch",
        "LSHSelfAttention",
        _x(2, 16, 16),
        {"dim": 16, "heads": 2, "bucket_size": 4, "n_hashes": 2},
    ),
    (
        "reformer_pytorch",
        "Reformer",
        _x(2, 16, 16),
        {"dim": 16, "depth": 1, "heads": 2, "bucket_size": 4, "n_hashes": 2},
    ),
    (
        "reformer_pytorch",
        "ReformerLM",
        _tok(2, 16),
        {
            "num_tokens": 20,
            "dim": 16,
            "depth": 1,
            "max_seq_len": 16,
            "heads": 2,
            "bucket_size": 4,
            "n_hashes": 2,
        },
    ),
    (
        "perceiver_pytorch",
        "Perceiver",
        _x(2, 8, 8, 3),
        {
            "num_freq_bands": 2,
            "depth": 1,
            "max_freq": 4.0,
            "num_latents": 4,
            "latent_dim": 16,
            "cross_dim_head": 8,
            "latent_dim_head": 8,
            "latent_heads": 2,
            "num_classes": 5,
        },
    ),
]:
    entry3(_pkg.split(".")[0], f"{_pkg}.{_cls}", cls=True)(_mod3(_pkg, _cls, _make, **_kw))


def _pml(torch: Any) -> tuple[Any, ...]:
    return torch.randn(8, 8), torch.randint(0, 3, (8,))


for _pkg, _cls, _kw in [
    ("pytorch_metric_learning.losses", "ContrastiveLoss", {}),
    ("pytorch_metric_learning.losses", "TripletMarginLoss", {}),
    ("pytorch_metric_learning.losses", "NTXentLoss", {}),
    ("pytorch_metric_learning.losses", "MultiSimilarityLoss", {}),
    ("pytorch_metric_learning.losses", "CircleLoss", {}),
    ("pytorch_metric_learning.losses", "SupConLoss", {}),
    ("pytorch_metric_learning.losses", "ArcFaceLoss", {"num_classes": 3, "embedding_size": 8}),
    ("pytorch_metric_learning.miners", "MultiSimilarityMiner", {}),
    ("pytorch_metric_learning.miners", "TripletMarginMiner", {}),
    ("pytorch_metric_learning.miners", "BatchHardMiner", {}),
]:
    entry3("pytorch_metric_learning", f"{_pkg}.{_cls}", cls=True)(_mod3(_pkg, _cls, _pml, **_kw))


@entry3("perceiver_pytorch", "perceiver_pytorch.PerceiverIO", cls=True)
def _perceiver_io() -> Any:
    torch = _t()
    from perceiver_pytorch import PerceiverIO

    m = PerceiverIO(
        depth=1,
        dim=16,
        queries_dim=8,
        logits_dim=5,
        num_latents=4,
        latent_dim=16,
        cross_dim_head=8,
        latent_dim_head=8,
        latent_heads=2,
    )
    return (lambda d, q: m(d, queries=q)), (torch.randn(2, 8, 16), torch.randn(2, 4, 8))


@entry3("kmeans_pytorch", "kmeans_pytorch.kmeans")
def _kmeans() -> Any:
    torch = _t()
    from kmeans_pytorch import kmeans

    return (lambda x: kmeans(x, num_clusters=3)), (torch.randn(20, 2),)


@entry3("kmeans_pytorch", "kmeans_pytorch.kmeans_predict")
def _kmeans_predict() -> Any:
    torch = _t()
    from kmeans_pytorch import kmeans_predict

    return (lambda x, c: kmeans_predict(x, c)), (torch.randn(20, 2), torch.randn(3, 2))


# --------------------------------------------------------------------------- dev4 (lib23j)
# Eleven more packages no other probe set or corpus uses, every entry development material, in a set
# of its own (``labels_dev4.json``): sparse softmaxes, DCTs, mixtures of experts (training and eval
# routing, capacity, auxiliary losses), memory-efficient and routed attention, an EMA wrapper.
DEV4: set[str] = set()


def entry4(pkg: str, name: str, cls: bool = False) -> Callable[[Build], Build]:
    DEV4.add(pkg)
    return entry(pkg, name, cls)


def _fn4(mod: str, fn: str, make: Callable[[Any], tuple[Any, ...]], **kw: Any) -> Build:
    """The function ``mod.fn`` called on ``make(torch)`` with ``kw`` (the rest left at defaults)."""

    def build() -> Any:
        torch = _t()
        import importlib

        f = getattr(importlib.import_module(mod), fn)
        return (lambda *a: f(*a, **kw)), make(torch)

    return build


def _xt(torch: Any) -> tuple[Any, ...]:
    return torch.randn(4, 6), torch.randint(0, 6, (4,))


for _fn in ("sparsemax", "entmax15", "entmax_bisect", "sparsemax_bisect", "normmax_bisect"):
    entry4("entmax", f"entmax.{_fn}")(_fn4("entmax", _fn, _x(4, 6)))
for _fn in ("sparsemax_loss", "entmax15_loss", "sparsemax_bisect_loss", "entmax_bisect_loss"):
    entry4("entmax", f"entmax.{_fn}")(_fn4("entmax", _fn, _xt))
for _cls in ("Sparsemax", "Entmax15", "EntmaxBisect", "BudgetBisect"):
    entry4("entmax", f"entmax.{_cls}", cls=True)(_mod3("entmax", _cls, _x(4, 6)))
for _cls in ("SparsemaxLoss", "Entmax15Loss", "EntmaxBisectLoss"):
    entry4("entmax", f"entmax.{_cls}", cls=True)(_mod3("entmax", _cls, _xt))
for _fn in ("dct", "idct", "dct1", "dct_2d", "idct_2d", "dct_3d"):
    entry4("torch_dct", f"torch_dct.{_fn}")(_fn4("torch_dct", _fn, _x(2, 4, 4, 4)))
entry4("torch_dct", "torch_dct.LinearDCT", cls=True)(
    _mod3("torch_dct", "LinearDCT", _x(2, 4), in_features=4, type="dct")
)
entry4("sparsemax", "sparsemax.Sparsemax", cls=True)(_mod3("sparsemax", "Sparsemax", _x(4, 6)))
for _fn, _make, _kw in [
    ("check_shape", _x(2, 3), {"pattern": "b n", "b": 2}),
    (
        "rearrange_many",
        lambda t: ((t.randn(2, 3, 4), t.randn(2, 3, 4)),),
        {"pattern": "b n (h d) -> b h n d", "h": 2},
    ),
    ("repeat_many", lambda t: ((t.randn(2, 3),),), {"pattern": "b n -> b n r", "r": 2}),
    ("rearrange_with_anon_dims", _x(2, 3, 4), {"pattern": "b ... d -> b d ..."}),
]:
    entry4("einops_exts", f"einops_exts.{_fn}")(_fn4("einops_exts", _fn, _make, **_kw))


@entry4("einops_exts", "einops_exts.torch.EinopsToAndFrom", cls=True)
def _to_and_from() -> Any:
    torch = _t()
    from einops_exts.torch import EinopsToAndFrom

    return EinopsToAndFrom("b c h w", "b (h w) c", torch.nn.Identity()), (torch.randn(2, 3, 4, 4),)


_MEGA = {"num_tokens": 20, "dim": (16, 8), "depth": (1, 1), "max_seq_len": (4, 4)}
for _pkg, _cls, _make, _kw in [
    ("MEGABYTE_pytorch", "MEGABYTE", _tok(2, 16), {**_MEGA, "dim_head": 8, "heads": 2}),
    ("mixture_of_experts", "MoE", _x(2, 6, 8), {"dim": 8, "num_experts": 4}),
    ("mixture_of_experts", "HeirarchicalMoE", _x(2, 6, 8), {"dim": 8, "num_experts": (2, 2)}),
    ("mixture_of_experts", "Experts", _x(4, 6, 8), {"dim": 8, "num_experts": 4}),
    ("st_moe_pytorch", "MoE", _x(2, 6, 8), {"dim": 8, "num_experts": 4}),
    ("soft_moe_pytorch", "SoftMoE", _x(2, 6, 8), {"dim": 8, "seq_len": 6, "num_experts": 4}),
    ("soft_moe_pytorch", "DynamicSlotsSoftMoE", _x(2, 6, 8), {"dim": 8, "num_experts": 4}),
    (
        "memory_efficient_attention_pytorch",
        "Attention",
        _x(2, 8, 16),
        {"dim": 16, "heads": 2, "dim_head": 8},
    ),
    (
        "memory_efficient_attention_pytorch",
        "CosineSimAttention",
        _x(2, 8, 16),
        {"dim": 16, "seq_len": 8, "heads": 2, "dim_head": 8},
    ),
    (
        "memory_efficient_attention_pytorch",
        "FlashAttention",
        _x(2, 8, 16),
        {"dim": 16, "heads": 2, "dim_head": 8, "q_bucket_size": 4, "k_bucket_size": 4},
    ),
    (
        "colt5_attention",
        "ConditionalRoutedFeedForward",
        _x(2, 8, 16),
        {"dim": 16, "num_heavy_tokens": 4},
    ),
    (
        "colt5_attention",
        "ConditionalRoutedAttention",
        _x(2, 8, 16),
        {
            "dim": 16,
            "num_heavy_tokens_q": 4,
            "num_heavy_tokens_kv": 4,
            "light_dim_head": 8,
            "light_heads": 2,
            "light_window_size": 4,
            "heavy_dim_head": 8,
            "heavy_heads": 2,
        },
    ),
    (
        "colt5_attention",
        "ConditionalRoutedAutoregressiveAttention",
        _x(2, 8, 16),
        {
            "dim": 16,
            "num_heavy_tokens_q": 2,
            "num_heavy_tokens_kv": 2,
            "light_dim_head": 8,
            "light_heads": 2,
            "light_window_size": 4,
            "heavy_window_size": 4,
            "heavy_dim_head": 8,
            "heavy_heads": 2,
        },
    ),
]:
    entry4(_pkg, f"{_pkg}.{_cls}", cls=True)(_mod3(_pkg, _cls, _make, **_kw))


@entry4("st_moe_pytorch", "st_moe_pytorch.SparseMoEBlock", cls=True)
def _sparse_moe_block() -> Any:
    torch = _t()
    from st_moe_pytorch import MoE, SparseMoEBlock

    return SparseMoEBlock(MoE(dim=8, num_experts=4)), (torch.randn(2, 6, 8),)


@entry4(
    "memory_efficient_attention_pytorch",
    "memory_efficient_attention_pytorch.memory_efficient_attention",
)
def _mea() -> Any:
    torch = _t()
    from memory_efficient_attention_pytorch import memory_efficient_attention

    return memory_efficient_attention, (torch.randn(2, 2, 8, 8),) * 3


@entry4("colt5_attention", "colt5_attention.CoordinateDescentRouter", cls=True)
def _router() -> Any:
    torch = _t()
    from colt5_attention import CoordinateDescentRouter

    r = CoordinateDescentRouter(16)
    return (lambda x: r(x, num_tokens=4)), (torch.randn(2, 8, 16),)


entry4("colt5_attention", "colt5_attention.topk")(_fn4("colt5_attention", "topk", _x(2, 8), k=3))
entry4("colt5_attention", "colt5_attention.coor_descent")(
    _fn4("colt5_attention", "coor_descent", _x(2, 8), n_iters=5, k=3)
)


@entry4("ema_pytorch", "ema_pytorch.EMA", cls=True)
def _ema() -> Any:
    torch = _t()
    from ema_pytorch import EMA

    return EMA(torch.nn.Linear(4, 4)), (torch.randn(2, 4),)


# dev4, second part: image-quality metrics and batched k-means (real breaks, optional paths)
def _img_pair(torch: Any) -> tuple[Any, ...]:
    return torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16)


def _img_large(torch: Any) -> tuple[Any, ...]:
    return torch.rand(1, 3, 180, 180), torch.rand(1, 3, 180, 180)


entry4("pytorch_msssim", "pytorch_msssim.ssim")(_fn4("pytorch_msssim", "ssim", _img_pair))
entry4("pytorch_msssim", "pytorch_msssim.ms_ssim")(_fn4("pytorch_msssim", "ms_ssim", _img_large))
entry4("pytorch_msssim", "pytorch_msssim.SSIM", cls=True)(
    _mod3("pytorch_msssim", "SSIM", _img_pair)
)
entry4("pytorch_msssim", "pytorch_msssim.MS_SSIM", cls=True)(
    _mod3("pytorch_msssim", "MS_SSIM", _img_large)
)
for _cls in ("KMeans", "SoftKMeans"):
    entry4("torch_kmeans", f"torch_kmeans.{_cls}", cls=True)(
        _mod3("torch_kmeans", _cls, _x(2, 20, 2), n_clusters=3)
    )


# --------------------------------------------------------------------------- dev5 (pred26b)
# Packages (and two files of transformers) no other probe set uses, every entry development
# material, in a set of its own (``labels_dev5.json``), written and labelled before any analysis
# change of issue 23's round 22: residual-stream mixing (hyper-connections, manifold-constrained
# with Sinkhorn iterations), the einops-style tensor utilities of torch-einops-utils (masks,
# padding, numerically stable losses, statistics), and transformers' activation modules and
# ``pytorch_utils``.
DEV5: set[str] = set()


def entry5(pkg: str, name: str, cls: bool = False) -> Callable[[Build], Build]:
    DEV5.add(pkg)
    return entry(pkg, name, cls)


def _streams(torch: Any) -> tuple[Any, ...]:
    return (torch.randn(8, 6, 8),)  # batch 2 x 4 residual streams, 6 tokens, dim 8


def _pair(*shape: int) -> Callable[[Any], tuple[Any, ...]]:
    return lambda torch: (torch.randn(*shape), torch.randn(*shape))


for _cls, _kw in [
    ("HyperConnections", {}),
    ("ManifoldConstrainedHyperConnections", {}),
    ("Residual", {}),
]:

    def _hc(cls: str = _cls, kw: dict[str, Any] = _kw) -> Any:
        torch = _t()
        import hyper_connections

        m = getattr(hyper_connections, cls)(4, dim=8, branch=torch.nn.Linear(8, 8), **kw)
        return m, _streams(torch)

    entry5("hyper_connections", f"hyper_connections.{_cls}", cls=True)(_hc)
for _cls, _make, _kw in [
    ("StreamEmbed", _streams, {"num_streams": 4, "dim": 8}),
    ("AttentionPoolReduceStream", _streams, {"num_streams": 4, "dim": 8}),
]:
    entry5("hyper_connections", f"hyper_connections.{_cls}", cls=True)(
        _mod3("hyper_connections", _cls, _make, **_kw)
    )
for _cls, _kw in [
    ("GatedResidual", {"dim": 8}),
    ("GRUGatedResidual", {"dim": 8}),
    ("OrthogonalResidualUpdate", {}),
    ("MVSplitResidualUpdate", {"dim": 8}),
]:
    entry5("hyper_connections", f"hyper_connections.residuals.{_cls}", cls=True)(
        _mod3("hyper_connections.residuals", _cls, _pair(2, 6, 8), **_kw)
    )


def _eu_mask(torch: Any) -> tuple[Any, ...]:
    return torch.randn(2, 6, 4), torch.rand(2, 6) > 0.3


def _eu_seqs(torch: Any) -> tuple[Any, ...]:
    return ([torch.randn(3, 4), torch.randn(3, 6), torch.randn(3, 2)],)


def _eu_logits(torch: Any) -> tuple[Any, ...]:
    return torch.randn(4, 5), torch.randint(0, 5, (4,))


_EU = "torch_einops_utils"
for _fn, _make, _kw in [
    ("masked_mean", _eu_mask, {}),
    ("masked_sum", _eu_mask, {}),
    ("pad_at_dim", _x(2, 5), {"pad": (1, 2)}),
    ("pad_left_at_dim_to", _x(2, 5), {"length": 8}),
    ("pad_at_dim_to_multiple", _x(2, 5), {"multiple": 4}),
    ("pad_sequence", _eu_seqs, {}),
    ("pad_sequence_and_cat", _eu_seqs, {}),
    ("safe_cat", _eu_seqs, {"dim": -1}),
    ("lens_to_mask", lambda t: (t.tensor([2, 5, 3]),), {}),
    ("mask_after", _x(2, 5), {"value": 2}),
    ("shift", _x(2, 5), {}),
    ("exclusive_cumsum", _x(2, 5), {}),
    ("align_dims_left", lambda t: ((t.randn(2, 3, 4), t.randn(2)),), {}),
    ("batched_index_select", lambda t: (t.randn(2, 6, 4), t.randint(0, 6, (2, 3))), {}),
    ("repeat_interleave_to_match", lambda t: (t.randn(2, 4), t.randn(6, 4)), {}),
    ("slice_at_dim", _x(2, 6), {"slc": slice(1, 4)}),
    ("pack_with_inverse", _x(2, 3, 4), {"pattern": "b *"}),
    ("z_score", _x(2, 6), {}),
    ("entropy", lambda t: (t.randn(2, 6).softmax(-1),), {}),
    ("slerp", lambda t: (t.randn(2, 4), t.randn(2, 4), 0.3), {}),
    ("log_softmax", _x(2, 5), {}),
    ("cross_entropy", _eu_logits, {"class_dim": -1}),
    ("binary_cross_entropy_with_logits", lambda t: (t.randn(4), t.rand(4)), {}),
    ("soft_target_cross_entropy_from_logits", _pair(2, 5), {}),
    ("categorical_kl", _pair(2, 5), {}),
]:
    entry5(_EU, f"{_EU}.{_fn}")(_fn4(_EU, _fn, _make, **_kw))
entry5(_EU, f"{_EU}.math.l2norm")(_fn4(f"{_EU}.math", "l2norm", _x(2, 4)))
entry5(_EU, f"{_EU}.nn.Residual", cls=True)(
    _mod3(f"{_EU}.nn", "Residual", _x(2, 4), fn=lambda t: t * 2)
)

_ACT = "transformers.activations"
for _cls, _kw in [
    ("GELUActivation", {}),
    ("NewGELUActivation", {}),
    ("FastGELUActivation", {}),
    ("QuickGELUActivation", {}),
    ("ClippedGELUActivation", {"min": -10.0, "max": 10.0}),
    ("AccurateGELUActivation", {}),
    ("MishActivation", {}),
    ("LaplaceActivation", {}),
    ("ReLUSquaredActivation", {}),
    ("LinearActivation", {}),
    ("PytorchGELUTanh", {}),
]:
    entry5("transformers", f"{_ACT}.{_cls}", cls=True)(_mod3(_ACT, _cls, _x(2, 8), **_kw))


@entry5("transformers", f"{_ACT}.get_activation")
def _get_act() -> Any:
    torch = _t()
    from transformers.activations import get_activation

    return (lambda x: get_activation("gelu_new")(x)), (torch.randn(2, 8),)


_PU = "transformers.pytorch_utils"
entry5("transformers", f"{_PU}.Conv1D", cls=True)(_mod3(_PU, "Conv1D", _x(2, 3, 4), nf=6, nx=4))


@entry5("transformers", f"{_PU}.apply_chunking_to_forward")
def _chunking() -> Any:
    torch = _t()
    from transformers.pytorch_utils import apply_chunking_to_forward

    lin = torch.nn.Linear(8, 8)

    def feed_forward_chunk(hidden_states: Any) -> Any:
        return lin(hidden_states)

    return (lambda x: apply_chunking_to_forward(feed_forward_chunk, 2, 1, x)), (
        torch.randn(2, 6, 8),
    )


# dev5, second part: diffusers' building blocks no other set judges (time and patch embeddings,
# gated activations, adaptive norms; corpus_libs judges the schedulers, UNets and attention
# processors).
_DE, _DA, _DN = (f"diffusers.models.{m}" for m in ("embeddings", "activations", "normalization"))


def _steps(torch: Any) -> tuple[Any, ...]:
    return (torch.tensor([1.0, 250.0, 999.0]),)


for _mod, _cls, _make, _kw in [
    (
        _DE,
        "Timesteps",
        _steps,
        {"num_channels": 8, "flip_sin_to_cos": True, "downscale_freq_shift": 0},
    ),
    (_DE, "TimestepEmbedding", _x(3, 8), {"in_channels": 8, "time_embed_dim": 16}),
    (
        _DE,
        "PatchEmbed",
        _x(2, 3, 16, 16),
        {"height": 16, "width": 16, "patch_size": 4, "embed_dim": 8},
    ),
    (_DE, "SinusoidalPositionalEmbedding", _x(2, 6, 8), {"embed_dim": 8}),
    (_DE, "GaussianFourierProjection", _steps, {"embedding_size": 8}),
    (
        _DE,
        "TextTimeEmbedding",
        _x(2, 6, 8),
        {"encoder_dim": 8, "time_embed_dim": 16, "num_heads": 2},
    ),
    (
        _DE,
        "LabelEmbedding",
        lambda t: (t.tensor([0, 2, 1]),),
        {"num_classes": 4, "hidden_size": 8, "dropout_prob": 0.1},
    ),
    (_DA, "GELU", _x(2, 6, 8), {"dim_in": 8, "dim_out": 16}),
    (_DA, "GEGLU", _x(2, 6, 8), {"dim_in": 8, "dim_out": 16}),
    (_DA, "ApproximateGELU", _x(2, 6, 8), {"dim_in": 8, "dim_out": 16}),
    (_DA, "SwiGLU", _x(2, 6, 8), {"dim_in": 8, "dim_out": 16}),
    (_DA, "LinearActivation", _x(2, 6, 8), {"dim_in": 8, "dim_out": 16}),
    (_DN, "RMSNorm", _x(2, 6, 8), {"dim": 8, "eps": 1e-6}),
    (
        _DN,
        "AdaLayerNorm",
        lambda t: (t.randn(2, 6, 8), None, t.randn(8)),
        {"embedding_dim": 8},
    ),
    (
        _DN,
        "AdaGroupNorm",
        lambda t: (t.randn(2, 8, 4, 4), t.randn(2, 6)),
        {"embedding_dim": 6, "out_dim": 8, "num_groups": 2},
    ),
    (
        _DN,
        "AdaLayerNormContinuous",
        lambda t: (t.randn(2, 6, 8), t.randn(2, 12)),
        {"embedding_dim": 8, "conditioning_embedding_dim": 12},
    ),
    (_DN, "GlobalResponseNorm", _x(2, 4, 4, 8), {"dim": 8}),
]:
    entry5("diffusers", f"{_mod}.{_cls}", cls=True)(_mod3(_mod, _cls, _make, **_kw))
entry5("diffusers", f"{_DE}.get_timestep_embedding")(
    _fn4(_DE, "get_timestep_embedding", _steps, embedding_dim=8)
)


# --------------------------------------------------------------------------- the split
def split_of(pkg: str) -> dict[str, str]:
    """Entry name -> "dev" | "heldout": per package, sorted by sha1 of the name, every second
    one held out (decided by the names alone, before any labels existed). A dev3 (dev4)
    package's entries are all "dev3" ("dev4")."""
    if pkg in DEV3:
        return {n: "dev3" for n, _, _ in ENTRIES[pkg]}
    if pkg in DEV4:
        return {n: "dev4" for n, _, _ in ENTRIES[pkg]}
    if pkg in DEV5:
        return {n: "dev5" for n, _, _ in ENTRIES[pkg]}
    names = sorted(
        (n for n, _, _ in ENTRIES[pkg]), key=lambda n: hashlib.sha1(n.encode()).hexdigest()
    )
    return {n: ("heldout" if i % 2 else "dev") for i, n in enumerate(names)}


def set_of(pkg: str) -> str:
    """The labels set a package's entries go to first: its own dev set, or the split dev half."""
    return "dev3" if pkg in DEV3 else "dev4" if pkg in DEV4 else "dev5" if pkg in DEV5 else "dev"


def globs(name: str, cls: bool) -> list[str]:
    """Library-mode ``entries`` globs for one entry: the function, or the class's ``forward`` /
    ``__call__`` as exported (``kornia.augmentation.ColorJitter.forward``)."""
    return [f"{name}.*"] if cls else [name]


# --------------------------------------------------------------------------- label (child)
def observe_package(pkg: str) -> dict[str, Any]:
    """In the child: each entry's ran lines and break lines inside the package's folder."""
    import torch._dynamo  # noqa: F401

    from compilelint.dynamic.api import build_result
    from compilelint.dynamic.inprocess import observe_live

    site = str(SITE)
    prefix = pkg + "/"
    out: dict[str, Any] = {}
    for name, cls, build in ENTRIES[pkg]:
        ran: set[tuple[str, int]] = set()

        def tracer(frame: Any, event: str, arg: Any, ran: set[tuple[str, int]] = ran) -> Any:
            f = frame.f_code.co_filename
            if not f.startswith(site):
                return None
            r = f[len(site) + 1 :]
            if r.startswith(prefix) and event in ("line", "call"):
                ran.add((r, frame.f_lineno))
            return tracer

        rec: dict[str, Any] = {"class": cls, "globs": globs(name, cls)}
        try:
            fn, args = build()
            sys.settrace(tracer)
            try:
                fn(*args)
            finally:
                sys.settrace(None)
            fn, args = build()  # a fresh object: the eager call may have changed its state
            with tempfile.TemporaryDirectory() as td:
                raw = observe_live(fn, args, {}, root=td)
                res = build_result(raw, td)
            breaks = set()
            reasons = []
            for b in res.breaks:
                own = [fr for fr in b.frames if (rel(fr.path) or "").startswith(prefix)]
                if own:
                    breaks.add((rel(own[-1].path), own[-1].line))
                    reasons.append([rel(own[-1].path), own[-1].line, b.gb_type, b.reason[:160]])
            rec.update(
                ran=sorted(ran),
                breaks=sorted(breaks),
                reasons=sorted(reasons),
                graphs=res.block.get("graph_count"),
                error=None,
            )
        except Exception as e:  # an entry that does not run as built is recorded, not labelled
            sys.settrace(None)
            rec.update(
                ran=[], breaks=[], reasons=[], graphs=None, error=f"{type(e).__name__}: {e}"[:300]
            )
        out[name] = rec
        print(
            f"  {name}: {len(rec['ran'])} lines ran, {len(rec['breaks'])} break lines"
            + (f", ERROR {rec['error']}" if rec["error"] else ""),
            file=sys.stderr,
            flush=True,
        )
    return out


def second_inputs(first: tuple[Any, ...], drawn: tuple[Any, ...]) -> tuple[Any, ...]:
    """The inputs of a user's second call: each tensor of ``first`` replaced by the one at the
    same place of ``drawn`` (the entry's inputs built again under another seed) where that has
    the same shape and dtype; anything else (a module, a number, a string) is the first call's
    own object, as a loop would pass it again."""
    import torch

    out = []
    for i, a in enumerate(first):
        b = drawn[i] if i < len(drawn) else None
        same = (
            isinstance(a, torch.Tensor)
            and isinstance(b, torch.Tensor)
            and a.shape == b.shape
            and a.dtype == b.dtype
        )
        out.append(b if same else a)
    return tuple(out)


def resized_inputs(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The inputs with a second batch size: every tensor of two or more dimensions gets one more
    row along its first dimension (a copy of its first row, so integer inputs keep their range);
    vectors (a time grid, a state) and scalars stay. None where no input changes."""
    import torch

    out: list[Any] = []
    changed = False
    for a in args:
        if isinstance(a, torch.Tensor) and a.dim() >= 2 and a.shape[0] > 0:
            out.append(torch.cat([a, a[:1]]).detach().requires_grad_(a.requires_grad))
            changed = True
        else:
            out.append(a)
    return tuple(out) if changed else None


def _innermost(frames: Any, site: str, prefix: str) -> tuple[str, int] | None:
    own = [
        (r, fr.line)
        for fr in frames
        for r in [_rel_to(fr.path, site)]
        if r is not None and r.startswith(prefix) and fr.line
    ]
    return own[-1] if own else None


def _rel_to(path: str | None, site: str) -> str | None:
    if not path:
        return None
    p = os.path.realpath(path)
    s = os.path.realpath(site)
    return p[len(s) + 1 :] if p.startswith(s + os.sep) else None


def observe_calls(build: Build, site: str, prefix: str) -> dict[str, Any]:
    """One entry called as a user's loop would: the first call (seed 0), a second call on the
    same object with new random inputs of the same shapes, and, where it has batched inputs, a
    third with one more row (:func:`resized_inputs`). Each further call is first tried eagerly
    on an object of its own and kept only where it runs. Then all of them go through the
    dynamic stage on one compiled object; recompiles and breaks are named by the innermost frame
    inside ``prefix`` (a folder of ``site``)."""
    from compilelint.dynamic.api import build_result
    from compilelint.dynamic.inprocess import observe_live

    SEED[0] = 1
    try:
        _, drawn = build()
    finally:
        SEED[0] = 0

    def further(args: tuple[Any, ...]) -> list[tuple[str, tuple[Any, ...]]]:
        second = second_inputs(args, drawn)
        bigger = resized_inputs(second)
        return [("new inputs, same shapes", second)] + (
            [("one more row", bigger)] if bigger is not None else []
        )

    f, a = build()
    runs = []
    try:
        f(*a)
    except Exception:
        pass
    for what, v in further(a):
        try:
            f(*v)
        except Exception:
            continue
        runs.append(what)
    res = None
    for n in range(len(runs), -1, -1):  # a compiled call that raises: retry with fewer calls
        fn, args = build()  # a fresh object for the compiled calls
        kept = [(w, v) for w, v in further(args) if w in runs[:n]]
        try:
            with tempfile.TemporaryDirectory() as td:
                raw = observe_live(fn, args, {}, [v for _, v in kept], root=td)
                res = build_result(raw, td)
            break
        except Exception:
            if n == 0:
                raise
    assert res is not None
    breaks = set()
    for b in res.breaks:
        own = _innermost(b.frames, site, prefix)
        if own:
            breaks.add(own)
    recompiles = set()
    records = []
    for r in res.recompiles:
        at = _innermost(r.frames, site, prefix)
        if at is None:
            p = _rel_to(r.path, site)
            at = (p, r.line) if p and p.startswith(prefix) and r.line else None
        if at:
            recompiles.add(at)
        records.append(
            {
                "at": list(at) if at else None,
                "function": r.function,
                # the recompiled code (a resume function's first line is its break line): not
                # in the label files written in lib23k, kept by later relabels
                "code": [_rel_to(r.code_path, site), r.code_line, r.code_name],
                "guard": r.guard[:200],
                "count": r.count,
                "hit_limit": r.hit_limit,
            }
        )
    return {
        "calls": ["first"] + [w for w, _ in kept],
        "breaks": sorted(breaks),
        "recompiles": sorted(recompiles),
        "records": records,
        "graphs": res.block.get("graph_count"),
        "recompile_count": res.block.get("recompile_count"),
        "error": None,
    }


def observe_package_recompiles(pkg: str) -> dict[str, Any]:
    """In the child (``label --recompiles``): each entry's breaks and recompiles over the calls
    of :func:`observe_calls`."""
    import torch._dynamo  # noqa: F401

    out: dict[str, Any] = {}
    for name, cls, build in ENTRIES[pkg]:
        try:
            rec = observe_calls(build, str(SITE), pkg + "/")
        except Exception as e:  # recorded, not labelled
            rec = {
                "calls": [],
                "breaks": [],
                "recompiles": [],
                "records": [],
                "graphs": None,
                "recompile_count": None,
                "error": f"{type(e).__name__}: {e}"[:300],
            }
        rec.update({"class": cls, "globs": globs(name, cls)})
        out[name] = rec
        if split_of(pkg)[name] == "heldout":
            continue  # held-out rows are not shown
        print(
            f"  {name}: calls {len(rec['calls'])}, {len(rec['breaks'])} break lines, "
            f"{len(rec['recompiles'])} recompile lines"
            + (f", ERROR {rec['error']}" if rec["error"] else ""),
            file=sys.stderr,
            flush=True,
        )
    return out


def label_recompiles(pkgs: list[str], which: str | None = None, heldout: bool = False) -> None:
    """Second-call labels of ``pkgs`` (all, or those of the set ``which``) into the
    ``*_recompiles.json`` files; the held-out one only with ``heldout`` (written once). Each
    record keeps the break lines of all calls and ``new_breaks``: those the first call's labels
    (the committed break files) do not have."""
    HERE.mkdir(exist_ok=True)
    first = {s: (json.loads(p.read_text()) if p.is_file() else {}) for s, p in LABELS.items()}
    data = {
        s: (json.loads(p.read_text()) if p.is_file() else {}) for s, p in RECOMPILE_LABELS.items()
    }
    if not pkgs:
        pkgs = sorted(
            p
            for p in ENTRIES
            if which is None or set_of(p) == ("dev" if which == "heldout" else which)
        )
    touched: set[str] = set()
    for pkg in pkgs:
        print(f"{pkg}: {len(ENTRIES[pkg])} entries", flush=True)
        with tempfile.TemporaryDirectory() as td:
            out = Path(td) / "out.json"
            subprocess.run(
                [sys.executable, __file__, "_child_recompiles", pkg, str(out)], check=False, cwd=td
            )
            if not out.is_file():
                print(f"{pkg}: the child failed", flush=True)
                continue
            got = json.loads(out.read_text())
        sp = split_of(pkg)
        for s in data:
            mine = {n: r for n, r in got.items() if sp[n] == s}
            for n, r in mine.items():
                old = first[s].get(pkg, {}).get(n, {})
                had = {tuple(b) for b in old.get("breaks", [])}
                r["new_breaks"] = sorted(tuple(b) for b in r["breaks"] if tuple(b) not in had)
                r["lost_breaks"] = (
                    sorted(had - {tuple(b) for b in r["breaks"]}) if not r["error"] else []
                )
            if mine:
                data[s][pkg] = mine
                touched.add(s)
    for s, p in RECOMPILE_LABELS.items():
        if s not in touched:
            continue
        if s == "heldout" and p.is_file() and not heldout:
            continue  # written once, never edited
        p.write_text(json.dumps(data[s], indent=1, sort_keys=True) + "\n")


def label(pkgs: list[str], heldout: bool = False, which: str | None = None) -> None:
    """Label ``pkgs`` (all, or those of the set ``which``) and rewrite the labels files they
    are in (the held-out file only with ``heldout``)."""
    HERE.mkdir(exist_ok=True)
    data = {s: (json.loads(p.read_text()) if p.is_file() else {}) for s, p in LABELS.items()}
    if not pkgs:
        pkgs = sorted(
            p
            for p in ENTRIES
            if which is None or set_of(p) == ("dev" if which == "heldout" else which)
        )
    touched: set[str] = set()
    for pkg in pkgs:
        print(f"{pkg}: {len(ENTRIES[pkg])} entries", flush=True)
        with tempfile.TemporaryDirectory() as td:
            out = Path(td) / "out.json"
            subprocess.run([sys.executable, __file__, "_child", pkg, str(out)], check=False, cwd=td)
            if not out.is_file():
                print(f"{pkg}: the child failed", flush=True)
                continue
            got = json.loads(out.read_text())
        sp = split_of(pkg)
        for s in data:
            mine = {n: r for n, r in got.items() if sp[n] == s}
            if mine:
                data[s][pkg] = mine
                touched.add(s)
    for s, p in LABELS.items():
        if s not in touched:
            continue
        if s == "heldout" and p.is_file() and not heldout:
            continue  # committed first and never edited: only rewritten on purpose
        p.write_text(json.dumps(data[s], indent=1, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- score
# The rules whose findings say "recompiles here" (catalogue family CL3, and the module-state
# rules the prediction counts as recompiles: ``compilelint.static.predict._RECOMPILE_RULES``).
RECOMPILE_RULES = ("CL3", "CL501", "CL502")


def is_recompile_rule(code: str) -> bool:
    return any(code == r or (len(r) == 3 and code.startswith(r)) for r in RECOMPILE_RULES)


Finding = tuple[str, int, str, int | None]  # path (site-relative), line, rule, guard line


def library_mode_findings(dirs: list[str], entry_globs: list[str]) -> list[Finding]:
    """Library mode's findings on ``dirs``: path, line, rule and the ``guard_line`` a recompile
    finding names (where torch reports the recompile; None where it gives none)."""
    with tempfile.TemporaryDirectory() as td:
        cfg = Path(td) / "pyproject.toml"
        cfg.write_text("[tool.compilelint]\nentries = " + json.dumps(entry_globs) + "\n")
        paths = [str(SITE / d) for d in dirs]
        rep, _ = static_json([*paths, "--no-cache", "--no-follow", "--config", str(cfg)], Path(td))
        out: list[Finding] = []
        for f in rep["findings"]:
            r = rel(f["path"] if os.path.isabs(f["path"]) else os.path.join(td, f["path"]))
            if r:
                out.append((r, f["line"], f["rule"], f.get("guard_line")))
    return out


def library_mode(dirs: list[str], entry_globs: list[str]) -> set[tuple[str, int]]:
    """The lines library mode reports on ``dirs``."""
    return {(p, ln) for p, ln, _, _ in library_mode_findings(dirs, entry_globs)}


def confirmed(
    findings: list[Finding], breaks: set[tuple[str, int]], recompiles: set[tuple[str, int]]
) -> set[tuple[str, int]]:
    """The finding lines torch confirms: a break line, or the line of a recompile rule's finding
    that is (or whose guard line is) a line torch names for a recompile."""
    return {
        (p, ln)
        for p, ln, rule, guard in findings
        if (p, ln) in breaks
        or (
            is_recompile_rule(rule)
            and ((p, ln) in recompiles or (guard is not None and (p, guard) in recompiles))
        )
    }


def exporting(entries: dict[str, Any]) -> set[tuple[str, int]]:
    """The files of the public modules the entries are imported from (``torchdiffeq`` for
    ``torchdiffeq.odeint``): library mode needs them to know what the package exports."""
    out = set()
    for name in entries:
        parts = name.split(".")[:-1]  # the module (a function's or a class's name dropped)
        for i in range(len(parts), 0, -1):
            base = SITE.joinpath(*parts[:i])
            for f in (base / "__init__.py", base.with_suffix(".py")):
                if f.is_file():
                    out.add((str(f.relative_to(SITE)), 0))
                    break
            else:
                continue
            break
    return out


def score(which: str, detail: bool, only: list[str]) -> dict[str, Any]:
    """Both figures: against the first call's break lines (as before), and against breaks and
    recompiles (the second-call labels of ``RECOMPILE_LABELS``, where written: a break only a
    further call saw is a break line there, a recompile line confirms a recompile rule's finding
    at it). Held-out: the totals only are printed."""
    data = json.loads(LABELS[which].read_text())
    rp = RECOMPILE_LABELS[which]
    second = json.loads(rp.read_text()) if rp.is_file() else {}
    rows = []
    tb = th = tf = tr = trh = 0
    tb2 = th2 = tc2 = tfr = 0
    for pkg, entries in sorted(data.items()):
        if only and pkg not in only:
            continue
        ok = {n: r for n, r in entries.items() if not r["error"]}
        if not ok:
            continue
        ran = {tuple(x) for r in ok.values() for x in r["ran"]}
        breaks = {tuple(x) for r in ok.values() for x in r["breaks"]}
        gl = sorted({g for r in ok.values() for g in r["globs"]})
        findings = library_mode_findings(ran_dirs(ran | exporting(ok)), gl)
        found = {(p, ln) for p, ln, _, _ in findings}
        sec = {n: r for n, r in second.get(pkg, {}).items() if n in ok and not r.get("error")}
        breaks2 = breaks | {tuple(x) for r in sec.values() for x in r["breaks"]}
        recompiles = {tuple(x) for r in sec.values() for x in r["recompiles"]}
        good = confirmed(findings, breaks2, recompiles)  # type: ignore[arg-type]
        on_ran = found & ran
        hit = found & breaks
        tb += len(breaks)
        th += len(hit)
        tf += len(found)
        tr += len(on_ran)
        trh += len(on_ran & breaks)
        tb2 += len(breaks2)
        th2 += len(found & breaks2)
        tc2 += len(good)
        tfr += len(recompiles)
        row = {
            "package": pkg,
            "entries": len(ok),
            "errors": len(entries) - len(ok),
            "break_lines": len(breaks),
            "found": len(hit),
            "findings": len(found),
            "findings_on_ran_lines": len(on_ran),
            "precision_all": round(len(hit) / len(found), 3) if found else None,
            "second_call_entries": len(sec),
            "break_lines_all_calls": len(breaks2),
            "recompile_lines": len(recompiles),
            "confirmed": len(good),
            "precision_all_with_recompiles": round(len(good) / len(found), 3) if found else None,
        }
        if detail:
            rules: dict[tuple[str, int], list[str]] = {}
            for p, ln, rule, _ in findings:
                rules.setdefault((p, ln), []).append(rule)
            row.update(
                missed=sorted(breaks - found),
                false_on_ran_lines=sorted(on_ran - breaks),
                not_ran=sorted(found - ran),
                false_all=sorted([p, ln, sorted(set(rules[p, ln]))] for p, ln in found - good),
                confirmed_recompiles=sorted(good - breaks2),
                recompile_lines=sorted(recompiles),
                new_breaks=sorted(breaks2 - breaks),
            )
        rows.append(row)
        if which != "heldout":
            print(
                f"{pkg:<24} entries {len(ok):>2}  breaks {len(breaks):>3}  found {len(hit):>3}  "
                f"findings {len(found):>3} (on ran lines {len(on_ran):>3})  "
                f"+recompiles: confirmed {len(good):>3} (recompile lines {len(recompiles)})",
                flush=True,
            )
    return {
        "set": which,
        "packages": rows,
        "break_lines": tb,
        "recall": round(th / tb, 3) if tb else None,
        "precision_on_ran_lines": round(trh / tr, 3) if tr else None,
        "precision_all": round(th / tf, 3) if tf else None,
        "findings": tf,
        "confirmed_breaks_only": th,
        "break_lines_all_calls": tb2,
        "recall_all_calls": round(th2 / tb2, 3) if tb2 else None,
        "recompile_lines": tfr,
        "confirmed_with_recompiles": tc2,
        "precision_all_with_recompiles": round(tc2 / tf, 3) if tf else None,
    }


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "_child_recompiles":
        warnings.filterwarnings("ignore")
        got = observe_package_recompiles(sys.argv[2])
        Path(sys.argv[3]).write_text(json.dumps(got))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "_child":
        warnings.filterwarnings("ignore")
        got = observe_package(sys.argv[2])
        Path(sys.argv[3]).write_text(json.dumps(got))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=("label", "score"))
    ap.add_argument("packages", nargs="*", help="only these package folders")
    ap.add_argument("--set", choices=sorted(LABELS), default="dev")
    ap.add_argument("--json", help="score: also write the result here")
    ap.add_argument("--detail", action="store_true", help="score: missed and false lines")
    ap.add_argument(
        "--write-heldout",
        action="store_true",
        help="label: also rewrite the committed held-out labels (never for tuning)",
    )
    ap.add_argument(
        "--recompiles",
        action="store_true",
        help="label: the second-call labels (breaks and recompiles) into *_recompiles.json",
    )
    a = ap.parse_args()
    if a.step == "label" and a.recompiles:
        label_recompiles(a.packages, a.set if "--set" in sys.argv else None, a.write_heldout)
        return
    if a.step == "label":
        label(a.packages, a.write_heldout, a.set if "--set" in sys.argv else None)
        return
    res = score(a.set, a.detail, a.packages)
    for k in (
        "break_lines",
        "recall",
        "precision_on_ran_lines",
        "precision_all",
        "findings",
        "confirmed_breaks_only",
        "break_lines_all_calls",
        "recall_all_calls",
        "recompile_lines",
        "confirmed_with_recompiles",
        "precision_all_with_recompiles",
    ):
        print(f"{k}: {res[k]}")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
