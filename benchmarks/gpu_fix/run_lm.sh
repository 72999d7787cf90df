#!/usr/bin/env bash
# Records docs/fix.md's GPU figures for issue 22's decoder LM: `benchmarks/gpu_fix/run_lm.sh
# OUTDIR` on a GPU machine. Benches lm.py as written, the copy that `bench --fix` makes (each fix
# verified by torch on the GPU) and lm_hand.py (the same model fixed by hand), bf16, default and
# reduce-overhead, three eager runs per model. Writes OUTDIR/lm_fix.json and OUTDIR/lm_fix.txt.
set -uo pipefail
out=$(realpath -m "${1:?usage: run_lm.sh OUTDIR [STEPS]}")
steps=${2:-30}
mkdir -p "$out"
cd "$(dirname "$0")" || exit 2
export COMPILELINT_PROGRESS=1
python3 -c "from compilelint.cli import main; main()" bench lm.py --input-spec lm.json \
  --fix --compare lm_hand.json --dtype bfloat16 --modes default,reduce-overhead --eager-runs 3 \
  --steps "$steps" --warmup 5 --attribution-steps 0 --timeout 400 --format json -o "$out/lm_fix.json"
rc=$?
python3 -c "import json, sys; from compilelint.report.bench_text import render; print(render(json.load(open(sys.argv[1]))), end='')" "$out/lm_fix.json" >"$out/lm_fix.txt"
exit $rc
