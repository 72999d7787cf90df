"""Autofixes: libcst codemods per rule, applied to the static stage's findings."""
