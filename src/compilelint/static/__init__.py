"""The static stage: libcst analysis that never imports torch or the scanned code."""
