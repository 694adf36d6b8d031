"""Overlays a home printer can print at 100 % (issue 32, item 6): every game's overlay is also cut
into one page per strip (hardware/overlays/pages/), each no larger than A4 and US Letter in
landscape, the strip at 1:1 inside the margin printers leave, with corner marks on the strip's
outline and a 100 mm scale bar; a strip that no page can hold is refused, naming it."""
import os
import re

import pytest

from hwcommon import FULL, HW, TOOLS, _load, design, read_json

PAGES = os.path.join(HW, "overlays", "pages")
A4_LANDSCAPE = (297.0, 210.0)
LETTER_LANDSCAPE = (279.4, 215.9)
MARGIN = 6.35      # the widest unprintable edge common home printers leave (1/4 inch)


def _mod():
    return _load("build_overlays", os.path.join(TOOLS, "build_overlays.py"))


def _num(attr, text):
    return [float(v) for v in re.findall(r' %s="([-\d.]+)"' % attr, text)]


def _sheet_circles(text):
    return [tuple(map(float, m)) for m in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="([\d.]+)"', text)]


def test_every_page_fits_a4_and_letter_and_keeps_its_content_inside_the_margins():
    files = sorted(os.listdir(PAGES))
    games = {fn[:-4] for fn in os.listdir(os.path.join(HW, "overlays")) if fn.endswith(".svg")}
    assert files and {re.sub(r"_\d\d_.*", "", f) for f in files} == games
    for fn in files:
        text = open(os.path.join(PAGES, fn)).read()
        w, h = map(float, re.search(r'width="([\d.]+)mm" height="([\d.]+)mm"', text).groups())
        assert w <= min(A4_LANDSCAPE[0], LETTER_LANDSCAPE[0]) and h <= min(A4_LANDSCAPE[1], LETTER_LANDSCAPE[1]), fn
        dx, dy = map(float, re.search(r'<g transform="translate\(([-\d.]+) ([-\d.]+)\)">', text).groups())
        assert "scale(" not in text and "matrix(" not in text       # 1:1
        body = text.split("<g transform", 1)[1]
        xs = [x + dx for x in _num("x", body) + _num("cx", body)]
        ys = [y + dy for y in _num("y", body) + _num("cy", body)]
        for cx, cy, r in _sheet_circles(body):
            xs += [cx + dx - r, cx + dx + r]
            ys += [cy + dy - r, cy + dy + r]
        rects = re.findall(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"', body)
        for x, y, rw, rh in rects:
            xs += [float(x) + dx + float(rw)]
            ys += [float(y) + dy + float(rh)]
        assert MARGIN <= min(xs) and max(xs) <= w - MARGIN, fn
        assert MARGIN <= min(ys) and max(ys) <= h - MARGIN, fn
        assert "Print at 100 %" in text and 'class="scale" d="M' in text and " h 100 " in text
        # and everything outside the strip too: the title, the scale bar, the words, the marks
        head, tail = text.split("<g transform", 1)[0], text.rsplit("</g>", 1)[1]
        px = _num("x", head + tail) + [float(v) for v in re.findall(r'd="M ([-\d.]+) ', head + tail)]
        py = _num("y", head + tail) + [float(v) for v in re.findall(r'd="M [-\d.]+ ([-\d.]+)', head + tail)]
        assert MARGIN <= min(px) and max(px) <= w - MARGIN, fn
        assert MARGIN <= min(py) and max(py) <= h - MARGIN, fn
        # the marks carry the strip's sides on: they stand on its outline's x
        rect = re.search(r'<rect x="([-\d.]+)" y="[-\d.]+" width="([\d.]+)"', body)
        left, right = float(rect.group(1)) + dx, float(rect.group(1)) + float(rect.group(2)) + dx
        corners = sorted({float(v) for v in re.findall(r'class="corner" d="M ([-\d.]+) ', text)})
        assert [round(v, 3) for v in corners] == [round(left, 3), round(right, 3)], fn


def test_every_spot_of_every_board_is_on_its_page_with_a_value_or_not_used():
    """A page shows all the board's spots (registers x 8): each one either prints the value it
    means in that game or says "not used"; the page names the board by its place in the chain."""
    doc = read_json(FULL)
    for fn in sorted(os.listdir(PAGES)):
        n = int(re.search(r"_(\d\d)_", fn).group(1))
        strip = doc["strips"][n - 1]
        assert fn.endswith("_%s.svg" % strip["id"]), fn
        text = open(os.path.join(PAGES, fn)).read()
        assert "page %d of %d, for board %d from the controller" % (n, len(doc["strips"]), n) in text
        body = text.split("<g transform", 1)[1]
        circles = _sheet_circles(body)
        assert len(circles) == strip["registers"] * 8, fn
        marks = re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="5"[^>]*/>\n<text [^>]*>([^<]+)</text>', body)
        assert len(marks) == len(circles), fn
        for cx, cy, words in marks:
            assert words == "not used" or re.fullmatch(r"-?\d+", words), (fn, cx, cy, words)
        dashed = len(re.findall(r'r="5"[^>]*stroke-dasharray', body))
        assert dashed == sum(1 for _, _, wd in marks if wd == "not used"), fn


def test_every_space_of_the_sheet_is_on_exactly_one_page_at_one_to_one():
    for game in sorted(fn[:-4] for fn in os.listdir(os.path.join(HW, "overlays")) if fn.endswith(".svg")):
        sheet = open(os.path.join(HW, "overlays", game + ".svg")).read()
        want = sorted(_sheet_circles(sheet))
        got = []
        for fn in sorted(f for f in os.listdir(PAGES) if re.match(re.escape(game) + r"_\d\d_", f)):
            text = open(os.path.join(PAGES, fn)).read()
            body = text.split("<g transform", 1)[1]
            # the page's strip outline and its spaces keep their sheet coordinates inside the group
            rect = re.search(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"', body)
            x0, y0, w, h = map(float, rect.groups())
            for c in _sheet_circles(body):
                assert x0 <= c[0] <= x0 + w and y0 <= c[1] <= y0 + h, (fn, c)
                got.append(c)
            assert fn.endswith(re.search(r'fill="#777"[^>]*>([^<]+)<', body).group(1) + ".svg")
        assert sorted(got) == want, game


def test_a_strip_no_page_can_hold_is_refused_naming_it():
    bo = _mod()
    sheet = ('<svg xmlns="http://www.w3.org/2000/svg" width="400mm" height="200mm" viewBox="0 0 400 200">\n'
             '<rect x="6" y="16" width="300" height="64" fill="none" stroke="black" stroke-width="0.3"/>\n'
             '<text x="8" y="20" font-size="3" fill="#777">long_strip</text>\n</svg>\n')
    with pytest.raises(bo.OverlayError) as e:
        bo.pages("Test", sheet, "test_game")
    assert "strip 'long_strip' (300 x 64 mm) does not fit" in str(e.value)
    # the strip board itself fits: 264 x 74 mm
    sheet_ok = sheet.replace('width="300"', 'width="264"').replace('height="64"', 'height="74"')
    assert list(bo.pages("Test", sheet_ok, "test_game")) == ["test_game_01_long_strip.svg"]
    ok = sheet.replace('width="300"', 'width="178"')
    assert list(bo.pages("Test", ok, "test_game")) == ["test_game_01_long_strip.svg"]


# ---- issue 40, item 6: the same pages as PDF, one strip a page, A4 and Letter at 100 % --------------
PDF_DIR = os.path.join(HW, "overlays", "pdf")
PT = 72.0 / 25.4
DPI = 600


def _dark_run(img, row, start_px):
    """Length (px) of the run of dark pixels in `row` that covers or starts just after start_px."""
    px = img.load()
    x = start_px
    while x > 0 and px[x - 1, row] < 128:
        x -= 1
    while px[x, row] >= 128:
        x += 1
    end = x
    while px[end, row] < 128:
        end += 1
    return end - x


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_game_has_a_pdf_per_paper_one_strip_a_page_at_its_exact_size(paper):
    import pypdfium2 as pdfium
    mod = _mod()
    name, pw, ph = mod.PAPERS[paper]
    games = sorted(fn[:-4] for fn in os.listdir(os.path.join(HW, "overlays")) if fn.endswith(".svg"))
    strips = len(read_json(FULL)["strips"])
    for game in games:
        pdf = pdfium.PdfDocument(os.path.join(PDF_DIR, "%s_%s.pdf" % (game, paper)))
        assert len(pdf) == strips == len([f for f in os.listdir(PAGES) if f.startswith(game + "_")])
        for i in range(len(pdf)):
            w, h = pdf[i].get_size()
            assert abs(w - pw * PT) < 0.01 and abs(h - ph * PT) < 0.01, (game, paper, i, w / PT, h / PT)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_known_distance_prints_at_its_length(paper):
    """Rendered by PDFium at 600 dpi, the page's 100 mm scale bar measures 100 mm (+ its 0.3 mm
    end ticks) and the strip's outline its 264 mm (+ the 0.3 mm stroke), on each paper."""
    import pypdfium2 as pdfium
    mod = _mod()
    _, pw, ph = mod.PAPERS[paper]
    ox, oy = (pw - mod.PAGE_W) / 2, (ph - mod.PAGE_H) / 2       # the page's place on the paper
    page = pdfium.PdfDocument(os.path.join(PDF_DIR, "civmint_%s.pdf" % paper))[0]
    img = page.render(scale=DPI / 72.0, grayscale=True).to_pil().convert("L")
    px_mm = DPI / 25.4
    bar_x, bar_y = ox + mod.PAGE_MARGIN + 2, oy + mod.PAGE_MARGIN + 9
    bar = _dark_run(img, round(bar_y * px_mm), round(bar_x * px_mm) + 3) / px_mm
    assert abs(bar - 100.3) < 0.25, bar
    w = design.STRIP_W
    sx, sy = ox + (mod.PAGE_W - w) / 2, oy + mod.PAGE_MARGIN + mod.TITLE_H
    outline = _dark_run(img, round(sy * px_mm), round((sx + w / 2) * px_mm)) / px_mm
    assert abs(outline - (w + 0.3)) < 0.25, outline


def test_a_page_that_does_not_fit_its_paper_is_refused_naming_it(monkeypatch):
    mod = _mod()
    monkeypatch.setattr(mod, "PAPERS", dict(mod.PAPERS, a5=("A5", 210.0, 148.0)))
    with pytest.raises(mod.OverlayError, match=r"page 1 \(\w+_01_dev_government_economy.svg\): 279.4 x 210 mm "
                                               r"does not fit A5 landscape \(210 x 148 mm\)"):
        mod.outputs()
    assert mod.main(["--check"]) == 2
