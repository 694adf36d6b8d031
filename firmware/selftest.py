"""Self-test: the faults of the dice sensors, the shift-register chain and the calibration.

Returns the SELF_TEST message fields (protocol/wire.py): faults are (code, index, value):
FAULT_SENSOR_MISSING (well, 0), FAULT_SENSOR_ID (well, ID read), FAULT_SENSOR_SATURATED
(well, clear count), FAULT_CHAIN_LENGTH (registers expected, registers found or 0xFFFF),
FAULT_CAL_DEFAULTS (0, 0), FAULT_BIT_STUCK (chain bit, seconds) - the host names chain bits
with SensorMap.bit_name; FAULT_PROFILE_PIN (pin, wire.PIN_* role) and FAULT_MAP_TOO_LARGE (KB
needed, KB free) from the start-up checks (Board.config_faults).

Chain length: the chain is read with ``extra`` bytes more than the map's registers. The last
register's SER is tied to the tail level, so after the real registers the read shows tail
bytes; the first byte of the trailing run of tail bytes is the number of registers found.
A longer chain (no tail byte at the end of the read) is reported as 0xFFFF (unknown), a chain
that returns only tail bytes (MISO stuck at the tail level, chain unplugged) as 0.
"""
from protocol import wire
from firmware.hc165 import chain_length

TEST_UNPROMPTED = 2  # trigger of a report the board sends by itself (fault appeared/cleared)
MAX_FAULTS = 90  # 3 + 5 * 90 bytes fits a frame


def chain_registers(chain, tail_level):
    """Registers found (-1: more than the read can tell)."""
    buf = chain.read_full()
    return chain_length(buf, chain.registers + chain.extra, tail_level)


def run(board, trigger, now):
    faults = list(board.config_faults)  # the profile or map refused at start-up
    for w in range(board.n_wells):
        f = board.sensor_check(w)
        if f is not None:
            faults.append(f)
    for w in range(board.n_wells):
        if board.sensor_ok[w] and board.saturated[w]:
            faults.append((wire.FAULT_SENSOR_SATURATED, w, board.wells[w].last_c & 0xFFFF))
    nreg = board.smap.chain_registers
    found = nreg
    if board.chain is not None:  # else the config fault says why there is no chain
        found = chain_registers(board.chain, board.smap.tail_level)
        board.registers_found = found
        if found != nreg:
            faults.append((wire.FAULT_CHAIN_LENGTH, nreg, 0xFFFF if found < 0 else found))
    if board.store.defaults_in_use:
        faults.append((wire.FAULT_CAL_DEFAULTS, 0, 0))
    for w in range(board.n_wells):
        bad = board.store.implausible[w]
        if bad is not None:
            faults.append((wire.FAULT_CAL_IMPLAUSIBLE, w, wire.cal_fault_value(bad[0], bad[1], bad[2])))
    stuck = board.scanner.stuck_bits(now, []) if board.scanner is not None else ()
    for b, s in stuck:
        faults.append((wire.FAULT_BIT_STUCK, b, s if s < 0xFFFF else 0xFFFF))
    if len(faults) > MAX_FAULTS:
        faults = faults[:MAX_FAULTS]
    regs = found if 0 <= found <= 255 else 255
    return {"trigger": trigger, "registers": regs, "faults": faults}
