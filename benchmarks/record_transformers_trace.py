"""Record a torch structured trace (``TORCH_TRACE``) of 12 transformers models for
``bench_trace.py --real``: a real trace nobody hand-trimmed, with graph breaks in library code.

The 12 models are among those the corpus (``benchmarks/corpus.py``, ``corpus_results.json``)
saw break on torch 2.13; each is built by the corpus's own recipe (a shrunk config, random
weights, nothing downloaded), compiled with ``torch.compile`` (Inductor unless ``--backend``)
and called on two sequence lengths, all in one process. The breaks are in the installed
transformers' files, so a check of any project maps none of them: they are reported at the
trace's paths, like a trace from another machine.

TORCH_TRACE=/tmp/tr-hf python benchmarks/record_transformers_trace.py [--backend inductor]
python benchmarks/bench_trace.py --real /tmp/tr-hf --repeat 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MODELS = [
    "big_bird",
    "bigbird_pegasus",
    "ctrl",
    "jetmoe",
    "led",
    "longformer",
    "longt5",
    "fastspeech2_conformer",
    "higgs_audio_v2",
    "bamba",
    "jamba",
    "hrm_text",
]


def main() -> None:
    import corpus

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="inductor")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for name in MODELS:
        t0 = time.perf_counter()
        status = "ok"
        try:
            model, inputs = corpus.build_transformers(torch, name, 2, 8)
            model.eval()
            compiled = torch.compile(model, backend=args.backend)
            with torch.no_grad():
                compiled(**inputs)
                more = corpus.transformers_inputs(torch, model, model.config, 2, 12)
                compiled(**more)
        except Exception as exc:  # a model that fails still leaves its records
            status = f"{type(exc).__name__}: {str(exc)[:120]}"
        print(f"{name}: {time.perf_counter() - t0:.1f}s {status}", flush=True)
        torch._dynamo.reset()


if __name__ == "__main__":
    main()
