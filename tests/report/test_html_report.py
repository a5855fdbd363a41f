#!/usr/bin/env python3
"""Tests of the HTML report (--html in every mode, `microbench report`), run by CTest:

    test_html_report.py MICROBENCH_BINARY MICROBENCH_SERVER_BINARY OUTPUT_DIR

Runs the command line against the reference server on 127.0.0.1 — a fixed-rate run with
intervals, --compare, a two-URL --suite with the factorial check, --self-test — each writing
--json and --html, then `microbench report` on two of the saved JSON files. Checks that every
report is valid HTML (a strict html.parser pass), self-contained (nothing to fetch; http:// only
in the measured URLs, as text) and accessible (charts are role="img" with a title, a description
and axis labels); renders each in headless Chromium (a fresh profile, in a network namespace of
its own when `unshare -n` works), and in the browser's DOM checks that the tables and the charts'
markers say what the JSON says, that the page needs no horizontal scrolling at 390 and 1280 CSS
pixels, and takes screenshots at both widths into OUTPUT_DIR (named in the output).
"""
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import unittest

MICROBENCH = SERVER = OUT = None
PORT = None
SERVER_PROC = None
RUNS = {}  # name -> (html path, json path or None)
VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}
SVG_SELF_CLOSING = {"line", "path", "circle", "polyline", "rect"}


def run(args, timeout=120):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag=None, cls=None):
        for c in self.children:
            if isinstance(c, Node):
                if (tag is None or c.tag == tag) and (cls is None or cls in c.attrs.get("class", "").split()):
                    yield c
                yield from c.all(tag, cls)

    def first(self, tag=None, cls=None):
        return next(self.all(tag, cls), None)


class StrictParser(html.parser.HTMLParser):
    """Builds a tree; any mismatched or unclosed tag, duplicate id or bad declaration is an error."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.at = self.root
        self.ids = set()
        self.errors = []
        self.doctype = None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        ident = node.attrs.get("id")
        if ident is not None:
            if ident in self.ids:
                self.errors.append(f"duplicate id {ident}")
            self.ids.add(ident)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID and tag not in SVG_SELF_CLOSING:
            self.errors.append(f"<{tag}/> is not a void or SVG element")
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.at = self.at.parent

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"</{tag}> closes a void element")
        elif self.at.tag != tag:
            self.errors.append(f"</{tag}> closes <{self.at.tag}>")
        else:
            self.at = self.at.parent

    def handle_data(self, data):
        self.at.children.append(data)


def parse(text):
    p = StrictParser()
    p.feed(text)
    p.close()
    if p.at is not p.root:
        p.errors.append(f"<{p.at.tag}> never closed")
    return p


def ms(ns):
    return f"{ns / 1e6:.3f}"


def table(section, caption):
    """{row label: [cells]} and the column headings of the table captioned `caption`."""
    for t in section.all("table"):
        cap = t.first("caption")
        if cap is not None and cap.text().strip() == caption:
            head = [th.text() for th in t.first("thead").all("th")][1:]
            rows = {}
            for tr in t.first("tbody").all("tr"):
                rows[tr.first("th").text()] = [td.text() for td in tr.all("td")]
            return head, rows
    raise AssertionError(f"no table '{caption}'")


def chromium(args, timeout=90):
    profile = tempfile.mkdtemp(prefix="mb-chromium-")
    try:
        cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               "--allow-file-access-from-files", f"--user-data-dir={profile}"] + args
        if NETNS:
            cmd = ["unshare", "-n"] + cmd
        return run(cmd, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


# The report in an iframe of a given width (Chromium's headless window is at least 500 pixels wide).
FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0;overflow:hidden}
iframe{border:0;width:%dpx;height:%dpx}</style></head><body><iframe id="f" src="%s"></iframe>"""
# ... and the test's own script, which measures it there (the report itself has none).
MEASURE = FRAME + """<pre id="m"></pre>
<script>addEventListener('load', function () {
  var d = document.getElementById('f').contentDocument, w = d.documentElement.clientWidth, wide = [];
  d.querySelectorAll('body *').forEach(function (e) {  // boxes past the edge, text past its box
    var r = e.getBoundingClientRect(), html = e instanceof d.defaultView.HTMLElement;
    var spills = html && e.scrollWidth > e.clientWidth + 1 && d.defaultView.getComputedStyle(e).overflowX == 'visible';
    if ((r.width > 0 && r.right > w + 0.5) || spills) wide.push(e.tagName + ' ' + (e.textContent || '').slice(0, 40));
  });
  document.getElementById('m').textContent = JSON.stringify({client: w, scroll: d.documentElement.scrollWidth,
    wide: wide.slice(0, 5), charts: d.querySelectorAll('svg[role=img]').length});
});</script></body></html>"""


def browser_measure(html_path, width, height):
    """The report laid out in an iframe `width` CSS pixels wide: widths and charts, from the browser."""
    wrapper = os.path.join(OUT, f"measure-{width}.html")
    with open(wrapper, "w") as f:
        f.write(MEASURE % (width, height, os.path.basename(html_path)))
    r = chromium([f"--window-size={max(width, 500)},{height}", "--dump-dom", "file://" + wrapper])
    m = re.search(r'<pre id="m">([^<]*)</pre>', r.stdout)
    assert m and m.group(1), f"the browser measured nothing: {r.stderr[-2000:]}"
    return json.loads(html.unescape(m.group(1)))


def screenshot(html_path, width, height, name):
    """A PNG of the report at `width` CSS pixels (below Chromium's 500-pixel window, in an iframe)."""
    target = "file://" + html_path
    if width < 500:
        wrapper = os.path.join(OUT, f"frame-{name}.html")
        with open(wrapper, "w") as f:
            f.write(FRAME % (width, height, os.path.basename(html_path)) + "</body></html>")
        target = "file://" + wrapper
    png = os.path.join(OUT, f"{name}.png")
    if os.path.exists(png):
        os.remove(png)
    r = chromium([f"--window-size={width},{height}", f"--screenshot={png}", target])
    assert os.path.exists(png), f"no screenshot: {r.stderr[-2000:]}"
    print(f"screenshot: {png} ({width}x{height})")
    return png


def setUpModule():
    global SERVER_PROC, PORT
    SERVER_PROC = subprocess.Popen([SERVER, "-p", "0", "-t", "1", "-d", "600"], stdout=subprocess.PIPE, text=True)
    PORT = int(re.search(r"port (\d+)", SERVER_PROC.stdout.readline()).group(1))
    base = f"http://127.0.0.1:{PORT}"
    jobs = {
        "single": ["-q", "-k", "-c", "4", "--rate", "1000", "--duration", "2s", "--interval", "250ms", f"{base}/delay?us=300"],
        "compare": ["-q", "-n", "1500", "-c", "4", "-k", "--rounds", "1", "--compare", f"{base}/factorial/100", f"{base}/delay?us=200"],
        "suite": ["-q", "--suite", f"{base}/factorial/20", f"{base}/factorial?n=20", "--scale", "0.02", "--check", "factorial"],
        "selftest": ["--self-test", "--scale", "0.01"],
    }
    for name, args in jobs.items():
        h, j = os.path.join(OUT, f"{name}.html"), os.path.join(OUT, f"{name}.json")
        extra = ["--html", h] + (["--json", j] if name != "selftest" else [])
        r = run([MICROBENCH] + args + extra)
        assert r.returncode == 0, f"{name}: {r.returncode} {r.stderr}"
        RUNS[name] = (h, j if name != "selftest" else None)
    h = os.path.join(OUT, "report.html")
    r = run([MICROBENCH, "report", RUNS["single"][1], RUNS["compare"][1], "--html", h, "--title", "two files"])
    assert r.returncode == 0, r.stderr
    RUNS["report"] = (h, None)


def tearDownModule():
    SERVER_PROC.send_signal(signal.SIGTERM)
    SERVER_PROC.wait(timeout=10)


def load(name):
    with open(RUNS[name][0], encoding="utf-8") as f:
        return f.read()


def load_json(name):
    with open(RUNS[name][1], encoding="utf-8") as f:
        return json.load(f)


def browser_dom(name):
    """The report as Chromium parsed it (--dump-dom), as a tree."""
    r = chromium(["--dump-dom", "file://" + RUNS[name][0]])
    p = parse(r.stdout)
    assert p.root.first("main") is not None, f"no <main> in the browser's DOM: {r.stderr[-2000:]}"
    return p.root


class Document(unittest.TestCase):
    def test_valid_html(self):
        for name in RUNS:
            p = parse(load(name))
            self.assertEqual(p.errors, [], name)
            self.assertEqual(p.doctype, "DOCTYPE html", name)
            self.assertEqual(p.root.first("html").attrs.get("lang"), "en")
            self.assertTrue(p.root.first("title").text(), name)
            viewport = [m.attrs.get("content", "") for m in p.root.all("meta") if m.attrs.get("name") == "viewport"]
            self.assertEqual(viewport, ["width=device-width, initial-scale=1"], name)

    def test_self_contained(self):
        urls = {f"http://127.0.0.1:{PORT}{path}" for path in
                ("/delay?us=300", "/factorial/100", "/delay?us=200", "/factorial/20", "/factorial?n=20")}
        for name in RUNS:
            text = load(name)
            for banned in ("<script", "<link", "<img", "<iframe", "@import", "url(", "<object", "<embed"):
                self.assertNotIn(banned, text, name)
            p = parse(text)
            for node in p.root.all():
                for key, value in node.attrs.items():
                    self.assertNotIn(key, ("src", "href", "xlink:href", "action"), name)
                    self.assertNotRegex(value or "", r"https?://", f"{name}: attribute {key}")
            # Outside attributes, http:// appears only as the measured URLs (the self-test's are its own server's).
            for m in re.finditer(r"https?://[^\s<\"']*", text):
                if name == "selftest":
                    self.assertRegex(m.group(0), r"^http://127\.0\.0\.1:\d+/factorial(/100|\?n=100)$")
                else:
                    self.assertIn(m.group(0).replace("&amp;", "&"), urls, name)

    def test_charts_accessible(self):
        for name in RUNS:
            p = parse(load(name))
            charts = list(p.root.all("svg"))
            self.assertGreater(len(charts), 0, name)
            for svg in charts:
                self.assertEqual(svg.attrs.get("role"), "img")
                ids = svg.attrs["aria-labelledby"].split()
                self.assertEqual([svg.first("title").attrs["id"], svg.first("desc").attrs["id"]], ids)
                self.assertTrue(svg.first("title").text() and svg.first("desc").text())
                labels = [t.text() for t in svg.all("text", "label")]
                self.assertEqual(len(labels), 2, svg.attrs["id"])  # the x and the y axis
                self.assertIn(labels[1], ("milliseconds", "requests per second"))
                fig = svg.parent
                self.assertEqual(fig.tag, "figure")
                self.assertTrue(fig.first("figcaption").text())
                self.assertIsNotNone(fig.first("details").first("table"), "each chart has its data as a table")


def check_run_tables(test, section, column, doc):
    """The section's tables, in `column`, say what the JSON document `doc` says."""
    head, summary = table(section, "Summary (as ab reports it)")
    k = head.index(column)
    req = doc["requests"]
    test.assertEqual(summary["Complete requests"][k], str(req["ended"]))
    test.assertEqual(summary["Failed requests"][k], str(req["failed"]))
    test.assertEqual(summary["Non-2xx responses"][k], str(req["non_2xx"]))
    test.assertEqual(summary["Requests per second"][k], f"{doc['requests_per_second']:.2f}")
    test.assertEqual(summary["Total transferred (bytes)"][k], str(doc["bytes"]["received"]))
    test.assertEqual(summary["Document length (bytes)"][k], str(doc["bytes"]["document_length"]))
    test.assertEqual(summary["Time taken (s)"][k], f"{doc['elapsed_s']:.3f}")
    head, total = table(section, "Total time (ms)")
    t = doc["latency_ns"]["total"]
    for p, v in t["percentiles"].items():
        test.assertEqual(total["p" + p][head.index(column)], ms(v), f"p{p}")
    test.assertEqual(total["min"][head.index(column)], ms(t["min"]))
    test.assertEqual(total["max"][head.index(column)], ms(t["max"]))
    head, failures = table(section, "Failures by reason")
    for reason, count in doc["failures"].items():
        test.assertEqual(failures[reason][head.index(column)], str(count))
    head, codes = table(section, "Status codes")
    for code, count in doc["status_codes"].items():
        test.assertEqual(codes[code][head.index(column)], str(count))
    head, config = table(section, "Configuration")
    test.assertEqual(config["URL"][head.index(column)], doc["config"]["url"])
    test.assertEqual(config["connections (-c)"][head.index(column)], str(doc["config"]["concurrency"]))


def y_of(svg, value):
    """The y coordinate the chart's axis gives `value` (from its two lowest tick labels)."""
    ticks = sorted((float(t.attrs["y"]) - 4, t.text()) for t in svg.all("text", "y"))
    (y0, v0), (y1, v1) = ticks[-1], ticks[-2]  # the bottom tick (0) and the next one up
    num = lambda s: float(s[:-1]) * (1e3 if s.endswith("k") else 1e6) if s[-1] in "kM" else float(s)
    return y0 + (value - num(v0)) * (y1 - y0) / (num(v1) - num(v0))


def chart(section, ident):
    """The <svg> of the section's chart `ident` (s1-total, s1-rate, ...)."""
    return next(s for s in section.all("svg") if s.attrs["id"] == ident)


def check_markers(test, svg, label, histogram_json):
    """Each marker of run `label`: its title gives the JSON's percentile, and it sits where the axis says."""
    seen = 0
    for c in svg.all("circle", "marker"):
        m = re.fullmatch(rf"{re.escape(label)} p([\d.]+): ([\d.]+) ms", c.first("title").text())
        if not m:
            continue
        test.assertEqual(m.group(2), ms(histogram_json["percentiles"][m.group(1)]))
        test.assertAlmostEqual(float(c.attrs["cy"]), y_of(svg, float(m.group(2))), delta=0.6)
        seen += 1
    test.assertGreaterEqual(seen, 3, f"{label}: markers at p50, p90, p99 at least")


class Numbers(unittest.TestCase):
    def test_single_run(self):
        dom, doc = browser_dom("single"), load_json("single")
        section = dom.first("section")
        label = "/delay?us=300"
        check_run_tables(self, section, label, doc)
        check_markers(self, chart(section, "s1-total"), label, doc["latency_ns"]["total"])
        check_markers(self, chart(section, "s1-response"), label, doc["open_model"]["response_ns"])
        # Throughput over time: a row per interval, the JSON's rate; the target at the fixed rate.
        rate = chart(section, "s1-rate").parent
        rows = [[td.text() for td in tr.all("td")] for tr in rate.first("tbody").all("tr")]
        self.assertEqual(len(rows), len(doc["intervals"]))
        for row, iv in zip(rows, doc["intervals"]):
            self.assertEqual(row[0], f"{(iv['start_ns'] + iv['duration_ns']) / 1e9:.3f}")
            self.assertEqual(row[1], f"{iv['ended'] * 1e9 / iv['duration_ns']:.2f}")
            self.assertEqual(row[2], f"{iv['target_requests'] * 1e9 / iv['duration_ns']:.2f}")
        latency = chart(section, "s1-latency").parent
        rows = [[td.text() for td in tr.all("td")] for tr in latency.first("tbody").all("tr")]
        self.assertEqual([r[1] for r in rows], [ms(iv["response_ns"]["p99"]) for iv in doc["intervals"]])
        self.assertEqual([r[2] for r in rows], [ms(iv["response_ns"]["p50"]) for iv in doc["intervals"]])
        head, open_model = table(section, "Open model")
        self.assertEqual(open_model["target (requests/s)"][0], f"{doc['open_model']['rate']:.3f}")

    def test_compare_overlays_a_and_b(self):
        dom, doc = browser_dom("compare"), load_json("compare")
        section = dom.first("section")
        for side in ("a", "b"):
            check_run_tables(self, section, side.upper(), doc[side])
        for svg in section.all("svg"):
            legend = [t.text() for g in svg.all("g", "legend") for t in g.all("text")]
            self.assertEqual(legend, ["A", "B"], svg.attrs["id"])
            self.assertEqual(len(list(svg.all("polyline"))), 2)
            self.assertEqual({p.attrs["stroke"] for p in svg.all("polyline")}, {"#0072b2", "#d55e00"})
        check_markers(self, chart(section, "s1-total"), "A", doc["a"]["latency_ns"]["total"])
        check_markers(self, chart(section, "s1-total"), "B", doc["b"]["latency_ns"]["total"])
        key = [li.text() for li in dom.first("ul", "key").all("li")]
        self.assertEqual(key, [f"A GET {doc['a']['config']['url']}", f"B GET {doc['b']['config']['url']}"])

    def test_suite_has_a_section_per_scenario(self):
        dom, doc = browser_dom("suite"), load_json("suite")
        sections = list(dom.all("section"))
        names = [s.first("h2").text() for s in sections]
        self.assertEqual(names, ["basic load", "latency", "failure rate", "keep-alive", "stress"])
        for item in doc:
            section = sections[names.index(item["scenario"])]
            column = "A" if item["result"]["config"]["url"].endswith("/factorial/20") else "B"
            check_run_tables(self, section, column, item["result"])
            head, checks = table(section, "Checks")
            self.assertEqual(checks["checked for"][head.index(column)], "body is 20! (19 digits)")
            self.assertEqual(checks["correct"][head.index(column)], str(item["result"]["requests"]["completed"]))
            self.assertEqual(checks["wrong"][head.index(column)], str(item["result"]["failures"]["check"]))

    def test_self_test_draws_both_url_forms(self):
        dom = browser_dom("selftest")
        sections = list(dom.all("section"))
        self.assertEqual(len(sections), 5)
        for s in sections:
            head, checks = table(s, "Checks")
            self.assertEqual(head, ["/factorial/100", "/factorial?n=100"])
            self.assertEqual(checks["wrong"], ["0", "0"])
            self.assertEqual(checks["checked for"], ["body is 100! (158 digits)"] * 2)

    def test_report_draws_every_file(self):
        dom = browser_dom("report")
        self.assertEqual(dom.first("title").text(), "two files")
        key = [li.first("b").text() for li in dom.first("ul", "key").all("li")]
        self.assertEqual(key, ["single", "compare A", "compare B"])
        section = dom.first("section")
        check_run_tables(self, section, "single", load_json("single"))
        check_run_tables(self, section, "compare A", load_json("compare")["a"])
        check_run_tables(self, section, "compare B", load_json("compare")["b"])
        legend = [t.text() for g in chart(section, "s1-total").all("g", "legend") for t in g.all("text")]
        self.assertEqual(legend, ["single", "compare A", "compare B"])

    def test_report_from_json_equals_report_of_the_run(self):
        """`report` on one run's JSON draws exactly what that run's --html drew (but for the date),
        its title included without --title."""
        for name, title in (("compare", "microbench: A vs B"), ("suite", "microbench suite: A vs B"),
                            ("single", f"microbench: GET http://127.0.0.1:{PORT}/delay?us=300")):
            h = os.path.join(OUT, f"{name}-again.html")
            r = run([MICROBENCH, "report", RUNS[name][1], "--html", h])
            self.assertEqual(r.returncode, 0, r.stderr)
            strip = lambda s: re.sub(r" · generated [^·<]*", "", s)
            with open(h, encoding="utf-8") as f:
                again = f.read()
            self.assertIn(" · generated ", again)
            self.assertEqual(strip(again), strip(load(name)), name)
            self.assertIn(f"<title>{html.escape(title)}</title>", again)

    def test_report_refuses_bad_input(self):
        bad = os.path.join(OUT, "bad.json")
        for content, message in (("{\"a\": 1,}", "not valid JSON"), ("{\"x\": 1}", "not a microbench result"),
                                 ("{\"microbench\": \"0.1.0\"}", "missing or has the wrong type")):
            with open(bad, "w") as f:
                f.write(content)
            r = run([MICROBENCH, "report", bad, "--html", os.path.join(OUT, "no.html")])
            self.assertEqual(r.returncode, 1, content)
            self.assertIn(message, r.stderr)
        r = run([MICROBENCH, "report", os.path.join(OUT, "missing.json"), "--html", os.path.join(OUT, "no.html")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)
        r = run([MICROBENCH, "report", RUNS["single"][1]])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--html FILE is needed", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(OUT, "no.html")))


class Browser(unittest.TestCase):
    def test_no_horizontal_scrolling_and_screenshots(self):
        for name in RUNS:
            charts = len(list(parse(load(name)).root.all("svg")))
            for width in (390, 1280):
                m = browser_measure(RUNS[name][0], width, 900)
                self.assertGreaterEqual(m["client"], width - 20, name)  # less a vertical scroll bar
                self.assertLessEqual(m["scroll"], m["client"], f"{name} at {width}px: {m['wide']}")
                self.assertEqual(m["wide"], [], f"{name} at {width}px")
                self.assertEqual(m["charts"], charts, name)
        for name in ("compare", "suite"):
            for width, height in ((390, 2400), (1280, 1800)):
                png = screenshot(RUNS[name][0], width, height, f"{name}-{width}")
                self.assertEqual(png_size(png), (width, height))
                self.assertGreater(os.path.getsize(png), 20_000, "a blank page compresses to far less")


if __name__ == "__main__":
    MICROBENCH, SERVER, OUT = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    os.makedirs(OUT, exist_ok=True)
    if shutil.which("chromium") is None:
        sys.exit("test_html_report.py: chromium is needed (apt-get install chromium)")
    NETNS = subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    print("chromium runs " + ("in a network namespace of its own (no network)" if NETNS else "with the host's network: unshare -n failed"))
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
