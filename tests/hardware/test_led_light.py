"""Light you can see (issue 40, item 4): the luminance of a lit space through the board's hole and
what lies over it, from the LED's datasheet figures, recomputed here from the model's own terms;
the current the boards use makes a space clear through the paper alone, and no current the LED
takes does through the 1.0 mm card, as pcb.md and the assembly guide's one-LED test say."""
import math
import os

from hwcommon import HW, build_docs, design


def test_the_luminance_follows_from_the_leds_figures_and_the_hole():
    o = design.LED_OPTICS
    ma = build_docs.light_ma()
    w, h = o["hole_mm"]
    r = math.sqrt(w * h / math.pi)
    cone = math.sin(math.atan(r / design.PCB_MM)) ** 2
    for name, thick, trans in design.LIGHT_STACKS:
        f = design.light_figures(ma, (name, thick, trans))
        iv = o["iv_mcd"] * ma / o["iv_at_ma"] / 1000.0
        lum = trans * math.pi * iv * cone / (math.pi * (math.pi * ((r + thick) / 1000) ** 2))
        assert abs(f["luminance_cd_m2"] - lum) < 1e-9
        assert abs(f["paper_cd_m2"] - design.PAPER_REFLECTANCE * design.ROOM_LUX / math.pi) < 1e-9
        # linear in the current: twice the current, twice the light
        assert abs(design.light_figures(2 * ma, (name, thick, trans))["luminance_cd_m2"] - 2 * lum) < 1e-9


def test_the_boards_current_makes_a_space_clear_through_the_paper_and_none_does_through_the_card():
    card, window = design.LIGHT_STACKS
    ma = build_docs.light_ma()
    assert design.light_figures(ma, window)["clear"]
    assert design.current_for_clear(window) <= ma
    assert not design.light_figures(ma, card)["clear"]
    assert design.current_for_clear(card) > design.LED_OPTICS["max_ma"]
    # every resistor the guide offers stays within the LED and the power budget (8 lit)
    for ohm in build_docs.LIGHT_OPTIONS:
        i = build_docs._led_ma(ohm)
        assert i < design.LED_OPTICS["max_ma"] and build_docs.LIGHT_MAX_LIT * i < 60


def test_pcb_md_and_the_guide_state_the_estimate_and_the_one_led_test():
    pcb = open(os.path.join(HW, "docs", "pcb.md")).read()
    guide = open(os.path.join(HW, "docs", "assembly.md")).read()
    assert build_docs.light_block() in pcb and build_docs.onelight_block() in guide
    card, window = design.LIGHT_STACKS
    f = design.light_figures(build_docs.light_ma(), window)
    assert "%.1f cd/m2 | %.0f %% | yes" % (f["luminance_cd_m2"], f["contrast"] * 100) in pcb
    assert "## 0. Before the order: one light under the overlay" in guide
