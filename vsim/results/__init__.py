"""Results: a run's summary, its text, voice quality, the trace of a run and the plotting kit."""
