"""The interview room and console pages (plain HTML/CSS/JS, package data read with importlib.resources)."""
