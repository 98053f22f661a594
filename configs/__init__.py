"""Pipeline configs (configs/writing/*.yaml), shipped as package data: see core/resources.py."""
