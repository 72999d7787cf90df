"""One module per rule. Each defines a :class:`~compilelint.static.checks.base.Check`."""
