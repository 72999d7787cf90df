"""Shared analyses: per-file facts (walker), project-wide reachability and tensor inference."""
