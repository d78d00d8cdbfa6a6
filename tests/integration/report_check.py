#!/usr/bin/env python3
"""Checks of a rendered report.html, from Chromium's output (tests/integration/test_report.sh).
Each check prints "ok - name" or "not ok - name: why" (counted by tests/run.sh).

report_check.py dom DUMP.html RESULTS-DIR N PATHS NAME [METRICS]   the DOM Chromium built: script ran,
    nothing external, one heat map per path and metric with N x N cells (or an N x N image),
    the suspects tables = suspects_<path>.csv (else suspects.csv), no element or handler a host name could have injected
report_check.py pixels SHOT.png DUMP.html RESULTS-DIR NAME   the screenshot: not blank, and
    in the latency map cells inside a leaf block differ from those outside as latencies do
report_check.py banner RESULTS-DIR NAME   report.html's verdict banner is summary.json's verdict:
    its result, and each clause's text in order, marked (<strong>) exactly where it fails
"""
import base64, csv, html, html.parser, json, os, re, statistics, struct, sys, zlib

failed = 0
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - " + name + (": " + why if why else ""))


class Dom(html.parser.HTMLParser):
    """The elements as (tag, attrs, parents' tags and classes) plus the suspects table's rows."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.elems, self.rows, self.cell, self.in_sus = [], [], [], None, 0
        self.scripts, self.in_script = [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elems.append((tag, a, [(t, x.get("class", "")) for t, x in self.stack]))
        if tag == "table" and "suspects" in a.get("class", "").split():
            self.in_sus += 1
        if self.in_sus and tag == "tr":
            self.rows.append([])
        if self.in_sus and tag in ("td", "th"):
            self.cell = []
        self.in_script = tag == "script"
        if self.in_script:
            self.scripts.append("")
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.in_sus and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None
        if tag == "table" and self.in_sus:
            self.in_sus -= 1
        self.in_script = False
        while self.stack and self.stack[-1][0] != tag:
            self.stack.pop()
        if self.stack:
            self.stack.pop()

    def handle_data(self, d):
        if self.cell is not None:
            self.cell.append(d)
        if self.in_script:
            self.scripts[-1] += d


def parse(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8", errors="replace").read())
    return d


def png_ihdr(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
    return w, h, depth, ctype


def png_rgb(data):
    """Decode an 8-bit RGB/RGBA/indexed non-interlaced PNG: (w, h, rows of (r, g, b))."""
    w, h, depth, ctype = png_ihdr(data)
    pos, idat, pal = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(data[pos + 4:pos + 8 + n]) & 0xFFFFFFFF != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError("bad CRC in " + kind.decode())
        if kind == b"IDAT":
            idat += body
        if kind == b"PLTE":
            pal = [tuple(body[i:i + 3]) for i in range(0, n, 3)]
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = {2: 3, 6: 4, 3: 1}[ctype]
    stride, rows, prev = w * bpp, [], bytearray(w * bpp)
    assert depth == 8 and len(raw) == h * (stride + 1), "unexpected PNG layout"
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append([pal[v] if ctype == 3 else tuple(line[x * bpp:x * bpp + 3]) for x, v in
                     enumerate(line if ctype == 3 else range(w))])
    return w, h, rows


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            return list(csv.DictReader(f))
    except FileNotFoundError:
        return None


def dom(dump, rdir, n, paths, name, metrics=("latency", "bandwidth")):
    d = parse(dump)
    body = [a for t, a, _ in d.elems if t == "body"]
    check(name + ": the page's script ran to its end (body data-js=ok)", body and body[0].get("data-js") == "ok")
    # a file of the run itself, beside the page (summary.json), is the one link allowed: it
    # must exist there, and a plain name cannot leave the directory
    def beside(h):
        return re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", h) is not None and os.path.isfile(os.path.join(rdir, h))
    ext = [(t, a) for t, a, _ in d.elems if "src" in a or t in ("link", "iframe", "object", "embed") or
           ("href" in a and not (a["href"].startswith("#") or a["href"].startswith("data:image/png;base64,") or
                                 beside(a["href"])))]
    check(name + ": nothing external (no src, no link, hrefs only #…, data:image/png and the run's own files)",
          not ext, str(ext[:3]))
    handlers = [(t, k) for t, a, _ in d.elems for k in a if k.startswith("on")]
    check(name + ": no element has an event handler attribute", not handlers, str(handlers[:3]))
    check(name + ": no <img> element (host names cannot inject one)", not [1 for t, _, _ in d.elems if t == "img"])
    check(name + ": one inline script of its own, plus JSON name lists",
          sum(1 for t, a, _ in d.elems if t == "script" and a.get("type") != "application/json") == 1)
    # heat maps: one per path and metric, N x N cells or an N x N image
    maps = {}
    for t, a, _ in d.elems:
        if t == "svg" and "hm" in a.get("class", "").split():
            maps.setdefault((a.get("data-path"), a.get("data-metric")), []).append(a)
    for p in paths:
        for m in metrics:
            got = maps.get((p, m), [])
            check("%s: one %s heat map for path %s" % (name, m, p), len(got) == 1, "found %d" % len(got))
            if len(got) != 1:
                continue
            a = got[0]
            check("%s: %s %s map has data-n=%d" % (name, p, m, n), a.get("data-n") == str(n), a.get("data-n"))
            hid = a.get("id")
            if a.get("data-mode") == "cells":
                k = count_cells(d, hid)
                check("%s: %s %s map has %d x %d cells, each with a <title>" % (name, p, m, n, n), k == (n * n, n * n),
                      "%s rects/titles" % (k,))
            else:
                imgs = [x for t, x, _ in in_svg(d, hid) if t == "image"]
                ok = False
                why = "no image"
                for x in imgs:
                    png = base64.b64decode(x["href"].split(",", 1)[1])
                    w, h, _, _ = png_ihdr(png)
                    ww, hh, rows = png_rgb(png) if n <= 600 else (w, h, None)
                    ok, why = (w, h) == (n, n) and (ww, hh) == (n, n), "%dx%d" % (w, h)
                check("%s: %s %s map is one %d x %d PNG that decodes" % (name, p, m, n, n), ok, why)
    # suspects tables = each path's suspects_<path>.csv where run wrote one per path, else suspects.csv
    own = sorted(f for f in os.listdir(rdir) if f.startswith("suspects_") and f.endswith(".csv"))
    files = own or ["suspects.csv"]
    sus = [read_csv(rdir + "/" + f) for f in files]
    if all(x is not None for x in sus):
        want = sorted((r["kind"], r["hosts"]) for x in sus for r in x[:500])
        got = sorted((r[0], r[1]) for r in d.rows if len(r) > 1 and r[:2] != ["kind", "hosts"])
        check("%s: the suspects tables list %s's %d suspects" % (name, " ".join(files), len(want)), want == got,
              "tables %s vs files %s" % (got[:4], want[:4]))
    return d


def in_svg(d, hid):
    """The elements inside the <svg id=hid> (heat maps are not nested)."""
    inside = False
    for t, a, parents in d.elems:
        if t == "svg":
            inside = a.get("id") == hid
            continue
        if inside and any(p[0] == "svg" for p in parents):
            yield t, a, parents


def count_cells(d, hid):
    rects = titles = 0
    for t, a, parents in in_svg(d, hid):
        if t == "rect" and parents and parents[-1][1] == "cells":
            rects += 1
        if t == "title" and len(parents) >= 2 and parents[-1][0] == "rect" and parents[-2][1] == "cells":
            titles += 1
    return rects, titles


def lum(rgb):
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def pixels(shot, dump, rdir, name):
    w, h, rows = png_rgb(open(shot, "rb").read())
    colours = {rows[y][x] for y in range(0, h, 7) for x in range(0, w, 7)}
    check(name + ": the screenshot is not blank (%d colours sampled)" % len(colours), len(colours) > 20)
    d = parse(dump)
    lat = [a for t, a, _ in d.elems if t == "svg" and a.get("data-metric") == "latency"]
    topo = read_csv(rdir + "/topology.csv")
    if not lat or not topo or "data-box" not in lat[0]:
        check(name + ": latency map and topology.csv to sample", False, "missing")
        return
    x0, y0, bw, bh = [float(v) for v in lat[0]["data-box"].split(",")]
    n = int(lat[0]["data-n"])
    names = [r["host"] for r in topo]
    mat = {}
    with open(rdir + "/" + lat[0]["data-path"].replace(":", "_").replace("/", "_").join(["latency_", ".csv"])) as f:
        rd = csv.reader(f)
        head = next(rd)[1:]
        for row in rd:
            for j, v in enumerate(row[1:]):
                if v:
                    mat[(row[0], head[j])] = float(v)
    leaf = [r["tier0"] for r in topo]
    spine = [r.get("tier1", "") for r in topo]
    groups = {"inside a leaf": [], "same spine, other leaf": [], "across spines": []}
    edge = 2 if n > 64 else 0
    for i in range(n):
        for j in range(n):
            if i == j or (names[i], names[j]) not in mat:
                continue
            if edge and (i < 1 or j < 1 or leaf[i] != leaf[min(i + edge, n - 1)] or leaf[i] != leaf[max(i - edge, 0)]
                         or leaf[j] != leaf[min(j + edge, n - 1)] or leaf[j] != leaf[max(j - edge, 0)]):
                continue  # near a block edge: a pixel off would sample the neighbour
            key = "inside a leaf" if leaf[i] == leaf[j] else "same spine, other leaf" if spine[i] == spine[j] \
                else "across spines"
            px, py = int(x0 + (j + 0.5) * bw / n), int(y0 + (i + 0.5) * bh / n)
            if 0 <= px < w and 0 <= py < h:
                groups[key].append((lum(rows[py][px]), mat[(names[i], names[j])]))
    found = [(k, statistics.median(l for l, _ in v), statistics.median(m for _, m in v))
             for k, v in groups.items() if v]
    print("# %s: median luminance / latency: %s" % (name, "; ".join("%s %.0f / %.2f us" % f for f in found)))
    check(name + ": cells inside and outside leaf blocks sampled", len(found) >= 2 and found[0][0] == "inside a leaf")
    for a, b in zip(found, found[1:]):
        check("%s: %s (%.2f us) is lighter than %s (%.2f us) by > 20 levels" % (name, a[0], a[2], b[0], b[2]),
              a[2] < b[2] and a[1] > b[1] + 20, "luminance %.0f vs %.0f" % (a[1], b[1]))


def banner(rdir, name):
    v = json.load(open(os.path.join(rdir, "summary.json")))["verdict"]
    page = open(os.path.join(rdir, "report.html"), encoding="utf-8").read()
    m = re.search(r'<div class="banner (\w+)" id="verdict"><b>([A-Z ]+)</b>.*?<ul>(.*?)</ul></div>', page, re.S)
    check("%s: the banner is there" % name, m is not None)
    if not m:
        return
    items = [(x.startswith("<strong>"), html.unescape(re.sub("<[^>]+>", "", x)))
             for x in re.findall(r"<li>(.*?)</li>", m.group(3), re.S)]
    want = [(c["fails"], c["text"]) for c in v["clauses"]]
    check("%s: the banner says %s as summary.json does" % (name, v["result"]), m.group(2) == v["result"],
          "banner %s" % m.group(2))
    check("%s: the banner's lines are summary.json's %d clauses, in order, failing ones marked" % (name, len(want)),
          items == want, "banner %r, summary.json %r" % (items[:4], want[:4]))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "dom":
            dom(sys.argv[2], sys.argv[3], int(sys.argv[4]), [p for p in sys.argv[5].split(",") if p], sys.argv[6],
                sys.argv[7].split(",") if len(sys.argv) > 7 else ("latency", "bandwidth"))
        elif sys.argv[1] == "banner":
            banner(sys.argv[2], sys.argv[3])
        else:
            pixels(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    except Exception as e:  # a crash of the checker is a failed check, with its reason
        check("report_check %s %s" % (sys.argv[1], sys.argv[-1]), False, "%s: %s" % (type(e).__name__, e))
    sys.exit(1 if failed else 0)
