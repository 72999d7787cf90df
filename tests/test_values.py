"""The abstract-value lattice and the constructs it decides, including small reproductions of
patterns in transformers that the old taint sets got wrong."""

from __future__ import annotations

import textwrap
from pathlib import Path

from compilelint.api import check
from compilelint.config import Config
from compilelint.static.analysis import values as V

from .test_analysis import lint


# ---------------------------------------------------------------------------- the lattice
def test_join_is_a_set_of_members_and_drops_unknown() -> None:
    assert V.join(V.TENSOR, V.TENSOR) == V.TENSOR
    assert V.join(V.UNKNOWN, V.TENSOR) == V.TENSOR
    j = V.join(V.TENSOR, V.NONE)
    assert V.kind(j) == "join" and set(V.members(j)) == {V.TENSOR, V.NONE}
    # two constants of one type: the type without the constant
    assert V.join(V.scalar("bool", True), V.scalar("bool", False)) == V.BOOL
    assert V.sources(V.join(V.sym("P|f|x"), V.INT)) == {"P|f|x"}


def test_elements_of_sequences_symbols_and_tensors() -> None:
    tup = V.seq("tuple", [V.scalar("bool", True), V.TENSOR])
    assert V.element(tup, 0) == V.scalar("bool", True)
    assert V.element(tup, -1) == V.TENSOR
    assert V.iter_elem(tup) == V.join(V.scalar("bool", True), V.TENSOR)
    assert V.element(V.TENSOR, 3) == V.TENSOR
    assert V.element(V.sym("R|Q|f"), 1) == V.sym("R|Q|f@1")
    assert V.element(V.sym("P|f|x"), "key") == V.UNKNOWN  # a mapping, not a tensor
    assert V.element(V.sym("R|Q|f"), "logits") == V.sym("R|Q|f@k:logits")
    assert V.apply_steps(tup, ["1"]) == V.TENSOR
    assert V.sources(tup) == frozenset()  # a tuple is not a tensor ...
    assert V.contained_sources(tup) == {"T"}  # ... but holds one


def test_calls_and_summaries_instantiate_with_caller_values() -> None:
    assert V.call_result(V.module("torch.nn.Linear")) == V.TENSOR
    assert V.call_result(V.sym("A|Net|layers@*")) == V.TENSOR
    assert V.call_result(V.func("Q|helper")) == V.sym("R|Q|helper")
    summary = V.seq("tuple", [V.sym("P|helper|n"), V.sym("P|helper|x")])
    args = {"P|helper|n": V.INT, "P|helper|x": V.TENSOR}
    got = V.instantiate(summary, V.bind_params(args))
    assert V.element(got, 0) == V.INT and V.element(got, 1) == V.TENSOR


# ---------------------------------------------------------------------------- transformers
def test_mixed_tuple_from_a_helper_unpacks_per_position(tmp_path: Path) -> None:
    # masking_utils.py: early_exit, attention_mask, ... = _preprocess_mask_arguments(...)
    src = """
    import torch
    from torch import nn

    def _preprocess(mask, x):
        if mask is not None and mask.ndim == 4:
            return True, mask, None
        if x.shape[1] > 4:
            return True, None, None
        return False, mask, x.shape[1]

    class M(nn.Module):
        def forward(self, x, mask):
            early_exit, mask, kv_length = _preprocess(mask, x)
            if early_exit:
                return mask
            if kv_length > 2:
                x = x + 1
            if mask.sum() > 0:
                x = x - 1
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 19, "CL101")]


def test_ints_from_shapes_returned_beside_tensors(tmp_path: Path) -> None:
    # BigBird/LED: padding_len, input_ids, ... = self._pad_to_block_size(...); if padding_len > 0
    # Swin: hidden_states, pad_values = self.maybe_pad(...); if pad_values[3] > 0
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self, block_size):
            super().__init__()
            self.block_size = block_size

        def _pad(self, x):
            seq_len = x.shape[1]
            padding_len = (self.block_size - seq_len % self.block_size) % self.block_size
            x = nn.functional.pad(x, (0, padding_len))
            return padding_len, x

        def maybe_pad(self, x, width):
            pad_right = (self.block_size - width % self.block_size) % self.block_size
            pad_values = (0, 0, 0, pad_right, 0, 0)
            return nn.functional.pad(x, pad_values), pad_values

        def forward(self, x):
            padding_len, x = self._pad(x)
            x, pad_values = self.maybe_pad(x, x.shape[-1])
            if padding_len > 0:
                x = x[:, :-padding_len]
            if pad_values[3] > 0 or min(pad_values) < 0:
                x = x.contiguous()
            if x.sum() > 0:
                x = x * 2
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 28, "CL101")]


def test_conditional_expression_is_the_join_of_its_branches(tmp_path: Path) -> None:
    # nllb_moe / wav2vec2 (transformers 5.23): skip = True if self.training and (p < ld) else False
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.layerdrop = 0.1

        def forward(self, x):
            for layer in self.layers:
                dropout_probability = torch.rand([])
                skip_the_layer = True if self.training and (dropout_probability < self.layerdrop) else False
                if skip_the_layer:
                    continue
                x = layer(x)
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 14, "CL101")]


def test_torchscript_predicates_pick_the_branch_torch_compile_takes(tmp_path: Path) -> None:
    # Swin: self.window_size = torch.min(torch.tensor(r)) if torch.jit.is_tracing() else min(r)
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self, window_size):
            super().__init__()
            self.window_size = window_size

        def set_window(self, resolution):
            self.window_size = (
                torch.min(torch.tensor(resolution)) if torch.jit.is_tracing() else min(resolution)
            )

        def forward(self, x):
            self.set_window(x.shape[-2:])
            if self.window_size > 2:
                x = x * 2
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == []


# ---------------------------------------------------------------------------- modules
def test_modules_from_zip_enumerate_and_items_give_tensors(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.heads = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.blocks = nn.ModuleDict({"a": nn.Linear(4, 4)})

        def forward(self, x):
            for layer, head in zip(self.layers, self.heads):
                h = head(layer(x))
                if h.max(dim=-1).values.sum() > 0:
                    x = x + 1
            for i, layer in enumerate(self.layers):
                if layer(x).mean() > i:
                    x = x - 1
            for name, block in self.blocks.items():
                if block(x).topk(1).indices.sum() > 0:
                    x = x * 2
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [
        ("m.py", 15, "CL101"),
        ("m.py", 18, "CL101"),
        ("m.py", 21, "CL101"),
    ]


def test_lists_grown_in_a_loop_and_helper_list_arguments(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    def first_positive(xs):
        for t in xs:
            if t.sum() > 0:
                return t
        return xs[0]

    class M(nn.Module):
        def forward(self, x):
            outs = []
            for _ in range(2):
                outs.append(x * 2)
            if outs[0].mean() > 0:
                x = x + 1
            return first_positive([x, x + 1])
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [
        ("m.py", 7, "CL101"),
        ("m.py", 16, "CL101"),
    ]


def test_property_getter_is_reached_not_its_setter(tmp_path: Path) -> None:
    # modeling_utils.py: self.loss_function(...) reaches the property getter that warns
    src = """
    import logging
    import torch
    from torch import nn

    logger = logging.getLogger(__name__)

    class Base(nn.Module):
        @property
        def loss_function(self):
            logger.warning("default loss")
            return nn.functional.cross_entropy

        @loss_function.setter
        def loss_function(self, value):
            self._loss_function = value

    class M(Base):
        def forward(self, x, labels):
            return self.loss_function(x, labels)
    """
    assert lint(tmp_path, {"m.py": src}, ("CL202",)) == [("m.py", 11, "CL202")]


def test_autograd_function_and_hooks_are_reached(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class Clip(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, bound):
            if x.max() > bound:
                x = x.clamp(max=bound)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None

    def pre_hook(module, args):
        print("pre", len(args))

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.lin.register_forward_pre_hook(pre_hook)

        def forward(self, x):
            y = Clip.apply(x, 1.0)
            if y.sum() > 0:
                y = y * 2
            return self.lin(y)
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101", "CL201")) == [
        ("m.py", 8, "CL101"),
        ("m.py", 17, "CL201"),
        ("m.py", 27, "CL101"),
    ]


# ---------------------------------------------------------------------------- data-dependent sizes
def test_tensor_folded_from_python_numbers_is_not_data(tmp_path: Path) -> None:
    # Longformer/LED: torch.div(seq_len, window_overlap, rounding_mode="trunc") with ints is a
    # constant dynamo folds (no break on torch 2.13); FastSpeech2's max_len is data (GB0033).
    src = """
    import torch
    from torch import nn

    def regulate(x, durations):
        max_len = torch.sum(durations, dim=1).max()
        return torch.zeros((x.size(0), max_len, x.size(2)))

    class M(nn.Module):
        def forward(self, x: torch.Tensor, d: torch.Tensor):
            y = self._chunk(x, 2)
            return regulate(y, d)

        def _chunk(self, x: torch.Tensor, window: int):
            n = torch.div(x.size(1), window * 2, rounding_mode="trunc")
            return x.view(x.size(0), n, window * 2, -1).new_zeros((1, n + 1))
    """
    assert V.data_sources(V.CONST_TENSOR) == frozenset()
    assert V.data_sources(V.join(V.CONST_TENSOR, V.sym("P|f|n"))) == {"P|f|n"}
    assert V.sources(V.CONST_TENSOR) == {"T"}  # still a tensor for every other question
    assert lint(tmp_path, {"m.py": src}, ("CL115",)) == [("m.py", 7, "CL115")]


def test_scalar_annotated_parameters_are_python_scalars(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x: torch.Tensor):
            return self.scale(x, 2, "mean")

        def scale(self, x: torch.Tensor, n: int, mode: str):
            if n > 1 and mode == "mean":
                x = x / n
            return x.reshape(n, -1)
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101", "CL115")) == []


def test_boolean_masks_from_annotations_and_dtype_keeping_methods(tmp_path: Path) -> None:
    # HiggsAudio-v2: audio_token_mask: torch.BoolTensor | None, moved with .to(device), then
    # h[mask] and h[~mask] += ... (both GB0036 on torch 2.13); an integer index does not break.
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, h: torch.Tensor, mask: torch.BoolTensor | None = None, idx=None):
            if mask is None:
                return h
            mask = mask.to(h.device)
            a = h[mask]
            h[~mask.unsqueeze(0)[0]] += a.sum()
            h[mask] = 0.0
            rows = idx.to(h.device)
            return h[rows]
    """
    assert lint(tmp_path, {"m.py": src}, ("CL111",)) == [
        ("m.py", 10, "CL111"),
        ("m.py", 11, "CL111"),
    ]


# ---------------------------------------------------------------------------- short-circuits
def test_short_circuit_on_compile_constants_and_latent_guards(tmp_path: Path) -> None:
    # masking_utils.py:761: `not is_tracing(mask) and (mask[:, -1] == 0).all()` never evaluates
    # its tensor part under torch.compile (is_tracing is True there); BART's fp16 overflow guard
    # does for float16 inputs only: kept, and its message says it is latent.
    src = """
    import torch
    from torch import nn
    from transformers.utils import is_tracing

    class M(nn.Module):
        def forward(self, h: torch.Tensor, mask: torch.Tensor):
            if not is_tracing(mask) and (mask[:, -1] == 0).all():
                return None
            if h.dtype == torch.float16 and not torch.isfinite(h).all():
                h = h.clamp(-1, 1)
            if torch.jit.is_tracing() or h.sum() > 0:
                h = h + 1
            return h
    """
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")
    rep = check([str(tmp_path)], Config(select=("CL101",), cache=False, root=str(tmp_path)))
    got = {f.line: f.message for f in rep.findings}
    assert sorted(got) == [10, 12]
    assert "latent: the tensor part is only evaluated when `h.dtype == torch.float16`" in got[10]
    assert "latent" not in got[12]  # torch.jit.is_tracing() is False: `h.sum() > 0` always runs


def test_latent_notes_for_nested_guards_and_path_dependent_names(tmp_path: Path) -> None:
    # Evolla: `(kv is not None and mask.any()) or ...`; data2vec-audio/HuBERT layerdrop:
    # `skip = False; if self.training: skip = torch.rand([]) < p` then `if not skip:`.
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, h: torch.Tensor, a=None, b=None):
            if (
                (a is not None and a.any())
                or (b is not None and b.any())
            ):
                h = h + 1
            skip = False
            if self.training:
                skip = torch.rand([]) < 0.1
            if not skip:
                h = h * 2
            if h.sum() > 0:
                h = h - 1
            return h
    """
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")
    rep = check([str(tmp_path)], Config(select=("CL101",), cache=False, root=str(tmp_path)))
    got = {f.line: f.message for f in rep.findings}
    assert sorted(got) == [8, 15, 17]
    assert "only evaluated when `a is not None` is true" in got[8]
    assert "latent: `skip` is a tensor only on the training path" in got[15]
    assert "latent" not in got[17]
    # in eval mode the training-only tensor is gone; the input-decided guard stays latent
    ev = check(
        [str(tmp_path)], Config(select=("CL101",), cache=False, root=str(tmp_path), mode="eval")
    )
    assert sorted(f.line for f in ev.findings) == [8, 17]


def test_slice_bound_from_an_optional_tensor_argument_is_latent(tmp_path: Path) -> None:
    # Pixtral: `image_sizes: Tensor | None = None`, replaced by `[(height, width)] * b` when
    # not given; slicing by its elements breaks only when a tensor is passed (torch 2.13)
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x: torch.Tensor, sizes: torch.Tensor | None = None, n=None):
            if sizes is None:
                b, _, h, w = x.shape
                sizes = [(h, w)] * b
            out = [e[..., : size[0] // 2] for e, size in zip(x, sizes)]
            k = x.sum().long()
            return torch.cat(out, -1)[..., :k]
    """
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")
    rep = check([str(tmp_path)], Config(select=("CL113",), cache=False, root=str(tmp_path)))
    got = {f.line: f.message for f in rep.findings}
    assert sorted(got) == [10, 12]
    assert "latent: `size` is a tensor on some paths" in got[10]
    assert "latent" not in got[12]


def test_path_dependent_name_with_a_tensor_outside_training_is_not_training_only(
    tmp_path: Path,
) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, h: torch.Tensor, p: float):
            skip = False
            if p > 0.5:
                skip = h.sum() < 0
            if self.training:
                skip = torch.rand([]) < 0.1
            if not skip:
                h = h * 2
            return h
    """
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")
    cfg = Config(select=("CL101",), cache=False, root=str(tmp_path), mode="eval")
    got = {f.line: f.message for f in check([str(tmp_path)], cfg).findings}
    assert sorted(got) == [12]
    assert "a tensor on some paths and a Python value on others" in got[12]


def test_tensor_annotation_with_a_flag_default_is_a_flag(tmp_path: Path) -> None:
    # FastSpeech2-Conformer: `output_attentions: torch.Tensor | None = False`
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, h: torch.Tensor, output_attentions: torch.Tensor | None = False):
            if not output_attentions:
                return h
            return h * 2
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == []


def test_submodule_returning_a_tuple_unpacks_per_position(tmp_path: Path) -> None:
    # diffusers transformer_lumina2.py: `..., encoder_seq_lengths, seq_lengths =
    # self.rope_embedder(...)` where the submodule's forward returns `.tolist()` lengths (Python
    # ints after the break there) beside tensors; slicing by them does not break again
    src = """
    import torch
    from torch import nn

    class Embed(nn.Module):
        def forward(self, x, mask):
            lens = mask.sum(dim=1).tolist()
            return x * 2, lens, x.amax()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = Embed()

        def forward(self, x, mask):
            h, lens, peak = self.embed(x, mask)
            for i, n in enumerate(lens):
                h[i, :n] = 0
            if peak > 3:
                h = h + 1
            return h
    """
    got = lint(tmp_path, {"m.py": src}, ("CL101", "CL105", "CL113"))
    assert got == [("m.py", 7, "CL105"), ("m.py", 19, "CL101")]


def test_opaque_module_output_unpacked_through_a_name(tmp_path: Path) -> None:
    # PVT-v2's encoder: `layer_output = layer(hidden_states)` then `outputs, height, width =
    # layer_output` (the layer's forward returns a tuple, ints read from a shape beside it): the
    # name holds the call's result, unknown per position when unpacked, a tensor used whole
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self, layers):
            super().__init__()
            self.layers = layers

        def forward(self, x):
            b = x.shape[0]
            for layer in self.layers:
                layer_output = layer(x)
                outputs, height, width = layer_output
                x = outputs[0].reshape(b, height, width, -1)
                y = layer(x)
                if y.sum() > 0:
                    x = x + 1
                w = layer_output
                w = y * 2  # rebound: a tensor, split along dim 0 when unpacked
                p, q = w
                if p.sum() > 0:
                    x = x - 1
            return x
    """
    got = lint(tmp_path, {"m.py": src}, ("CL101", "CL115"))
    assert got == [("m.py", 17, "CL101"), ("m.py", 22, "CL101")]


def test_number_parameters_of_inlined_forwards_are_frame_inputs_only_when_forwarded(
    tmp_path: Path,
) -> None:
    # SegFormer/PVT-v2: sizes read from a shape in the encoder, passed down two modules to a
    # `reshape`: inlined, no guard (torch 2.13); a root's own int passed down to `range()`
    # still is one, where the child uses it
    src = """
    import torch
    from torch import nn

    class Red(nn.Module):
        def forward(self, h, height: int, width: int, n: int = 1):
            b, _, c = h.shape
            for _ in range(n):
                h = h * 2
            return h.transpose(1, 2).reshape(b, c, height, width)

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.red = Red()

        def forward(self, h, height, width, n):
            return self.red(h, height, width, n)

    class Top(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = Attn()

        def forward(self, x, n: int = 1):
            _, _, height, width = x.shape
            return self.attn(x.flatten(2).transpose(1, 2), height, width, n)
    """
    assert lint(tmp_path, {"m.py": src}, ("CL301",)) == [("m.py", 8, "CL301")]


def test_a_call_unpacking_kwargs_still_binds_its_positional_arguments(tmp_path: Path) -> None:
    """`block(x, height, width, **kwargs)` (transformers' layers, SegFormer): the `**kwargs`
    the call unpacks hides only the parameters it leaves to the dict; `height` and `width`
    are the sizes the caller read, not frame inputs (no CL301 in the reduction's reshape)."""
    src = """\
    import torch
    from torch import nn


    class Red(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 1)

        def forward(self, hidden_states, height: int, width: int):
            b, n, c = hidden_states.shape
            hidden_states = hidden_states.transpose(1, 2).reshape(b, c, height, width)
            return self.conv(hidden_states)


    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.red = Red()

        def forward(self, x, height, width, **kwargs):
            return self.red(x, height, width)


    class Embed(nn.Module):
        def forward(self, x):
            return x.flatten(2).transpose(1, 2), x.shape[2], x.shape[3]


    class Stage(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = Embed()
            self.blocks = nn.ModuleList([Layer() for _ in range(2)])

        def forward(self, x, **kwargs):
            x, height, width = self.emb(x)
            for block in self.blocks:
                x = block(x, height, width, **kwargs)
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL301",)) == []
    # the blocks appended to a local list in a loop, then `nn.ModuleList(blocks)` (PVT-v2):
    # the same classes, the same callers
    built = src.replace(
        "self.blocks = nn.ModuleList([Layer() for _ in range(2)])",
        "blocks = []\n            for _ in range(2):\n                blocks.append(Layer())\n"
        "            self.blocks = nn.ModuleList(blocks)",
    )
    assert built != src
    assert lint(tmp_path, {"m.py": built}, ("CL301",)) == []
    # a caller that passes them through `**kwargs` hides them: inputs of a frame
    src = src.replace("return self.red(x, height, width)", "return self.red(x, **kwargs)")
    assert [f[1] for f in lint(tmp_path, {"m.py": src}, ("CL301",))] == [12, 12]


# ---------------------------------------------------------------------------- reachability
def test_methods_of_submodules_are_reached_and_modules_built_there(tmp_path: Path) -> None:
    # BigBird: forward -> self.set_attention_type -> self.encoder.set_attention_type -> for
    # layer in self.layer: layer.set_attention_type -> BigBirdSelfAttention(config): its
    # __init__ runs while tracing (GB0119 at super().__init__(), GB0264 at the first nn.Linear)
    src = """
    import torch
    from torch import nn

    class Attn(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.q = nn.Linear(n, n)
            self.k = nn.Linear(n, n)

        def forward(self, x):
            return self.q(x) + self.k(x)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = Attn(4)

        def set_type(self, n):
            self.attn = Attn(n)

        def forward(self, x):
            return self.attn(x)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Layer() for _ in range(2)])

        def set_type(self, n):
            for layer in self.layers:
                layer.set_type(n)

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()

        def forward(self, x):
            if x.shape[1] < 8:
                self.encoder.set_type(4)
            return self.encoder(x)
    """
    got = lint(tmp_path, {"m.py": src}, ("CL508", "CL509"))
    assert got == [("m.py", 7, "CL509"), ("m.py", 8, "CL508")]


def test_submodule_forward_parameters_take_what_the_parent_passes(tmp_path: Path) -> None:
    # FocalNet/Swin: `layer(hidden_states, input_dimensions)` with input_dimensions a tuple of
    # ints from shapes; the layer's forward unpacks `height, width = input_dimensions` and
    # views by them (no break). A parent passing a tensor still makes it one.
    src = """
    import torch
    from torch import nn

    class Layer(nn.Module):
        def forward(self, hidden, input_dimensions, peak):
            height, width = input_dimensions
            hidden = hidden.view(hidden.shape[0], height, width, -1)
            if peak > 0:
                hidden = hidden * 2
            return hidden.flatten(1, 2)

    class Stage(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Layer() for _ in range(2)])

        def forward(self, hidden, dims):
            for layer in self.layers:
                hidden = layer(hidden, dims, hidden.amax())
            return hidden

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.stage = Stage()

        def forward(self, pixels):
            b, c, h, w = pixels.shape
            return self.stage(pixels.flatten(2).transpose(1, 2), (h, w))
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101", "CL115")) == [("m.py", 9, "CL101")]


def test_calls_in_a_branch_torch_compile_does_not_take_are_not_traced(tmp_path: Path) -> None:
    # MobileViT: `torch_int(torch.ceil(h / p) * p) if torch.jit.is_tracing() else int(...)`;
    # transformers' torch_int does `int(x)`: reached only from the TorchScript branch.
    src = """
    import math
    import torch
    from torch import nn

    def torch_int(x):
        return int(x)

    class M(nn.Module):
        def forward(self, x):
            h = x.shape[-1]
            n = torch_int(torch.ceil(h / 4) * 4) if torch.jit.is_tracing() else int(math.ceil(h / 4))
            if not torch.compiler.is_compiling():
                torch_int(x.sum())
            return x[..., :n]
    """
    assert lint(tmp_path, {"m.py": src}, ("CL102",)) == []


def test_helper_returns_are_call_site_sensitive(tmp_path: Path) -> None:
    # a helper returning its argument scaled: an int for `x.shape[0]`, a tensor for `x`
    src = """
    import torch
    from torch import nn

    def scaled(v, k=2):
        return v * k

    class M(nn.Module):
        def forward(self, x: torch.Tensor):
            n = scaled(x.shape[0])
            if n > 4:
                x = x + 1
            y = scaled(x)
            if y.sum() > 0:
                x = x - 1
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 14, "CL101")]


def test_naming_a_class_in_traced_code_does_not_trace_its_init(tmp_path: Path) -> None:
    # ESMFold: `EsmFoldingTrunk.distogram(...)` in forward names the class; only a call of the
    # class itself runs its __init__ (and would build parameters while tracing)
    src = """
    import torch
    from torch import nn

    class Trunk(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(4)

        @staticmethod
        def bins(x):
            return x.clamp(0, 1)

        def forward(self, x):
            if isinstance(x, Trunk):
                return x
            return self.norm(Trunk.bins(x))
    """
    assert lint(tmp_path, {"m.py": src}, ("CL508", "CL509")) == []


def test_unpacking_a_module_of_unknown_class_is_not_unpacking_a_tensor(tmp_path: Path) -> None:
    # transformers PVT/GLPN: `hidden_states, height, width = embedding_layer(hidden_states)`
    # with the layer a loop target over zip(self.patch_embeddings, self.block): its forward
    # returns a tuple (a tensor and two ints), not one tensor split along dim 0
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self, embeds, blocks):
            super().__init__()
            self.patch_embeddings = embeds
            self.block = blocks

        def forward(self, x):
            b = x.shape[0]
            for embedding_layer, blk in zip(self.patch_embeddings, self.block):
                x, height, width = embedding_layer(x)
                x = blk(x).reshape(b, height, width, -1)
                q, k = x.chunk(2)
                if k.sum() > 0:
                    x = x + 1
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101", "CL115")) == [("m.py", 17, "CL101")]


# ---------------------------------------------------------------------------- numbers
def test_numbers_known_from_values_and_from_the_assignments() -> None:
    """The number model: `self.eps` from a number default, class-body constants, expressions
    only numbers evaluate; a config attribute or a parameter without default is not known."""
    import libcst as cst

    from compilelint.fix.context import FixContext

    src = textwrap.dedent(
        """
        import torch

        class M(torch.nn.Module):
            tau = 0.07

            def __init__(self, dim, heads=4, eps=0.1, cfg=None):
                super().__init__()
                self.eps = eps
                self.scale = (dim // heads) ** -0.5
                self.margin = 0.2 * heads
                self.t = cfg.temperature
                self.dim = dim
                self.name = "m"

            def forward(self, x):
                return x * self.eps * self.scale * self.margin * self.tau * self.t * self.dim, self.name
        """
    )
    module = cst.parse_module(src)
    ctx = FixContext(module, path="m.py")
    got = {}
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "return x" in t)
    for node in ctx.on_line(line, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            got[node.attr.value] = ctx.is_number(node)
    assert got == {
        "eps": True,
        "scale": True,
        "margin": True,
        "tau": True,
        "t": False,
        "dim": False,
        "name": False,
    }


def test_mode_only_code_and_the_compile_context(tmp_path: Path) -> None:
    """Code under `if self.training:` runs in training only, its `else` in eval only, and the
    other way round under `if not self.training:`; `Config.mode` drops the other mode's."""
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, h: torch.Tensor) -> torch.Tensor:
            if self.training:
                if h.sum() > 0:
                    h = h * 2
            else:
                if h.mean() > 0:
                    h = h + 1
            if not self.training:
                print("eval")
            else:
                print("train")
            if h.max() > 3:
                h = h - 1
            return h
    """
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")

    def lines(mode: str | None) -> list[tuple[int, str]]:
        cfg = Config(select=("CL101", "CL201"), cache=False, root=str(tmp_path), mode=mode)
        return sorted((f.line, f.rule) for f in check([str(tmp_path)], cfg).findings)

    every = [(8, "CL101"), (11, "CL101"), (14, "CL201"), (16, "CL201"), (17, "CL101")]
    assert lines(None) == every
    assert lines("eval") == [(11, "CL101"), (14, "CL201"), (17, "CL101")]
    assert lines("train") == [(8, "CL101"), (16, "CL201"), (17, "CL101")]


def test_an_int_computed_from_a_size_passed_to_a_frame_that_breaks(tmp_path: Path) -> None:
    # Longformer/LED: `padding_len` computed from the input's length (through a module
    # attribute) and passed to an encoder that breaks on `.item()`: the encoder is a frame of
    # its own, its resume function is guarded on `padding_len == 3` where it is first read
    # (torch 2.13, benchmarks/predict_corpus/dev/pad_len_encoder). A feature size
    # (`x.shape[-1]`) and the same int passed to an inlined encoder are not frame inputs.
    src = """
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def forward(self, h, mask, padding_len, width):
            flag = (mask > 0).any().item()
            if padding_len > 0:
                h = h[:, : h.shape[1] - padding_len]
            if width > 4:
                h = h * 2
            return h * flag

    class Inlined(nn.Module):
        def forward(self, h, padding_len):
            if padding_len > 0:
                h = h[:, : h.shape[1] - padding_len]
            return h

    class M(nn.Module):
        def __init__(self, window=8):
            super().__init__()
            self.window = window
            self.encoder = Encoder()
            self.inlined = Inlined()

        def forward(self, x, mask):
            seq_len = x.shape[1]
            padding_len = (self.window - seq_len % self.window) % self.window
            h = self.inlined(x, padding_len)
            return self.encoder(h, mask, padding_len, x.shape[-1])
    """
    got = lint(tmp_path, {"m.py": src}, ("CL304",))
    assert got == [("m.py", 8, "CL304")]
    assert V.SIZE_INT in V.members(V.join(V.SIZE_INT, V.sym("A|M|window")))


def test_a_size_returned_by_a_call_that_breaks_is_guarded_at_its_first_read(tmp_path: Path) -> None:
    # the caller resumes after the call with the result on its stack: torch 2.13 reports
    # `___stack0[0] == 3` at `if padding_len > 0:` (benchmarks/predict_corpus/dev/
    # pad_helper_warns). A helper that does not break is inlined (no finding); a value only
    # packed into a tuple is read later, where torch guards it (no finding at the packing).
    src = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class M(nn.Module):
        def __init__(self, window=8):
            super().__init__()
            self.window = window

        def _pad(self, x):
            seq_len = x.shape[1]
            padding_len = (self.window - seq_len % self.window) % self.window
            print("padding", padding_len)
            return padding_len, F.pad(x, (0, 0, 0, padding_len))

        def _quiet(self, x):
            n = x.shape[1] % self.window
            return n, x

        def forward(self, x):
            padding_len, x = self._pad(x)
            n, x = self._quiet(x)
            info = (x, padding_len)
            if padding_len > 0:
                x = x[:, :-padding_len]
            return x * n, info
    """
    got = lint(tmp_path, {"m.py": src}, ("CL304",))
    assert got == [("m.py", 25, "CL304")]
