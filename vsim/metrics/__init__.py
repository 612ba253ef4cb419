"""Measurement: RFC 3550 jitter, loss, summary statistics, voice quality."""
