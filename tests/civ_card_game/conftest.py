"""Engine tests: make the helper module importable (the suite runs with --import-mode=importlib)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
