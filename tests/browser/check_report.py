#!/usr/bin/env python3
"""Checks a loom HTML report in a real browser (Debian's headless chromium).

    check_report.py REPORT.html --expect layer-point=54 --expect latency-bar=54 [--screenshot shot.png]

1. chromium --headless --dump-dom loads the page (with --enable-logging=stderr --v=0, so
   console messages such as SVG attribute errors and failed loads show up) and prints the DOM
   it built; the DOM is parsed and the elements carrying each expected class are counted.
   Any console message, failed load, <script> element or external URL fails the check.
2. The same load takes a screenshot (--screenshot, --window-size, default 1280,4000; a second
   load when the chromium at hand writes none alongside --dump-dom); the PNG is decoded with
   zlib and struct and must be a valid image that is not blank (enough non-white pixels and
   distinct colours).

Standard library only. Exit 0: all checks passed; 1: a check failed; 2: bad arguments or
no chromium (bash scripts/install-deps installs it). docs/reports.md has the details.
"""
import argparse
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


class CheckFailed(Exception):
    pass


# --------------------------------------------------------------------------------------------
# The DOM.

class DomCounter(html.parser.HTMLParser):
    """Counts elements per class token, <svg> and <script> elements, and external URLs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.classes = {}
        self.tags = {}
        self.external = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if value is None:
                continue
            if name == "class":
                for token in value.split():
                    self.classes[token] = self.classes.get(token, 0) + 1
            elif name in ("src", "href", "xlink:href", "action", "poster", "data") or (
                name == "style" and "url(" in value
            ):
                if re.search(r"(?i)(https?:|ftp:|//)", value):
                    self.external.append(f"<{tag} {name}=\"{value}\">")

    handle_startendtag = handle_starttag


def chromium_command(chromium, profile, extra, url):
    return [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--mute-audio",
        f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
    ] + extra + [url]


# Console messages and load failures in chromium's log; its other lines (D-Bus, GPU probing,
# crash reporter) come from the sandbox-less container, not from the page.
PAGE_PROBLEMS = re.compile(r"CONSOLE[:(]|Uncaught|net::ERR_|Failed to load|Refused to|Not allowed to load")


def run_chromium(cmd, timeout):
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"chromium did not finish within {timeout} s: {' '.join(cmd)}")
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    problems = [line.strip() for line in stderr.splitlines() if PAGE_PROBLEMS.search(line)]
    if done.returncode != 0:
        tail = "\n".join(stderr.splitlines()[-15:])
        raise CheckFailed(f"chromium exited with status {done.returncode}:\n{tail}")
    return stdout, problems


def check_dom(dom, expected):
    if "</html>" not in dom.lower():
        raise CheckFailed(f"chromium's DOM dump is not a whole page ({len(dom)} characters)")
    counter = DomCounter()
    counter.feed(dom)
    counter.close()
    failures = []
    for cls, want in expected:
        got = counter.classes.get(cls, 0)
        print(f"  class {cls}: {got} (expected {want})")
        if got != want:
            failures.append(f"class {cls}: {got} elements, expected {want}")
    svgs = counter.tags.get("svg", 0)
    print(f"  <svg> elements: {svgs}")
    if counter.tags.get("script", 0):
        failures.append(f"{counter.tags['script']} <script> element(s): reports must not run code")
    for e in counter.external:
        failures.append(f"external reference {e}: reports must be self-contained")
    if failures:
        raise CheckFailed("DOM check failed:\n  " + "\n  ".join(failures))


# --------------------------------------------------------------------------------------------
# The screenshot: a PNG decoder (8-bit grey, grey+alpha, RGB, RGBA; not interlaced).

def _unfilter_rows(raw, width, height, bpp):
    """Yields each scanline (bytes) after undoing the PNG filters. None, Sub and Up (what most
    encoders pick for flat images) are done on whole rows as big integers, 8-bit lanes with
    the carries masked off; Average and Paeth byte by byte."""
    stride = width * bpp
    high = int.from_bytes(b"\x80" * stride, "little")
    low = high ^ ((1 << (8 * stride)) - 1)
    full = (1 << (8 * stride)) - 1

    def add(a, b):  # byte-wise a + b mod 256
        return ((a & low) + (b & low)) ^ ((a ^ b) & high)

    prev = bytes(stride)
    prev_int = 0
    pos = 0
    for _ in range(height):
        ftype = raw[pos]
        line = raw[pos + 1:pos + 1 + stride]
        pos += 1 + stride
        if ftype == 0:
            cur = line
            cur_int = None
        elif ftype == 2:
            cur_int = add(int.from_bytes(line, "little"), prev_int)
            cur = None
        elif ftype == 1:
            x = int.from_bytes(line, "little")
            shift = bpp
            while shift < stride:  # prefix sums along the row, lane stride bpp
                x = add(x, (x << (8 * shift)) & full)
                shift *= 2
            cur_int = x
            cur = None
        elif ftype == 3:
            out = bytearray(line)
            for i in range(stride):
                left = out[i - bpp] if i >= bpp else 0
                out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
            cur, cur_int = bytes(out), None
        elif ftype == 4:
            out = bytearray(line)
            for i in range(min(bpp, stride)):  # no left neighbour: the predictor is the byte above
                out[i] = (out[i] + prev[i]) & 0xFF
            for i in range(bpp, stride):
                a, b, c = out[i - bpp], prev[i], prev[i - bpp]
                if b == c:  # flat above (the common case): the predictor is the left byte
                    out[i] = (out[i] + a) & 0xFF
                    continue
                pa, pb = b - c, a - c
                pc = pa + pb
                pa, pb, pc = (pa if pa >= 0 else -pa), (pb if pb >= 0 else -pb), (pc if pc >= 0 else -pc)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                out[i] = (out[i] + pred) & 0xFF
            cur, cur_int = bytes(out), None
        else:
            raise CheckFailed(f"PNG: unknown filter type {ftype}")
        if cur is None:
            cur = cur_int.to_bytes(stride, "little")
        else:
            cur_int = int.from_bytes(cur, "little")
        prev, prev_int = cur, cur_int
        yield cur


def png_stats(path):
    """(width, height, non-white pixels, distinct colours) of a PNG file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckFailed(f"{path}: not a PNG file (bad signature)")
    pos, header, idat, ended = 8, None, [], False
    while pos + 12 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise CheckFailed(f"{path}: PNG chunk {ctype!r} has a bad CRC")
        if ctype == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            ended = True
            break
        pos += 12 + length
    if header is None or not idat or not ended:
        raise CheckFailed(f"{path}: PNG lacks IHDR, IDAT or IEND")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise CheckFailed(f"{path}: unsupported PNG (depth {depth}, colour type {colour_type}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != height * (1 + width * channels):
        raise CheckFailed(f"{path}: PNG data is {len(raw)} bytes, expected {height * (1 + width * channels)}")
    # byte -> 1 when darker than near-white
    dark = bytes(0 if v >= 240 else 1 for v in range(256))
    non_white = 0
    colours = set()
    white_row = None
    for row in _unfilter_rows(raw, width, height, channels):
        if channels >= 3:
            r, g, b = row[0::channels], row[1::channels], row[2::channels]
        else:
            r = g = b = row[0::channels]
        if white_row is None:
            white_row = b"\xff" * len(r)
        if r == white_row and g == white_row and b == white_row:
            colours.add((255, 255, 255))
            continue
        mask = (int.from_bytes(r.translate(dark), "little") | int.from_bytes(g.translate(dark), "little")
                | int.from_bytes(b.translate(dark), "little"))
        non_white += bin(mask).count("1")
        if len(colours) < 4096:
            colours.update(zip(r, g, b))
    return width, height, non_white, len(colours)


def check_screenshot(path, min_fraction, min_colours):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        raise CheckFailed(f"chromium wrote no screenshot at {path}")
    width, height, non_white, colours = png_stats(path)
    fraction = non_white / float(width * height)
    print(f"  screenshot {path}: {width}x{height}, {100 * fraction:.2f}% non-white pixels, "
          f"{colours}{'+' if colours >= 4096 else ''} distinct colours")
    if fraction < min_fraction or colours < min_colours:
        raise CheckFailed(f"the screenshot looks blank: {100 * fraction:.3f}% non-white pixels (need "
                          f"{100 * min_fraction:.2f}%), {colours} distinct colours (need {min_colours})")


# --------------------------------------------------------------------------------------------

def parse_expect(text):
    m = re.fullmatch(r"([A-Za-z_][\w-]*)=(\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected CLASS=COUNT, got {text!r}")
    return m.group(1), int(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="the HTML file")
    ap.add_argument("--expect", type=parse_expect, action="append", default=[], metavar="CLASS=N",
                    help="exactly N elements carry class CLASS (repeatable)")
    ap.add_argument("--screenshot", metavar="PNG", help="where to keep the screenshot (default: a temporary file)")
    ap.add_argument("--window-size", default="1280,4000", help="screenshot size W,H (default 1280,4000)")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"), help="browser binary (default chromium)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per chromium run (default 60)")
    ap.add_argument("--min-non-white", type=float, default=0.005,
                    help="least fraction of non-white pixels in the screenshot (default 0.005)")
    ap.add_argument("--min-colours", type=int, default=16, help="least distinct colours in the screenshot (default 16)")
    ap.add_argument("--no-screenshot", action="store_true", help="only check the DOM")
    args = ap.parse_args()

    if not os.path.isfile(args.report):
        print(f"check_report: no such file: {args.report}", file=sys.stderr)
        return 2
    chromium = shutil.which(args.chromium)
    if chromium is None:
        print(f"check_report: '{args.chromium}' not found; bash scripts/install-deps installs Debian's chromium",
              file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(args.report)
    with tempfile.TemporaryDirectory(prefix="loom-check-report-") as tmp:
        profile = os.path.join(tmp, "profile")
        try:
            print(f"check_report: {args.report}")
            shot = None
            extra = ["--dump-dom"]
            if not args.no_screenshot:
                # One load does both: chromium dumps the DOM and writes the screenshot.
                shot = os.path.abspath(args.screenshot) if args.screenshot else os.path.join(tmp, "screenshot.png")
                if os.path.exists(shot):
                    os.remove(shot)
                extra += [f"--screenshot={shot}", f"--window-size={args.window_size}", "--hide-scrollbars"]
            dom, problems = run_chromium(chromium_command(chromium, profile, extra, url), args.timeout)
            if problems:
                raise CheckFailed("the page logged problems while loading:\n  " + "\n  ".join(problems))
            check_dom(dom, args.expect)
            if shot is not None:
                if not os.path.exists(shot):  # a chromium that does one thing per run: a second load
                    _, problems = run_chromium(chromium_command(chromium, profile, extra[1:], url), args.timeout)
                    if problems:
                        raise CheckFailed("the page logged problems while rendering:\n  " + "\n  ".join(problems))
                check_screenshot(shot, args.min_non_white, args.min_colours)
        except CheckFailed as e:
            print(f"check_report: FAILED: {e}", file=sys.stderr)
            return 1
    print("check_report: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
