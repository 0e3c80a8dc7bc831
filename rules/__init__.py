"""Vote-counting rules: small policies composed into named presets (RULES.md)."""
