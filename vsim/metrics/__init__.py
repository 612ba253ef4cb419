"""Measurement: RFC 3550 jitter, jitter buffers, the G.107 E-model, summary statistics."""
