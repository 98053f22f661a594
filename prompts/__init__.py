"""Prompt templates (Jinja2, `[system]`/`[user]` parts), shipped as package data: see core/resources.py."""
