"""The framework's base domain module (domains/base.yaml), shipped as package data: see core/resources.py."""
