#!/usr/bin/env bash
# Records docs/fix.md's GPU figures: `benchmarks/gpu_fix/run.sh OUTDIR` on a GPU machine (an
# H100 for the recorded ones). Benches encoder.py as written, the copy that `bench --fix` makes
# (each fix verified by torch on the GPU), and hand.py (the same model fixed by hand), in bf16
# under default and reduce-overhead. Writes OUTDIR/vit_fix.json and OUTDIR/vit_fix.txt.
set -uo pipefail
out=$(realpath -m "${1:?usage: run.sh OUTDIR [STEPS]}")
steps=${2:-30}
mkdir -p "$out"
cd "$(dirname "$0")" || exit 2
export COMPILELINT_PROGRESS=1
python3 -c "from compilelint.cli import main; main()" bench encoder.py --input-spec encoder.json \
  --fix --compare hand.json --dtype bfloat16 --modes default,reduce-overhead --steps "$steps" \
  --warmup 5 --attribution-steps 10 --format json -o "$out/vit_fix.json"
rc=$?
python3 -c "import json, sys; from compilelint.report.bench_text import render; print(render(json.load(open(sys.argv[1]))), end='')" "$out/vit_fix.json" >"$out/vit_fix.txt"
exit $rc
