"""Scenarios: TOML configs validated into typed objects, built into a model, run into results."""
