"""Configuration: TOML scenarios and component models (with --set overrides) as typed, frozen data; the claims file; the run-length resolver. No simulator imports."""
