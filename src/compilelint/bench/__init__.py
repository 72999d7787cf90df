"""``compilelint bench``: the speedup of each torch.compile mode on the user's own hardware, and
what each graph break costs per step.

Layout (the same split as the dynamic stage):

- :mod:`compilelint.bench.runner`: the child process, the only bench module that imports torch.
  One process per configuration (eager, or one compile mode), so every mode starts from a fresh
  dynamo state, inductor cache and allocator.
- :mod:`compilelint.bench.api`: starts the children, checks that they saw the same weights and
  inputs, and turns their raw timings into the result dict (statistics, significance, the time
  attributed to each graph break). No torch.
- :mod:`compilelint.bench.stats`: pure statistics.
- :mod:`compilelint.bench.cli`: the thin click command.
- Rendering: :mod:`compilelint.report.bench_text` (terminal) and
  :mod:`compilelint.report.bench_html` (a section of the HTML report).
"""
