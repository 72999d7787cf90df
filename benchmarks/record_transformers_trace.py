"""Record a torch structured trace (``TORCH_TRACE``) of 12 transformers models for
``bench_trace.py --real``: a real trace nobody hand-trimmed, from library code.

Each model is built from a small random-initialised config (no download), compiled with
``torch.compile`` (Inductor unless ``--backend``) and called on two sequence lengths (the second
recompiles or runs dynamic), in one process. The breaks it records are in the installed
transformers' files, so a check of any project maps none of them: they are reported at the
trace's paths, like a trace from another machine.

TORCH_TRACE=/tmp/tr-hf python benchmarks/record_transformers_trace.py [--backend inductor]
"""

from __future__ import annotations

import argparse
import time

import torch

MODELS = [
    ("gpt2", "GPT2Config", dict(n_layer=2, n_head=2, n_embd=64, vocab_size=512)),
    ("bert", "BertConfig", {}),
    ("t5", "T5Config", dict(num_layers=2, num_heads=2, d_model=64, d_ff=128, d_kv=32)),
    ("bart", "BartConfig", dict(encoder_layers=2, decoder_layers=2, d_model=64)),
    ("llama", "LlamaConfig", {}),
    ("mistral", "MistralConfig", {}),
    ("opt", "OPTConfig", dict(num_hidden_layers=2, ffn_dim=128, word_embed_proj_dim=64)),
    ("gpt_neo", "GPTNeoConfig", dict(num_layers=2, attention_types=[[["global", "local"], 1]])),
    ("distilbert", "DistilBertConfig", dict(n_layers=2, n_heads=2, dim=64, hidden_dim=128)),
    ("roberta", "RobertaConfig", {}),
    ("electra", "ElectraConfig", dict(embedding_size=64)),
    ("albert", "AlbertConfig", dict(embedding_size=64)),
]
COMMON = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    intermediate_size=128,
    vocab_size=512,
    max_position_embeddings=128,
    d_model=64,
    encoder_attention_heads=2,
    decoder_attention_heads=2,
    encoder_ffn_dim=128,
    decoder_ffn_dim=128,
)


def main() -> None:
    import transformers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="inductor")
    args = ap.parse_args()
    torch.manual_seed(0)
    for name, cfg_name, extra in MODELS:
        t0 = time.perf_counter()
        cfg_cls = getattr(transformers, cfg_name)
        cfg = cfg_cls(**{**COMMON, **extra})
        model = transformers.AutoModel.from_config(cfg).eval()
        compiled = torch.compile(model, backend=args.backend)
        status = "ok"
        try:
            with torch.no_grad():
                for seq in (8, 12):
                    ids = torch.randint(0, 500, (2, seq))
                    kw = {"decoder_input_ids": ids} if cfg.is_encoder_decoder else {}
                    compiled(input_ids=ids, **kw)
        except Exception as exc:  # a model that fails to compile still leaves its records
            status = f"{type(exc).__name__}: {str(exc)[:120]}"
        print(f"{name}: {time.perf_counter() - t0:.1f}s {status}", flush=True)
        torch._dynamo.reset()


if __name__ == "__main__":
    main()
