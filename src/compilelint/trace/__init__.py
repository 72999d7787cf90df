"""Read torch structured traces (``TORCH_TRACE``) of real runs: ``compilelint check --trace``.

:mod:`~compilelint.trace.reader` streams the logs, :mod:`~compilelint.trace.paths` maps the
training machine's paths onto the scanned files, :mod:`~compilelint.trace.api` joins the ranks
with the static findings and :mod:`~compilelint.trace.divergence` compares the ranks (CL005).
Nothing here imports torch.
"""
