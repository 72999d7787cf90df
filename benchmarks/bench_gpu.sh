#!/usr/bin/env bash
# Records the README's Bench tables: `benchmarks/bench_gpu.sh OUTDIR demo cnn gnn` on a GPU
# machine (`smoke` first for a quick check with tiny shapes). Writes OUTDIR/<name>.json (the
# raw result) and OUTDIR/<name>.txt (the terminal table). Needs compilelint importable.
set -uo pipefail
out=${1:?usage: bench_gpu.sh OUTDIR [smoke] [demo] [demo-fix] [cnn] [gnn]}
shift
mkdir -p "$out"
cl() { python3 -c "from compilelint.cli import main; main()" "$@"; }
text() { python3 -c "import json, sys; from compilelint.report.bench_text import render; print(render(json.load(open(sys.argv[1]))), end='')" "$1.json" >"$1.txt"; }
export COMPILELINT_PROGRESS=1
for what in "$@"; do
  case "$what" in
  smoke)
    cl bench --input-spec fixtures/demo/spec.json --device cuda --modes default,reduce-overhead \
      --steps 5 --warmup 2 --attribution-steps 2 --format json -o "$out/smoke.json"
    ;;
  demo)
    cl bench fixtures/demo/transformer.py --input-spec fixtures/demo/spec.h100.json \
      --compare fixtures/bench/transformer_fixed.h100.json --dtype bfloat16 \
      --modes default,reduce-overhead --format json -o "$out/demo.json"
    ;;
  demo-fix)
    cl bench fixtures/demo/transformer.py --input-spec fixtures/demo/spec.h100.json --fix \
      --dtype bfloat16 --modes default,reduce-overhead --format json -o "$out/demo-fix.json"
    ;;
  cnn)
    cl bench fixtures/bench/cnn.py --input-spec fixtures/bench/cnn.h100.json \
      --compare fixtures/bench/cnn_fixed.h100.json --dtype bfloat16 \
      --modes default,reduce-overhead --format json -o "$out/cnn.json"
    ;;
  gnn)
    cl bench fixtures/bench/gnn.py --input-spec fixtures/bench/gnn.h100.json \
      --compare fixtures/bench/gnn_fixed.h100.json --dtype bfloat16 \
      --modes default,reduce-overhead --format json -o "$out/gnn.json"
    ;;
  *)
    echo "unknown: $what" >&2
    exit 2
    ;;
  esac
  echo "$what: exit $?" >&2
  [ -f "$out/$what.json" ] && text "$out/$what"
done
