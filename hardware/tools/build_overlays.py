"""Generate a printable board overlay for every game of the app (its sensing binding at 1:1).

    python hardware/tools/build_overlays.py           # rewrite
    python hardware/tools/build_overlays.py --check   # exit 1 if a committed file is stale

Writes hardware/overlays/<game>.svg: each strip of hardware/sensor_map.json with every lane
labelled by the game's counter on it and each space by the value it means, so one built board
serves every game (docs/games.md). Games come from the app's registry; each is drawn for two
players (or the nearest count the game allows).

That sheet is one long column of strips, for a print shop.  A home printer prints
hardware/overlays/pages/<game>_<nn>_<strip>.svg: one page per strip (nn = the board's place in the
chain, counted from the controller), 279.4 x 210 mm (the width of US Letter, the height of A4:
landscape on either), the strip at 1:1 inside a 6.5 mm margin that printers leave unprinted, with
marks carrying the strip's sides on above and below its outline and a 100 mm scale bar to check
the print; every mark and word of the page lies inside that margin.  A strip that does not fit
that printable area is refused, naming it.

Browsers scale an SVG when they print it (to fit the page, by default), so the same pages are also
written as PDF, which a PDF viewer prints at "actual size": hardware/overlays/pdf/<game>_a4.pdf and
<game>_letter.pdf, one strip a page, each page exactly that paper in landscape with the page
centred on it at 1:1.  The SVG pages are converted by svglib and written by ReportLab (both on PyPI
and in Debian: ReportLab is the long-kept PDF writer of the Python world, and its "invariant" mode
writes the same bytes for the same input, so the committed PDFs can be checked like every other
generated file; svglib reads SVG into ReportLab's drawings, so no SVG is parsed by hand here).  A
page that does not fit a paper is refused, naming the game, the page and the paper.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
ROOT = os.path.dirname(HW)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import design  # noqa: E402

from companion import games  # noqa: E402
from companion.table.sensing import Binding, lanes_of, overlay_svg  # noqa: E402
from firmware import sensormap  # noqa: E402


PAGE_W, PAGE_H = 279.4, 210.0     # US Letter's width x A4's height, mm: fits both in landscape
PAGE_MARGIN = 6.5                  # printers leave about 3-6.35 mm unprinted at every edge
TITLE_H = 18.0                     # above the strip: the page's title, scale bar and corner marks


PAPERS = {"a4": ("A4", 297.0, 210.0), "letter": ("US Letter", 279.4, 215.9)}   # landscape, mm
MM_PT = 72.0 / 25.4


class OverlayError(Exception):
    pass


def pdf_pages(game, pages_svg, paper):
    """One PDF of a game's pages on one paper (PAPERS key): each page at 1:1, centred; bytes."""
    import io
    import tempfile
    from reportlab.graphics import renderPDF
    from reportlab.pdfgen import canvas
    from svglib.svglib import svg2rlg
    name, pw, ph = PAPERS[paper]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(pw * MM_PT, ph * MM_PT), invariant=1, pageCompression=1)
    c.setTitle("%s overlay pages, %s landscape, print at 100 %%" % (game, name))
    c.setAuthor("hardware/tools/build_overlays.py")
    with tempfile.TemporaryDirectory() as tmp:
        for n, (fn, svg) in enumerate(sorted(pages_svg.items()), 1):
            w, h = map(float, re.search(r'width="([\d.]+)mm" height="([\d.]+)mm"', svg).groups())
            if w > pw + 1e-6 or h > ph + 1e-6:
                raise OverlayError("%s page %d (%s): %g x %g mm does not fit %s landscape (%g x %g mm)"
                                   % (game, n, fn, w, h, name, pw, ph))
            path = os.path.join(tmp, fn)
            with open(path, "w") as f:
                f.write(svg)
            drawing = svg2rlg(path)
            renderPDF.draw(drawing, c, (pw - w) / 2 * MM_PT, (ph - h) / 2 * MM_PT)
            c.showPage()
    c.save()
    return buf.getvalue()


_STRIP = re.compile(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" '
                    r'stroke="black" stroke-width="0.3"/>\n<text [^>]*>([^<]+)</text>')
_Y = re.compile(r' (?:y|cy)="([-\d.]+)"')


def pages(title, sheet, game):
    """{file name: page SVG}: one page per strip of the overlay sheet (every element whose y lies
    in the strip's outline), translated to the page at 1:1."""
    strips = [(float(x), float(y), float(w), float(h), sid) for x, y, w, h, sid in _STRIP.findall(sheet)]
    if not strips:
        raise OverlayError("%s: no strip outline found in the overlay sheet" % game)
    avail_w, avail_h = PAGE_W - 2 * PAGE_MARGIN, PAGE_H - 2 * PAGE_MARGIN - TITLE_H
    lines = sheet.splitlines()
    out = {}
    for n, (x0, y0, w, h, sid) in enumerate(strips, 1):
        if w > avail_w or h > avail_h:
            raise OverlayError("%s: strip '%s' (%g x %g mm) does not fit a page's printable area "
                               "(%.1f x %.1f mm below the title, A4 and US Letter landscape)"
                               % (game, sid, w, h, avail_w, avail_h))
        dx = round((PAGE_W - w) / 2 - x0, 3)
        dy = round(PAGE_MARGIN + TITLE_H - y0, 3)
        keep = []
        for ln in lines[1:]:
            m = _Y.search(ln)
            if m and y0 - 0.01 <= float(m.group(1)) <= y0 + h + 0.01:
                keep.append(ln)
        sx, sy = dx + x0, dy + y0           # the strip's top-left corner on the page
        # corner marks: the strip's side edges carried on 5 mm above and below its outline (a strip
        # as wide as the board leaves no room beside it inside the margin), to cut along
        marks = "".join('<path class="corner" d="M %s %s v 5 M %s %s v 5" stroke="black" stroke-width="0.2" '
                        'fill="none"/>\n' % (_f(cx), _f(sy - 6), _f(cx), _f(sy + h + 1))
                        for cx in (sx, sx + w))
        bar_x, bar_y = PAGE_MARGIN + 2, PAGE_MARGIN + 9
        page = ('<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s" '
                'font-family="sans-serif">\n' % (_f(PAGE_W), _f(PAGE_H), _f(PAGE_W), _f(PAGE_H))
                + '<text x="%s" y="%s" font-size="4">%s: page %d of %d, for board %d from the controller</text>\n'
                % (_f(PAGE_MARGIN + 2), _f(PAGE_MARGIN + 4), _esc(title), n, len(strips), n)
                + '<path class="scale" d="M %s %s h 100 M %s %s v 2 M %s %s v 2" stroke="black" '
                  'stroke-width="0.3"/>\n' % (_f(bar_x), _f(bar_y), _f(bar_x), _f(bar_y - 1),
                                              _f(bar_x + 100), _f(bar_y - 1))
                + '<text x="%s" y="%s" font-size="2.5">100 mm: measure it before you cut</text>\n'
                % (_f(bar_x + 103), _f(bar_y + 1))
                + '<text x="%s" y="%s" font-size="3">Print at 100 %%, no scaling; A4 or US Letter, landscape. '
                  'Cut along the outline (the marks above and below carry its sides on) and lay it on '
                  'the board, edge on edge.</text>\n' % (_f(sx), _f(sy + h + 12))
                + marks
                + '<g transform="translate(%s %s)">\n%s\n</g>\n</svg>\n' % (_f(dx), _f(dy), "\n".join(keep)))
        out["%s_%02d_%s.svg" % (game, n, sid)] = page
    return out


def _f(v):
    return ("%.3f" % v).rstrip("0").rstrip(".")


def _esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def outputs():
    path = os.path.join(HW, "sensor_map.json")
    with open(path) as f:
        raw = json.load(f)
    lanes = lanes_of(sensormap.load(path))
    out = {}
    for m in games.modules():
        if m.sensing is None:
            continue
        setup = m.sample_setup(min(max(2, m.players[0]), m.players[1]))
        binding = Binding.bind(m.sensing.counters(setup), lanes)
        sheet = overlay_svg(m.title, binding, raw)
        out[os.path.join(HW, "overlays", m.id + ".svg")] = sheet
        game_pages = pages(m.title, sheet, m.id)
        for fn, page in game_pages.items():
            out[os.path.join(HW, "overlays", "pages", fn)] = page
        for paper in PAPERS:
            out[os.path.join(HW, "overlays", "pdf", "%s_%s.pdf" % (m.id, paper))] = pdf_pages(m.id, game_pages, paper)
    return out


def main(argv):
    os.makedirs(os.path.join(HW, "overlays", "pages"), exist_ok=True)
    os.makedirs(os.path.join(HW, "overlays", "pdf"), exist_ok=True)
    try:
        outs = outputs()
    except OverlayError as e:
        print("refused: %s" % e, file=sys.stderr)
        return 2
    bad = design.write_or_check({k: v for k, v in outs.items() if not k.endswith(".pdf")}, argv,
                                "build_overlays.py", owned=(os.path.join(HW, "overlays", "pages"), ""))
    return max(bad, design.write_or_check({k: v for k, v in outs.items() if k.endswith(".pdf")}, argv,
                                          "build_overlays.py", owned=(os.path.join(HW, "overlays", "pdf"), "")))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
