"""Plots of xferbench results (run, sweep, pingpong and scenario JSON)."""

__version__ = "0.1.0"
