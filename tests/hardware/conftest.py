import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from hwcommon import FULL, REDUCED, read_json  # noqa: E402


@pytest.fixture
def full_doc():
    return read_json(FULL)


@pytest.fixture
def reduced_doc():
    return read_json(REDUCED)
