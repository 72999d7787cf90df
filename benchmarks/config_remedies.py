"""Each config remedy of ``compilelint.remedies`` checked on the installed torch: graph breaks
and recompiles of its INVALID and VALID examples (and its ``still`` example) without and with
the setting, outputs compared with eager. The figures of docs/fix.md "Config remedies".

    python benchmarks/config_remedies.py [--backend eager|inductor] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse


def run(
    source: str,
    settings: dict[str, object],
    compile_kw: dict[str, object],
    backend: str,
    device: str,
) -> tuple[int, int, bool]:
    from compilelint.dynamic.remedy_probe import run_example

    return run_example(
        source, settings, compile_kw, backend=backend, device=device, rtol=1e-4, atol=1e-5
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="eager")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    import torch

    from compilelint.remedies import CONFIG_REMEDIES

    print(f"torch {torch.__version__}, backend {args.backend}, device {args.device}")
    print(f"{'remedy':34} {'example':8} {'without':>20} {'with':>20}  outputs")
    for r in CONFIG_REMEDIES:
        on, kw = dict(r.settings), dict(r.compile)
        examples = [(w, getattr(r, w)) for w in ("invalid", "valid", "still")]
        examples += [(f"since{v}", src) for v, _, src in r.since]
        for which, src in examples:
            if not src:
                continue
            try:
                b0, r0, _ = run(src, {}, {}, args.backend, args.device)
                b1, r1, same = run(src, on, kw, args.backend, args.device)
            except Exception as exc:  # a setting that makes torch fail is a finding too
                print(f"{r.name:34} {which:8} error: {type(exc).__name__}: {str(exc)[:80]}")
                continue
            print(
                f"{r.name:34} {which:8} {f'{b0} breaks, {r0} graphs':>20} {f'{b1} breaks, {r1} graphs':>20}  "
                f"{'same' if same else 'DIFFER'}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
