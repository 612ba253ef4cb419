"""Output plumbing of the commands: atomic writes, output-path checks, stale outputs, standard output, progress."""
