"""Dagster assets, checks, jobs, schedules and sensors: thin wrappers over ``agentic_pipeline``."""
