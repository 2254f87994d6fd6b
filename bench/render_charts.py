"""Render the decision memo's Mermaid charts as a reader sees them, in headless Chromium, and check them (issue 34).

For each shipped example (English and Chinese) the memo is made in process, its ```mermaid blocks are put on one small
HTML page with the npm package ``mermaid`` (its dist/mermaid.min.js), and Chromium renders the page twice: once to a PNG
screenshot kept under bench/artifacts/charts/ (look at them), once to dump the DOM, where a script on the page has
measured each chart: the x-axis labels' boxes (do any two overlap?), the y-axis top against the data's largest value,
and the stroke colour of each series. The run fails (exit 1) on overlapping labels, a y-axis more than 1.5x the data,
or a series drawn in Mermaid's pale default colour.

Not part of the pytest run: it needs Chromium (Debian: ``apt-get install -y chromium``) and Node's npm. The package is
installed on first use into bench/.mermaid (ignored by git), at the pinned version below.

    PYTHONPATH=src python bench/render_charts.py            # every example, both languages
    PYTHONPATH=src python bench/render_charts.py gpu-choice  # one example
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
OUT = ROOT / "bench" / "artifacts" / "charts"
NODE_DIR = ROOT / "bench" / ".mermaid"
MERMAID_VERSION = "11.12.2"
MERMAID_JS = NODE_DIR / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync", "--hide-scrollbars", "--virtual-time-budget=8000"]
MAX_AXIS_OVER_DATA = 1.5
"""The y-axis may run this far past the largest value (a round top), no further: 2x made every line look half-height."""

MEASURE = """
<script>
function measure() {
  const out = [];
  document.querySelectorAll('div.chart').forEach((div) => {
    const svg = div.querySelector('svg');
    if (!svg) { out.push({id: div.id, error: (div.textContent || '').slice(0, 200)}); return; }
    const boxes = [...svg.querySelectorAll('g.bottom-axis g.label text')].map((t) => {
      const b = t.getBoundingClientRect(); return {text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom};
    });
    let overlaps = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps.push([a.text, b.text]);
    }
    const strokes = [...svg.querySelectorAll('g.plot path')].map((p) => getComputedStyle(p).stroke || p.getAttribute('stroke'));
    const yLabels = [...svg.querySelectorAll('g.left-axis g.label text')].map((t) => t.textContent);
    out.push({id: div.id, labels: boxes.map((b) => b.text), overlaps, strokes, yLabels});
  });
  document.getElementById('result').textContent = JSON.stringify(out);
}
</script>
"""


def ensure_mermaid() -> Path:
    """mermaid.min.js, installed with npm at the pinned version into bench/.mermaid on first use."""
    if not MERMAID_JS.exists():
        if shutil.which("npm") is None:
            sys.exit("render_charts: npm not found (Debian: apt-get install -y npm)")
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund", f"mermaid@{MERMAID_VERSION}"], check=True)
    return MERMAID_JS


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("render_charts: chromium not found (Debian: apt-get install -y chromium)")


def memo_charts(example: Path, lang: str) -> list[str]:
    """The Mermaid sources of one example's memo, in one language."""
    from advisor.base.i18n import language
    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import load_rules
    from advisor.outputs.render import to_markdown

    with language(lang):
        memo = to_markdown(advise(load_answers(example), load_rules()).report())
    return re.findall(r"```mermaid\n(.*?)```", memo, re.S)


def page(charts: list[tuple[str, str]], script: Path) -> str:
    divs = "\n".join(f'<h3>{html.escape(name)}</h3><div class="chart" id="c{i}"><pre class="mermaid">{html.escape(src)}</pre></div>'
                     for i, (name, src) in enumerate(charts))
    return f"""<!doctype html><html><head><meta charset="utf-8">
<style>body {{ font-family: sans-serif; background: #fff; margin: 16px; width: 960px; }} h3 {{ font-size: 14px; margin: 8px 0 0; }}</style>
<script src="file://{script}"></script>{MEASURE}</head><body>
{divs}
<pre id="result"></pre>
<script>mermaid.initialize({{startOnLoad: false}}); mermaid.run().then(measure, (e) => {{ document.getElementById('result').textContent = 'ERROR ' + e; }});</script>
</body></html>"""


def axis_top(src: str) -> tuple[float, float]:
    """(the y-axis top, the largest value of any series) as the Mermaid source states them."""
    top = float(re.search(r"y-axis .*?--> ([0-9.]+)", src).group(1))
    values = [float(v) for line in re.findall(r"(?:line|bar) \[([^\]]*)\]", src) for v in line.split(",")]
    return top, max(values)


def main(argv: list[str]) -> int:
    script, browser = ensure_mermaid(), chromium()
    OUT.mkdir(parents=True, exist_ok=True)
    wanted = [EXAMPLES / f"{n}.yaml" for n in argv] or sorted(EXAMPLES.glob("*.yaml"))
    problems: list[str] = []
    report = []
    for example in wanted:
        for lang in ("en", "zh"):
            charts = [(f"{example.stem} ({lang}) chart {i + 1}", src) for i, src in enumerate(memo_charts(example, lang))]
            if not charts:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                doc = Path(tmp) / "charts.html"
                doc.write_text(page(charts, script), encoding="utf-8")
                png = OUT / f"{example.stem}.{lang}.png"
                height = 60 + 560 * len(charts)
                subprocess.run([browser, *CHROMIUM_FLAGS, f"--window-size=1000,{height}", f"--screenshot={png}", doc.as_uri()],
                               check=True, capture_output=True, timeout=120)
                dom = subprocess.run([browser, *CHROMIUM_FLAGS, "--dump-dom", doc.as_uri()], check=True, capture_output=True,
                                     text=True, timeout=120).stdout
            found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
            measured = json.loads(html.unescape(found.group(1))) if found and found.group(1).startswith("[") else None
            if measured is None:
                problems.append(f"{example.stem} ({lang}): the page did not render: {found.group(1)[:200] if found else 'no result'}")
                continue
            for (name, src), m in zip(charts, measured, strict=True):
                top, most = axis_top(src)
                entry = {"chart": name, "labels": m.get("labels"), "overlaps": m.get("overlaps"), "strokes": m.get("strokes"),
                         "y_top": top, "data_max": most, "y_top_over_data": round(top / most, 2) if most else None}
                report.append(entry)
                if m.get("error") is not None:
                    problems.append(f"{name}: Mermaid refused it: {m['error']}")
                    continue
                if m["overlaps"]:
                    problems.append(f"{name}: x labels overlap: {m['overlaps'][:3]}")
                if most and top / most > MAX_AXIS_OVER_DATA:
                    problems.append(f"{name}: the y-axis runs to {top:g}, {top / most:.1f}x the largest value {most:g}")
                pale = [s for s in m["strokes"] if s in ("rgb(255, 244, 221)", "rgb(236, 236, 255)", "#ECECFF", "#FFF4DD")]
                if pale:
                    problems.append(f"{name}: a series in Mermaid's pale default colour {pale}")
    (OUT / "measured.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for p in problems:
        print("PROBLEM", p)
    print(f"{len(report)} charts rendered into {OUT.relative_to(ROOT)}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
