"""Simulated chips and peripherals for the virtual board (CPython only)."""
