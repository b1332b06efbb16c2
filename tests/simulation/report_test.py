#!/usr/bin/env python3
"""simulate --report: the HTML page, opened by headless Chromium (Debian's
chromium package). The DOM must hold every chart with data points, the page
must load nothing from the network, and a screenshot must not be blank.
Skipped (exit 77) with a message when chromium is missing or cannot start.

usage: report_test.py SCORIA WORKDIR"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

here = os.path.dirname(os.path.abspath(__file__))
scoria, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
a, b = os.path.join(here, "ab", "binpack.toml"), os.path.join(here, "ab", "spread.toml")
cluster = os.path.join(here, "ab", "cluster.yaml")


def report(path, *configs):
    args = [scoria, "simulate", "--now", "2024-05-01T00:00:00Z", "--report", path]
    for c in configs:
        args += ["--config", c]
    run = subprocess.run(args + [cluster], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def headless(browser, *args):
    # A fresh profile each time; no sandbox, as in a container running as root.
    profile = os.path.join(work, "profile")
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", "--no-first-run",
                           "--user-data-dir=" + profile, *args],
                          capture_output=True, text=True, timeout=180)


def png_pixels(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG into rows of bytes."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, upleft = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - upleft
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upleft)) & 255
        rows.append(bytes(line))
        prev = line
    return rows, bpp


single = os.path.join(work, "single.html")
ab = os.path.join(work, "ab.html")
report(single, a)
report(ab, a, b)
for page in (single, ab):
    html = open(page, encoding="utf-8").read()
    assert "<script" not in html.lower(), "the report must not run a script"
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), \
        "the report must not load anything from the network"
    assert "@import" not in html and "url(" not in html, "the report must be self-contained"

browser = chromium()
if browser is None:
    print("SKIP: chromium is not installed (scripts/install-deps.sh installs Debian's)")
    sys.exit(77)
probe = headless(browser, "--dump-dom", "about:blank")
if probe.returncode != 0:
    print("SKIP: chromium cannot start here:\n" + probe.stderr[-2000:])
    sys.exit(77)

for page, runs in ((single, 1), (ab, 2)):
    dom = headless(browser, "--dump-dom", "file://" + page)
    assert dom.returncode == 0, dom.stderr[-2000:]
    charts = dict(re.findall(r'<svg class="chart[^"]*" data-chart="([^"]+)"(.*?)</svg>',
                             dom.stdout, re.S))
    for chart in ("utilisation", "share-default", "wait-cdf", "occupancy"):
        assert chart in charts, f"{page}: no {chart} chart; charts: {sorted(charts)}"
    for chart in ("utilisation", "share-default", "wait-cdf"):
        points = [int(n) for n in re.findall(r'data-points="(\d+)"', charts[chart])]
        assert len(points) >= runs and all(n > 1 for n in points), (chart, points)
        assert "time (" in charts[chart] or "wait (" in charts[chart], f"{chart}: unlabelled axis"
    cells = re.findall(r'<rect class="cell"', dom.stdout)
    assert len(cells) >= 4 * runs, f"{page}: occupancy heat map has {len(cells)} cells"
    if runs == 2:
        assert "A is drawn solid, B dashed" in dom.stdout
        assert re.search(r"<td>p95 wait \(s\) \(lower is better\)</td><td>0.0</td><td>990.0</td>"
                         r'<td class="win">A</td>', dom.stdout), "summary table lacks the p95 row"

    shot = os.path.join(work, os.path.basename(page) + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    run = headless(browser, "--screenshot=" + shot, "--window-size=1000,1600",
                   "--hide-scrollbars", "file://" + page)
    assert run.returncode == 0 and os.path.exists(shot), run.stderr[-2000:]
    rows, bpp = png_pixels(shot)
    colours = set()
    for row in rows[::4]:
        for x in range(0, len(row), bpp * 4):
            colours.add(row[x:x + 3])
    dark = sum(1 for row in rows[::4] for x in range(0, len(row), bpp * 4) if sum(row[x:x + 3]) < 200)
    assert len(colours) > 20 and dark > 100, \
        f"{shot}: the screenshot looks blank ({len(colours)} colours, {dark} dark pixels)"
print("ok")
