"""Real models as the oracle: label the static stage's predictions with what torch did.

    python benchmarks/corpus.py                    # label what is missing, then score
    python benchmarks/corpus.py --static-only      # re-score the cached labels (seconds, warm)
    python benchmarks/corpus.py --only 'bert|gpt2' --modes eval --timeout 120

Builds every transformers architecture it can from a small config (layers, hidden sizes, heads,
vocabulary shrunk; random weights; nothing is downloaded: ``HF_HUB_OFFLINE=1``), plus diffusers
and timm models when those packages import, each in ``eval`` and, where the model has a training
path (dropout, layerdrop, drop-path), ``train`` mode. Each model runs under the dynamic stage's
own machinery (:mod:`compilelint.dynamic.runner`: the collecting eager backend, torch's
structured-trace records, then one eager pass under line coverage of the package's files) in a
worker process that imports torch once; a model that hangs past ``--timeout`` is killed with its
worker, which restarts at the next model.

Labels (breaks, recompiles and the lines that ran, by package-relative path) are cached in
``benchmarks/corpus_results.json``; a run only labels the models missing there (``--relabel``
to redo them). The static stage then scans every package file some model ran, and the score is

- **recall**: of the unique lines where torch broke the graph (the innermost frame inside the
  package) or installed the guard that failed on a recompile, how many a static finding covers
  (its span, ±1 line, as the merge does);
- **precision on lines that ran**: of the static findings on lines the eager pass ran, how many
  sit on an observed break or recompile line; the rest ran and were traced without breaking,
  listed by rule as the worklist.

Run time (2-core machine, torch 2.13 CPU, see docs/corpus.md): the labelling is minutes per
dozen models; ``--static-only`` is one static scan (cached after the first) plus the scoring.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import select
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_LABELS = os.path.join(HERE, "corpus_results.json")
LABELS_VERSION = 1
FAMILIES = ("transformers", "diffusers", "timm")
RESTART_EVERY = 25  # models per worker process (dynamo's caches and memory grow)
# The held-out subset (docs/corpus.md): the 80 runs labelled during round 2, never tuned on
# (transformers `led` ... `mpt`, and diffusers); every other run is the development subset.
HELDOUT = re.compile(r"^(transformers/(l[e-z]|m)|diffusers/)")
SUBSETS = ("all", "dev", "heldout")


def in_subset(key: str, subset: str) -> bool:
    if subset == "all":
        return True
    return bool(HELDOUT.search(key)) == (subset == "heldout")


def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        DIFFUSERS_VERBOSITY="error",
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    src = os.path.join(REPO, "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    return env


# --------------------------------------------------------------------------- ranges


def to_ranges(lines: Iterable[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3,7"`` (coverage is stored compactly)."""
    out: list[str] = []
    xs = sorted(set(lines))
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ",".join(out)


def from_ranges(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


# --------------------------------------------------------------------------- model list
# (runs in the worker: imports torch and the model packages)


def package_dirs() -> dict[str, str]:
    """family -> installed package folder (only the families that import)."""
    import importlib

    out: dict[str, str] = {}
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(fam)
        except Exception:
            continue
        out[fam] = os.path.realpath(os.path.dirname(mod.__file__ or ""))
    return out


LAYER_KEYS = re.compile(
    r"^(num_hidden_layers|num_layers|n_layers?|encoder_layers|decoder_layers|num_encoder_layers|"
    r"num_decoder_layers|num_.*_layers|.*_num_layers|depth|n_layer)$"
)
HIDDEN_KEYS = {
    "hidden_size": 64,
    "d_model": 64,
    "n_embd": 64,
    "embed_dim": 64,
    "embedding_size": 64,
    "word_embed_proj_dim": 64,
    "projection_dim": 64,
    "proj_dim": 64,
    "text_embed_dim": 64,
    "vision_embed_dim": 64,
}
HEAD_KEYS = {
    "num_attention_heads": 4,
    "n_head": 4,
    "n_heads": 4,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 4,
    "num_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "d_kv": 16,
    "attention_head_dim": 16,
}
FF_KEYS = {
    "intermediate_size": 128,
    "ffn_dim": 128,
    "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128,
    "n_inner": 128,
    "d_ff": 128,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 64,
    "num_experts": 4,
    "num_local_experts": 4,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "kv_lora_rank": 16,
    "q_lora_rank": 32,
}
TOKEN_ID_KEYS = (
    "pad_token_id",
    "bos_token_id",
    "eos_token_id",
    "decoder_start_token_id",
    "sep_token_id",
    "cls_token_id",
    "mask_token_id",
    "unk_token_id",
)
VOCAB = 256


def shrink_config(cfg: Any, depth: int = 0) -> None:
    """Shrink a transformers config in place (and its sub-configs)."""
    d = dict(vars(cfg))
    for k, v in d.items():
        if k.startswith("_"):
            continue
        try:
            if hasattr(v, "to_dict") and hasattr(v, "model_type") and depth < 3:
                shrink_config(v, depth + 1)
            elif isinstance(v, bool) or v is None:
                continue
            elif isinstance(v, int):
                if LAYER_KEYS.match(k) and v > 2:
                    setattr(cfg, k, 2)
                elif k in HIDDEN_KEYS and v > HIDDEN_KEYS[k]:
                    setattr(cfg, k, HIDDEN_KEYS[k])
                elif k in HEAD_KEYS and v > HEAD_KEYS[k]:
                    setattr(cfg, k, HEAD_KEYS[k])
                elif k in FF_KEYS and v > FF_KEYS[k]:
                    setattr(cfg, k, FF_KEYS[k])
                elif k == "vocab_size" and v > VOCAB:
                    setattr(cfg, k, VOCAB)
            elif isinstance(v, (list, tuple)) and v and all(isinstance(x, int) for x in v):
                if k in ("depths", "num_layers", "layers", "blocks_per_stage"):
                    setattr(cfg, k, type(v)(min(x, 1) if x else x for x in v))
        except Exception:
            continue
    vocab = getattr(cfg, "vocab_size", None)
    if isinstance(vocab, int):
        for k in TOKEN_ID_KEYS:
            tid = getattr(cfg, k, None)
            with contextlib.suppress(Exception):
                if isinstance(tid, int) and tid >= vocab:
                    setattr(cfg, k, min(tid, vocab - 1) if k != "pad_token_id" else 0)
                elif isinstance(tid, list):
                    setattr(cfg, k, [min(t, vocab - 1) for t in tid if isinstance(t, int)])
    # Keep heads consistent with the shrunk hidden size.
    hs = getattr(cfg, "hidden_size", None)
    nh = getattr(cfg, "num_attention_heads", None)
    if isinstance(hs, int) and isinstance(nh, int) and nh and hs % nh:
        with contextlib.suppress(Exception):
            cfg.num_attention_heads = 4
    nkv = getattr(cfg, "num_key_value_heads", None)
    nh = getattr(cfg, "num_attention_heads", None)
    if isinstance(nkv, int) and isinstance(nh, int) and nkv and nh % nkv:
        with contextlib.suppress(Exception):
            cfg.num_key_value_heads = nh


@dataclass
class Entry:
    key: str  # "transformers/bert"
    family: str
    name: str


def transformers_entries() -> list[Entry]:
    try:
        from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES
    except Exception:
        return []
    return [Entry(f"transformers/{t}", "transformers", t) for t in sorted(MODEL_MAPPING_NAMES)]


DIFFUSERS_MODELS = {
    "unet2d": (
        "UNet2DModel",
        {
            "sample_size": 16,
            "block_out_channels": (32, 64),
            "layers_per_block": 1,
            "down_block_types": ("DownBlock2D", "AttnDownBlock2D"),
            "up_block_types": ("AttnUpBlock2D", "UpBlock2D"),
            "norm_num_groups": 8,
        },
    ),
    "unet2d_condition": (
        "UNet2DConditionModel",
        {
            "sample_size": 16,
            "block_out_channels": (32, 64),
            "layers_per_block": 1,
            "cross_attention_dim": 32,
            "attention_head_dim": 8,
            "down_block_types": ("CrossAttnDownBlock2D", "DownBlock2D"),
            "up_block_types": ("UpBlock2D", "CrossAttnUpBlock2D"),
            "norm_num_groups": 8,
        },
    ),
    "autoencoder_kl": (
        "AutoencoderKL",
        {
            "block_out_channels": (32, 64),
            "layers_per_block": 1,
            "latent_channels": 4,
            "norm_num_groups": 8,
            "down_block_types": ("DownEncoderBlock2D", "DownEncoderBlock2D"),
            "up_block_types": ("UpDecoderBlock2D", "UpDecoderBlock2D"),
        },
    ),
    "vq_model": (
        "VQModel",
        {
            "block_out_channels": (32, 64),
            "layers_per_block": 1,
            "latent_channels": 4,
            "norm_num_groups": 8,
            "num_vq_embeddings": 32,
            "down_block_types": ("DownEncoderBlock2D", "DownEncoderBlock2D"),
            "up_block_types": ("UpDecoderBlock2D", "UpDecoderBlock2D"),
        },
    ),
    "dit": (
        "DiTTransformer2DModel",
        {
            "sample_size": 8,
            "num_layers": 2,
            "attention_head_dim": 8,
            "num_attention_heads": 2,
            "in_channels": 4,
            "out_channels": 8,
            "patch_size": 2,
            "norm_num_groups": 8,
        },
    ),
    "pixart": (
        "PixArtTransformer2DModel",
        {
            "sample_size": 8,
            "num_layers": 2,
            "attention_head_dim": 8,
            "num_attention_heads": 2,
            "in_channels": 4,
            "out_channels": 8,
            "patch_size": 2,
            "cross_attention_dim": 16,
            "caption_channels": 16,
        },
    ),
    "flux": (
        "FluxTransformer2DModel",
        {
            "patch_size": 1,
            "in_channels": 16,
            "num_layers": 1,
            "num_single_layers": 1,
            "attention_head_dim": 16,
            "num_attention_heads": 2,
            "joint_attention_dim": 32,
            "pooled_projection_dim": 32,
            "axes_dims_rope": (4, 6, 6),
        },
    ),
    "sd3": (
        "SD3Transformer2DModel",
        {
            "sample_size": 8,
            "patch_size": 2,
            "in_channels": 4,
            "num_layers": 2,
            "attention_head_dim": 8,
            "num_attention_heads": 2,
            "joint_attention_dim": 32,
            "caption_projection_dim": 16,
            "pooled_projection_dim": 32,
            "out_channels": 4,
        },
    ),
    "unet1d": (
        "UNet1DModel",
        {
            "block_out_channels": (32, 32, 64),
            "in_channels": 2,
            "out_channels": 2,
            "extra_in_channels": 16,
            "sample_size": 64,
        },
    ),
}


def diffusers_entries() -> list[Entry]:
    return [Entry(f"diffusers/{n}", "diffusers", n) for n in DIFFUSERS_MODELS]


TIMM_MODELS = (
    "resnet18",
    "vit_tiny_patch16_224",
    "deit_tiny_patch16_224",
    "efficientnet_b0",
    "mobilenetv3_small_050",
    "convnext_atto",
    "swin_tiny_patch4_window7_224",
    "regnetx_002",
    "densenet121",
    "mixer_s16_224",
    "levit_128s",
    "coat_tiny",
    "crossvit_tiny_240",
    "pit_ti_224",
    "twins_svt_small",
    "poolformer_s12",
    "convmixer_768_32",
    "ghostnet_050",
    "maxvit_tiny_tf_224",
    "efficientformer_l1",
)


def timm_entries() -> list[Entry]:
    return [Entry(f"timm/{n}", "timm", n) for n in TIMM_MODELS]


def all_entries(families: Iterable[str]) -> list[Entry]:
    out: list[Entry] = []
    fams = set(families)
    if "transformers" in fams:
        out += transformers_entries()
    if "diffusers" in fams:
        with contextlib.suppress(Exception):
            import diffusers  # noqa: F401

            out += diffusers_entries()
    if "timm" in fams:
        with contextlib.suppress(Exception):
            import timm  # noqa: F401

            out += timm_entries()
    return out


# --------------------------------------------------------------------------- building


def param_count(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


MAX_PARAMS = 60_000_000


def build_transformers(torch: Any, name: str, batch: int, seq: int) -> tuple[Any, dict[str, Any]]:
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    cls_name = MODEL_MAPPING_NAMES[name]
    if isinstance(cls_name, (tuple, list)):
        cls_name = cls_name[0]
    model_cls = getattr(transformers, cls_name)
    cfg = CONFIG_MAPPING[name]()
    shrink_config(cfg)
    torch.manual_seed(0)
    model = model_cls(cfg)
    if param_count(model) > MAX_PARAMS:
        raise RuntimeError(f"too large after shrinking ({param_count(model) / 1e6:.0f}M params)")
    return model, transformers_inputs(torch, model, cfg, batch, seq)


def _cfg_get(cfg: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        v = getattr(cfg, n, None)
        if v is not None:
            return v
        for sub in ("vision_config", "audio_config", "encoder"):
            sc = getattr(cfg, sub, None)
            if sc is not None and getattr(sc, n, None) is not None:
                return getattr(sc, n)
    return default


def transformers_inputs(torch: Any, model: Any, cfg: Any, batch: int, seq: int) -> dict[str, Any]:
    main = getattr(model, "main_input_name", "input_ids")
    vocab = _cfg_get(cfg, "vocab_size", default=VOCAB)
    vocab = vocab if isinstance(vocab, int) and vocab > 4 else VOCAB
    if main == "input_ids":
        ids = torch.randint(3, vocab, (batch, seq))
        kw: dict[str, Any] = {"input_ids": ids}
        if getattr(cfg, "is_encoder_decoder", False):
            kw["decoder_input_ids"] = torch.randint(3, vocab, (batch, seq))
        return kw
    if main == "pixel_values":
        size = _cfg_get(cfg, "image_size", "img_size", default=32)
        if isinstance(size, (list, tuple)):
            size = size[0]
        ch = _cfg_get(cfg, "num_channels", "in_channels", default=3)
        return {"pixel_values": torch.randn(batch, int(ch), int(size), int(size))}
    if main == "input_values":
        return {"input_values": torch.randn(batch, 1600 + 160 * seq)}
    if main == "input_features":
        mel = _cfg_get(cfg, "num_mel_bins", "feature_size", "input_feat_per_channel", default=80)
        src = _cfg_get(cfg, "max_source_positions", default=None)
        if getattr(cfg, "model_type", "") == "whisper" and src:
            return {
                "input_features": torch.randn(batch, int(mel), 2 * int(src)),
                "decoder_input_ids": torch.randint(3, vocab, (batch, seq)),
            }
        kw = {"input_features": torch.randn(batch, 4 * seq, int(mel))}
        if getattr(cfg, "is_encoder_decoder", False):
            kw["decoder_input_ids"] = torch.randint(3, vocab, (batch, seq))
        return kw
    raise RuntimeError(f"no input recipe for main input {main!r}")


def build_diffusers(torch: Any, name: str, batch: int, seq: int) -> tuple[Any, dict[str, Any]]:
    import diffusers

    cls_name, kw = DIFFUSERS_MODELS[name]
    torch.manual_seed(0)
    model = getattr(diffusers, cls_name)(**kw)
    size = 8 + seq // 2
    if name in ("unet2d",):
        return model, {"sample": torch.randn(batch, 3, 16, 16), "timestep": 1}
    if name == "unet2d_condition":
        return model, {
            "sample": torch.randn(batch, 4, 16, 16),
            "timestep": 1,
            "encoder_hidden_states": torch.randn(batch, seq, 32),
        }
    if name in ("autoencoder_kl", "vq_model"):
        return model, {"sample": torch.randn(batch, 3, 16, 16)}
    if name == "dit":
        return model, {
            "hidden_states": torch.randn(batch, 4, 8, 8),
            "timestep": torch.tensor([1] * batch),
            "class_labels": torch.tensor([1] * batch),
        }
    if name == "pixart":
        return model, {
            "hidden_states": torch.randn(batch, 4, 8, 8),
            "encoder_hidden_states": torch.randn(batch, seq, 16),
            "timestep": torch.tensor([1] * batch),
            "added_cond_kwargs": {"resolution": None, "aspect_ratio": None},
        }
    if name == "flux":
        return model, {
            "hidden_states": torch.randn(batch, size, 16),
            "encoder_hidden_states": torch.randn(batch, seq, 32),
            "pooled_projections": torch.randn(batch, 32),
            "timestep": torch.tensor([1.0] * batch),
            "img_ids": torch.zeros(size, 3),
            "txt_ids": torch.zeros(seq, 3),
        }
    if name == "sd3":
        return model, {
            "hidden_states": torch.randn(batch, 4, 8, 8),
            "encoder_hidden_states": torch.randn(batch, seq, 32),
            "pooled_projections": torch.randn(batch, 32),
            "timestep": torch.tensor([1] * batch),
        }
    if name == "unet1d":
        return model, {"sample": torch.randn(batch, 2, 64), "timestep": 1}
    raise RuntimeError(f"no input recipe for {name}")


def build_timm(torch: Any, name: str, batch: int, seq: int) -> tuple[Any, dict[str, Any]]:
    import timm

    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False, num_classes=10)
    if param_count(model) > MAX_PARAMS:
        raise RuntimeError(f"too large ({param_count(model) / 1e6:.0f}M params)")
    cfg = getattr(model, "pretrained_cfg", {}) or {}
    size = cfg.get("input_size", (3, 224, 224))
    return model, {"x": torch.randn(batch, *size)}


BUILDERS = {"transformers": build_transformers, "diffusers": build_diffusers, "timm": build_timm}


LAYERDROP_KEYS = ("layerdrop", "encoder_layerdrop", "decoder_layerdrop")


def has_training_path(torch: Any, model: Any) -> bool:
    """Dropout with p > 0 (modules, or a ``*dropout*`` config value the code passes to
    ``F.dropout``), or a layerdrop / drop-path setting."""
    for m in model.modules():
        p = getattr(m, "p", None)
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) and p:
            return True
        if type(m).__name__ in ("DropPath", "StochasticDepth") and getattr(m, "drop_prob", 0):
            return True
    cfg = getattr(model, "config", None)
    if cfg is None:
        return False
    return any(
        isinstance(v, float)
        and v > 0
        and ("dropout" in k or "drop_path" in k or k in LAYERDROP_KEYS)
        for k, v in vars(cfg).items()
    ) or any(hasattr(cfg, k) for k in LAYERDROP_KEYS)


def enable_layerdrop(model: Any) -> None:
    """Train mode: a config that has layerdrop gets 0.1 where it is 0 (the value training
    recipes use, e.g. wav2vec2's default), so the random layer-skipping path runs."""
    cfg = getattr(model, "config", None)
    for k in LAYERDROP_KEYS:
        if isinstance(getattr(cfg, k, None), (int, float)) and not getattr(cfg, k):
            with contextlib.suppress(Exception):
                setattr(cfg, k, 0.1)
    for m in model.modules():
        for k in LAYERDROP_KEYS:
            if isinstance(getattr(m, k, None), float) and not getattr(m, k):
                with contextlib.suppress(Exception):
                    setattr(m, k, 0.1)


# --------------------------------------------------------------------------- worker


def label_one(torch: Any, entry: Entry, mode: str, dirs: dict[str, str]) -> dict[str, Any]:
    """Build, compile with the dynamic stage's collectors, call twice (a second shape), then
    one eager pass under line coverage. Returns the label record."""
    from compilelint.dynamic.runner import (
        Call,
        Collectors,
        StepError,
        call_phases,
        eager_coverage,
        new_result,
    )

    t0 = time.perf_counter()
    rec: dict[str, Any] = {"status": "ok", "mode": mode}
    torch._dynamo.reset()
    try:
        model, kw = BUILDERS[entry.family](torch, entry.name, 2, 8)
        if entry.family == "transformers":  # the same model, other inputs: no second build
            kw2 = transformers_inputs(torch, model, model.config, 3, 12)
        else:
            _, kw2 = BUILDERS[entry.family](torch, entry.name, 3, 12)
    except Exception as exc:
        return {"status": "build-error", "mode": mode, "error": _one_line(exc)}
    if mode == "train":
        if not has_training_path(torch, model):
            return {"status": "no-train-path", "mode": mode}
        enable_layerdrop(model)
        model.train()
    else:
        model.eval()
    root = dirs[entry.family]
    result = new_result(root, config={}, mode=mode)
    # eval: a second call with another batch size and length (what serving does: a recompile,
    # then shapes traced as symbolic); train: one call (forward and backward).
    calls: list[Call] = [("inputs", [], kw, 1)]
    if mode == "eval":
        calls.append(("shape", [], kw2, 1))
    grad_ctx = torch.no_grad if mode == "eval" else contextlib.nullcontext
    try:
        with Collectors(torch, root) as col:
            try:
                compiled = torch.compile(model, backend=col.backend)
                call_phases(
                    torch, compiled, calls, col, result, grad_ctx=grad_ctx, train=mode == "train"
                )
            finally:
                col.fill(result)
    except StepError as se:
        rec["status"] = "run-error"
        rec["error"] = _one_line(se.exc)
    except Exception as exc:
        rec["status"] = "run-error"
        rec["error"] = _one_line(exc)
    torch._dynamo.reset()
    cov = eager_coverage(
        torch, model, calls, list(dirs.values()), grad_ctx=grad_ctx, train=mode == "train"
    )
    rec.update(labels_from_raw(result, dirs))
    rec["coverage"] = {rel_to(p, dirs): to_ranges(ls) for p, ls in cov.items() if rel_to(p, dirs)}
    rec["graphs"] = len([g for g in result.get("graphs", []) if g.get("call", 0) == 0])
    rec["params"] = param_count(model)
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return " ".join(text.split())[:300]


def rel_to(path: str, dirs: dict[str, str]) -> str | None:
    """``/.../site-packages/transformers/models/x.py`` -> ``transformers/models/x.py``."""
    rp = os.path.realpath(path)
    for fam, d in dirs.items():
        if rp.startswith(d + os.sep):
            return fam + "/" + os.path.relpath(rp, d).replace(os.sep, "/")
    return None


def labels_from_raw(raw: dict[str, Any], dirs: dict[str, str]) -> dict[str, Any]:
    """Breaks and recompiles of a raw runner result, each at the innermost frame inside a
    package folder (the scanned source), deduplicated by (gb_type or guard, path, line)."""
    from compilelint.dynamic.capture import (
        parse_break_message,
        parse_recompile_reason,
        split_recompile_payload,
    )
    from compilelint.dynamic.registry import load_registry

    reg = load_registry()
    breaks: dict[tuple[str, str, int], dict[str, Any]] = {}
    outside = 0
    for b in raw.get("breaks", []) or []:
        pb = parse_break_message(str(b.get("message", "")), reg)
        frames = [*pb.stack]
        if pb.loc_path:
            frames.append(type(frames[0])(pb.loc_path, pb.loc_line, "") if frames else None)  # type: ignore[arg-type]
        where = None
        for f in reversed([f for f in frames if f is not None]):
            rel = rel_to(f.path, dirs)
            if rel:
                where = (rel, f.line)
                break
        if where is None:
            outside += 1
            continue
        key = (pb.gb_type, where[0], where[1])
        if key in breaks:
            breaks[key]["count"] += 1
        else:
            breaks[key] = {
                "path": where[0],
                "line": where[1],
                "gb_type": pb.gb_type,
                "gb_id": pb.gb_id,
                "count": 1,
                "skipped": pb.frame_skipped,
            }
    recs: dict[tuple[str, str, int], dict[str, Any]] = {}
    for r in raw.get("recompiles", []) or []:
        reasons = split_recompile_payload(r.get("payload"))
        if not reasons:
            continue
        pr = parse_recompile_reason(reasons[0])
        where = None
        for f in reversed(pr.frames):
            rel = rel_to(f.path, dirs)
            if rel:
                where = (rel, f.line)
                break
        if where is None:
            outside += 1
            continue
        guard = re.sub(r"\d+", "N", pr.guard)
        key = (guard, where[0], where[1])
        if key in recs:
            recs[key]["count"] += 1
        else:
            recs[key] = {"path": where[0], "line": where[1], "guard": pr.guard[:200], "count": 1}
    return {
        "breaks": list(breaks.values()),
        "recompiles": list(recs.values()),
        "outside": outside,
        "limit_hits": len(raw.get("limit_hits") or []),
    }


def worker(jobs: list[str]) -> int:
    """``family/name:mode`` per job; one JSON line per result on stdout, and a ``start`` line
    before each job so the parent can enforce its time limit."""
    out = sys.stdout
    sys.stdout = sys.stderr
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import torch
    import torch._dynamo

    torch.set_num_threads(1)
    dirs = package_dirs()
    entries = {e.key: e for e in all_entries(dirs)}
    for job in jobs:
        key, _, mode = job.rpartition(":")
        out.write(json.dumps({"start": job}) + "\n")
        out.flush()
        entry = entries.get(key)
        if entry is None:
            rec: dict[str, Any] = {"status": "unknown", "mode": mode}
        else:
            try:
                rec = label_one(torch, entry, mode, dirs)
            except BaseException as exc:  # a model's failure is a label, never the worker's end
                if isinstance(exc, KeyboardInterrupt):
                    raise
                rec = {"status": "run-error", "mode": mode, "error": _one_line(exc)}
        out.write(json.dumps({"job": job, "result": rec}) + "\n")
        out.flush()
    return 0


# --------------------------------------------------------------------------- labelling (parent)


def load_labels(path: str) -> dict[str, Any]:
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("version") == LABELS_VERSION:
            return data
    return {"version": LABELS_VERSION, "env": {}, "runs": {}}


def save_labels(path: str, data: dict[str, Any]) -> None:
    data["runs"] = dict(sorted(data["runs"].items()))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=True, separators=(",", ":"))
        fh.write("\n")
    os.replace(tmp, path)


def env_info(python: str) -> dict[str, Any]:
    code = (
        "import json, importlib.metadata as m\n"
        "out = {}\n"
        "for p in ('torch', 'transformers', 'diffusers', 'timm'):\n"
        "    try: out[p] = m.version(p)\n"
        "    except Exception: out[p] = None\n"
        "fams = []\n"
        "for p in ('transformers', 'diffusers', 'timm'):\n"
        "    try: __import__(p); fams.append(p)\n"
        "    except Exception: pass\n"
        "out['families'] = fams\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, env=quiet_env(), check=False
    )
    try:
        return json.loads(res.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}


def list_jobs(python: str, families: list[str]) -> list[str]:
    code = (
        f"import sys, json; sys.path.insert(0, {HERE!r})\n"
        "import corpus\n"
        f"print(json.dumps([e.key for e in corpus.all_entries({families!r})]))\n"
    )
    res = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, env=quiet_env(), check=False
    )
    try:
        return list(json.loads(res.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        sys.exit(f"corpus: cannot list models: {res.stderr.strip()[-500:]}")


def run_jobs(
    jobs: list[str], python: str, timeout: float, on_result: Any, restart_every: int
) -> None:
    """Run jobs in worker processes, one at a time; kill a worker whose job runs past
    ``timeout`` and go on with the next job in a fresh one."""
    pending = list(jobs)
    while pending:
        batch = pending[:restart_every]
        cmd = ["nice", "-n", "10", python, os.path.abspath(__file__), "--worker", *batch]
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=quiet_env(),
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        current: str | None = None
        started = time.monotonic()
        done: set[str] = set()
        while True:
            left = timeout - (time.monotonic() - started) if current else 120.0
            ready, _, _ = select.select([proc.stdout], [], [], max(left, 0.1))
            if not ready:
                if current and time.monotonic() - started >= timeout:
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, 9)
                    proc.wait()
                    on_result(current, {"status": "timeout", "mode": current.rpartition(":")[2]})
                    done.add(current)
                    break
                continue
            line = proc.stdout.readline()
            if not line:
                proc.wait()
                if current and current not in done:
                    on_result(
                        current,
                        {
                            "status": "crash",
                            "mode": current.rpartition(":")[2],
                            "rc": proc.returncode,
                        },
                    )
                    done.add(current)
                break
            with contextlib.suppress(ValueError):
                msg = json.loads(line)
                if "start" in msg:
                    current = msg["start"]
                    started = time.monotonic()
                elif "job" in msg:
                    on_result(msg["job"], msg["result"])
                    done.add(msg["job"])
                    current = None
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, 9)
        if not done:  # the worker died before starting anything
            sys.exit("corpus: the worker process failed to start a job")
        pending = [j for j in pending if j not in done]


# --------------------------------------------------------------------------- scoring


def static_findings(
    files: list[str], no_cache: bool = False, mode: str | None = None, dtype: str | None = None
) -> tuple[list[Any], float]:
    """The static stage on ``files``; ``mode``/``dtype``: the compile context the runs were
    labelled in (``--mode``/``--dtype`` of ``compilelint check``), None: any."""
    sys.path.insert(0, os.path.join(REPO, "src"))
    from compilelint.api import check
    from compilelint.config import Config

    t0 = time.perf_counter()
    cfg = Config(respect_gitignore=False, mode=mode, dtype=dtype)
    report = check(files, cfg, no_cache=no_cache)
    return list(report.findings), time.perf_counter() - t0


def site_dirs(python: str, families: list[str]) -> dict[str, str]:
    code = (
        "import importlib, json, os\n"
        "out = {}\n"
        f"for f in {families!r}:\n"
        "    try: m = importlib.import_module(f)\n"
        "    except Exception: continue\n"
        "    out[f] = os.path.realpath(os.path.dirname(m.__file__))\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, env=quiet_env(), check=False
    )
    try:
        return dict(json.loads(res.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {}


@dataclass
class Score:
    break_lines: int
    break_hit: int
    rec_lines: int
    rec_hit: int
    ran_findings: int
    ran_true: int


def _spans(findings: list[Any], dirs: dict[str, str]) -> dict[str, list[tuple[int, int, Any]]]:
    out: dict[str, list[tuple[int, int, Any]]] = defaultdict(list)
    for f in findings:
        rel = rel_to(f.path if os.path.isabs(f.path) else os.path.abspath(f.path), dirs)
        if rel:
            out[rel].append((f.line - 1, max(f.end_line, f.line) + 1, f))
    return out


def _context(f: Any, dirs: dict[str, str]) -> frozenset[str] | None:
    """The files whose calls a finding's values come from (its frames before its own line: a
    line of a shared utility that recompiles for the models calling it in a certain way), or
    None: a finding of every run that executes its line."""
    if not f.frames or f.package:
        return None
    got = {rel_to(os.path.abspath(fr.path), dirs) for fr in f.frames[:-1]}
    got.discard(None)
    return frozenset(g for g in got if g) or None


def _reaches(ctx: frozenset[str] | None, cov: dict[str, Any]) -> bool:
    """A run whose model is a finding's context (it executed the file of a context call)."""
    return ctx is None or any(c in cov for c in ctx)


def _hit(
    spans: dict[str, list[tuple[int, int, Any]]],
    path: str,
    line: int,
    ctxs: dict[int, frozenset[str] | None] | None = None,
    covs: list[dict[str, Any]] | None = None,
) -> bool:
    """A finding spans the line, and (``covs``: the coverage of the runs that observed it)
    one of those runs is in the finding's context."""
    return any(
        a <= line <= b and (covs is None or any(_reaches(ctxs[id(f)], c) for c in covs))  # type: ignore[index]
        for a, b, f in spans.get(path, ())
    )


def score(
    runs: dict[str, Any],
    findings: list[Any],
    dirs: dict[str, str],
    statuses: tuple[str, ...] = ("ok",),
    use_context: bool = True,
) -> tuple[dict[str, Any], list[list[Any]]]:
    from compilelint.catalog import load_catalog

    cat = load_catalog()
    spans = _spans(findings, dirs)
    # Only findings a run can observe (breaks or recompiles), not advice.
    observable = {
        p: [s for s in ss if (r := cat.get(s[2].rule)) is not None and r.verify != "none"]
        for p, ss in spans.items()
    }
    # Only runs that finished: a run that raised part-way often broke on the raise itself
    # (an input recipe the model rejects), which is no label for the static stage.
    ok = {k: v for k, v in runs.items() if v.get("status") in statuses}
    # a finding with a context (``Finding.frames``: the calls its values come from, in another
    # file) is judged on the runs of the models that make those calls, not on every run that
    # executes its line (``use_context=False``: every run, as one project)
    ctxs = {id(f): _context(f, dirs) if use_context else None for f in findings}
    break_lines: dict[tuple[str, int], dict[str, Any]] = {}
    rec_lines: dict[tuple[str, int], dict[str, Any]] = {}
    per_model: list[list[Any]] = []
    covs: dict[str, dict[str, set[int]]] = {}
    ran_by: dict[int, bool] = {}  # per finding: a run in its context executed its line
    for key, rec in ok.items():
        cov = {p: from_ranges(r) for p, r in rec.get("coverage", {}).items()}
        covs[key] = cov
        bl = {(b["path"], b["line"]) for b in rec.get("breaks", [])}
        rl = {(r["path"], r["line"]) for r in rec.get("recompiles", [])}
        for b in rec.get("breaks", []):
            e = break_lines.setdefault((b["path"], b["line"]), {"gb": Counter(), "models": set()})
            e["gb"][b["gb_type"]] += 1
            e["models"].add(key)
        for r in rec.get("recompiles", []):
            e = rec_lines.setdefault((r["path"], r["line"]), {"gb": Counter(), "models": set()})
            e["gb"][re.sub(r"\d+(\.\d+)?", "N", r["guard"])[:80]] += 1
            e["models"].add(key)
        ran = [
            (p, a, b, f)
            for p, ss in observable.items()
            for a, b, f in ss
            if f.line in cov.get(p, ()) and _reaches(ctxs[id(f)], cov)
        ]
        for *_, f in ran:
            ran_by[id(f)] = True
        ran_true = sum(
            1 for p, a, b, _f in ran if any(bp == p and a <= bln <= b for bp, bln in bl | rl)
        )
        mine = [cov]
        per_model.append(
            [
                key,
                rec.get("graphs", 0),
                len(bl),
                sum(1 for p, ln in bl if _hit(spans, p, ln, ctxs, mine)),
                len(rl),
                sum(1 for p, ln in rl if _hit(spans, p, ln, ctxs, mine)),
                len(ran),
                ran_true,
                rec.get("seconds", 0),
            ]
        )

    def observed_by(v: dict[str, Any]) -> list[dict[str, set[int]]]:
        return [covs[m] for m in sorted(v["models"])]

    all_obs = {**rec_lines, **break_lines}
    ran_findings = []
    for p, ss in observable.items():
        for a, b, f in ss:
            if ran_by.get(id(f)):
                true = any(
                    op == p
                    and a <= ol <= b
                    and any(_reaches(ctxs[id(f)], c) for c in observed_by(v))
                    for (op, ol), v in all_obs.items()
                )
                ran_findings.append((p, f, true))

    missed_breaks = [
        (k, v) for k, v in break_lines.items() if not _hit(spans, *k, ctxs, observed_by(v))
    ]
    missed_recs = [
        (k, v) for k, v in rec_lines.items() if not _hit(spans, *k, ctxs, observed_by(v))
    ]
    summary = {
        "runs": len(runs),
        "runs_ok": len(ok),
        "models_ok": len({k.rpartition(":")[0] for k in ok}),
        "status": dict(Counter(v.get("status") for v in runs.values())),
        "break_lines": len(break_lines),
        "break_hit": len(break_lines) - len(missed_breaks),
        "recompile_lines": len(rec_lines),
        "recompile_hit": len(rec_lines) - len(missed_recs),
        "ran_findings": len(ran_findings),
        "ran_true": sum(1 for *_, t in ran_findings if t),
        # findings whose message says the break is latent (behind a guard the inputs decide):
        # a run that did not break there does not refute them
        "ran_latent": sum(1 for _p, f, t in ran_findings if not t and _latent(f)),
        # the same precision over the findings that predict a break for every input (a latent
        # finding predicts one only for inputs the run may not have given: fp16, training)
        "ran_definite": sum(1 for _p, f, _t in ran_findings if not _latent(f)),
        "ran_definite_true": sum(1 for _p, f, t in ran_findings if t and not _latent(f)),
        "false_alarms": ran_findings,
        "missed_breaks": missed_breaks,
        "missed_recompiles": missed_recs,
        "static_findings": len(findings),
    }
    return summary, per_model


def _latent(f: Any) -> bool:
    return "(latent: " in f.message


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.3f}" if b else "0/0"


def print_report(summary: dict[str, Any], per_model: list[list[Any]], full: bool) -> None:
    from tabulate import tabulate

    if full:
        head = ["run", "graphs", "breaks", "hit", "recompiles", "hit", "ran findings", "true", "s"]
        print(tabulate(sorted(per_model), headers=head, tablefmt="github"))
        print()
    print(
        f"runs: {summary['runs']} ({summary['status']}); labelled: {summary['runs_ok']} runs of "
        f"{summary['models_ok']} models"
    )
    print(f"static findings in the scanned files: {summary['static_findings']}")
    print(
        f"break recall (unique lines):     {_ratio(summary['break_hit'], summary['break_lines'])}"
    )
    print(
        f"recompile recall (unique lines): "
        f"{_ratio(summary['recompile_hit'], summary['recompile_lines'])}"
    )
    print(
        f"precision on lines that ran:     {_ratio(summary['ran_true'], summary['ran_findings'])}"
    )
    latent = summary.get("ran_latent", 0)
    print(
        f"  of the rest, marked latent:    {latent} (their message names the guard); "
        f"unexplained: {summary['ran_findings'] - summary['ran_true'] - latent}"
    )
    if "ran_definite" in summary:
        print(
            "precision on lines that ran, latent findings apart: "
            f"{_ratio(summary['ran_definite_true'], summary['ran_definite'])}"
        )
    print()
    print("Missed break lines, by graph-break type (unique lines):")
    by_gb: Counter[str] = Counter()
    for _k, v in summary["missed_breaks"]:
        by_gb[v["gb"].most_common(1)[0][0]] += 1
    for gb, n in by_gb.most_common():
        print(f"  {n:4d}  {gb}")
    print()
    print("Missed recompile lines, by guard:")
    by_guard: Counter[str] = Counter()
    for _k, v in summary["missed_recompiles"]:
        by_guard[v["gb"].most_common(1)[0][0]] += 1
    for g, n in by_guard.most_common(15):
        print(f"  {n:4d}  {g}")
    print()
    print("Findings on lines that ran without a break or recompile, by rule:")
    alarms = [(p, f) for p, f, t in summary["false_alarms"] if not t]
    by_rule: Counter[tuple[str, bool]] = Counter((f.rule, _latent(f)) for _p, f in alarms)
    for (rule, lat), n in by_rule.most_common():
        ex = [f"{p}:{f.line}" for p, f in alarms if f.rule == rule and _latent(f) == lat]
        tag = " (latent)" if lat else ""
        print(f"  {n:4d}  {rule}{tag}  e.g. {', '.join(ex[:3])}")
    if full:
        print()
        print("Missed break lines (most models first):")
        for (p, ln), v in sorted(summary["missed_breaks"], key=lambda kv: -len(kv[1]["models"])):
            gb = v["gb"].most_common(1)[0][0]
            print(f"  {p}:{ln}  {gb}  ({len(v['models'])} runs)")
        print()
        print("Missed recompile lines (most models first):")
        for (p, ln), v in sorted(
            summary["missed_recompiles"], key=lambda kv: -len(kv[1]["models"])
        ):
            guard = v["gb"].most_common(1)[0][0]
            print(f"  {p}:{ln}  {guard}  ({len(v['models'])} runs)")
        print()
        print("Findings on lines that ran without a break or recompile:")
        for p, f in sorted(alarms, key=lambda pf: (pf[0], pf[1].line)):
            print(f"  {p}:{f.line}  {f.rule}  {f.message[:160]}")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--static-only", action="store_true", help="score the cached labels only")
    ap.add_argument("--labels", default=DEFAULT_LABELS, help="label cache (JSON)")
    ap.add_argument("--only", help="regex on family/name of the models to label")
    ap.add_argument("--limit", type=int, help="label at most this many new runs")
    ap.add_argument("--modes", default="eval,train")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per model run")
    ap.add_argument("--relabel", action="store_true", help="label again what is cached")
    ap.add_argument("--python", default=sys.executable, help="interpreter with torch")
    ap.add_argument("--no-cache", action="store_true", help="static scan without its cache")
    ap.add_argument("--full", action="store_true", help="per-model table and every missed line")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument(
        "--no-context",
        action="store_true",
        help="scan without the runs' compile context (default: `--mode` of the runs when they "
        "all have one, and `--dtype float32`, the dtype the models are built in)",
    )
    ap.add_argument(
        "--one-project",
        action="store_true",
        help="judge every finding on every run that executes its line, also one whose frames "
        "name the calls (of some models) its values come from (default: only those models' runs)",
    )
    ap.add_argument(
        "--subset",
        choices=SUBSETS,
        default="all",
        help="score only the development or the held-out runs (docs/corpus.md)",
    )
    ns = ap.parse_args(argv)
    if ns.worker is not None:
        return worker(ns.worker)

    families = [f for f in ns.families.split(",") if f]
    data = load_labels(ns.labels)
    t0 = time.perf_counter()
    if not ns.static_only:
        env = env_info(ns.python)
        data["env"] = {k: v for k, v in env.items() if k != "families"}
        families = [f for f in families if f in env.get("families", [])]
        keys = list_jobs(ns.python, families)
        rx = re.compile(ns.only) if ns.only else None
        jobs = [
            f"{k}:{m}"
            for k in keys
            if rx is None or rx.search(k)
            for m in ns.modes.split(",")
            if m and (ns.relabel or f"{k}:{m}" not in data["runs"])
        ]
        # A train run only where the eval run built (it is skipped anyway otherwise).
        jobs = [
            j
            for j in jobs
            if not j.endswith(":train")
            or data["runs"].get(j.replace(":train", ":eval"), {}).get("status")
            not in ("build-error", "timeout", "crash")
        ]
        if ns.limit is not None:
            jobs = jobs[: ns.limit]
        print(f"corpus: labelling {len(jobs)} runs ({len(data['runs'])} cached)", file=sys.stderr)
        count = [0]

        def on_result(job: str, rec: dict[str, Any]) -> None:
            data["runs"][job] = rec
            count[0] += 1
            print(
                f"  [{count[0]}/{len(jobs)}] {job}: {rec.get('status')} "
                f"{len(rec.get('breaks', []))} breaks {len(rec.get('recompiles', []))} recompiles "
                f"{rec.get('seconds', '')}s {rec.get('error', '')[:100]}",
                file=sys.stderr,
                flush=True,
            )
            if count[0] % 5 == 0:
                save_labels(ns.labels, data)

        run_jobs(jobs, ns.python, ns.timeout, on_result, RESTART_EVERY)
        save_labels(ns.labels, data)
        print(f"corpus: labelling took {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    dirs = site_dirs(ns.python, list(FAMILIES))
    files: set[str] = set()
    for rec in data["runs"].values():
        if rec.get("status") in ("ok", "run-error"):
            files.update(rec.get("coverage", {}))
    paths = []
    for rel in sorted(files):
        fam, _, rest = rel.partition("/")
        if fam in dirs and os.path.exists(os.path.join(dirs[fam], rest)):
            paths.append(os.path.join(dirs[fam], rest))
    t1 = time.perf_counter()
    # the context the runs were labelled in: their mode, and float32 (models are built in
    # torch's default dtype); the static stage is told it as a user would (`--mode`, `--dtype`)
    modes = {v.get("mode") for v in data["runs"].values()}
    mode = next(iter(modes)) if len(modes) == 1 and not ns.no_context else None
    dtype = None if ns.no_context else "float32"
    findings, secs = static_findings(paths, no_cache=ns.no_cache, mode=mode, dtype=dtype)
    print(f"static context: mode={mode or 'any'} dtype={dtype or 'any'}", file=sys.stderr)
    runs = {k: v for k, v in data["runs"].items() if in_subset(k, ns.subset)}
    summary, per_model = score(runs, findings, dirs, use_context=not ns.one_project)
    print(f"subset: {ns.subset} ({len(runs)} runs)")
    print(f"static stage: {len(paths)} files in {secs:.1f} s", file=sys.stderr)
    print_report(summary, per_model, ns.full)
    print(f"\n(scoring took {time.perf_counter() - t1:.1f} s; env {data.get('env')})")
    if ns.json:
        keep = {k: v for k, v in summary.items() if not isinstance(v, list)}
        with open(ns.json, "w", encoding="utf-8") as fh:
            json.dump(keep, fh, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
