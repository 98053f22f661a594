"""Example apps (apps/<app>/app.yaml, domains, sample notes), shipped as package data: see core/resources.py."""
