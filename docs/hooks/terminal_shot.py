"""A command's output as a terminal of a given width shows it, drawn into a PNG.

The docs show the decision card as `judgegrid report RUN` prints it; a picture of it must be the
real output, at a stated width, and must be made again when the card changes. So:

- ``terminal_output(args, columns)`` runs a command in a pseudo-terminal ``columns`` wide
  (``COLUMNS`` set too), as a person's terminal runs it: the card in colour, fitted to the
  width;
- ``render_terminal_png(output, columns, path)`` draws that output on a character grid
  ``columns`` wide (its colours and bold kept), the terminal's edge drawn, so the picture shows
  whether every line fits;
- ``report_card_png(run_dir, columns, path)`` does both for `judgegrid report RUN_DIR`.

Run it as a script::

    python docs/hooks/terminal_shot.py RUN_DIR --columns 80 --out card-80.png

The command runs in the current directory with this checkout's code (``src/``), so the card's
footer names RUN_DIR as given.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROOT = Path(__file__).resolve().parents[2]
# the checkout's own judgegrid, whichever the environment has installed
JUDGEGRID = (sys.executable, "-c", "from judgegrid.entry import main; main()")
SGR = re.compile(r"\x1b\[([0-9;]*)m")  # a colour or weight; every other escape is dropped
OTHER_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-ln-z]")
COLOURS = {  # a dark terminal's palette
    "fg": "#d0d0d0",
    "bg": "#1e1e1e",
    "edge": "#5f87af",
    "30": "#000000",
    "31": "#e06c75",
    "32": "#98c379",
    "33": "#e5c07b",
    "34": "#61afef",
    "35": "#c678dd",
    "36": "#56b6c2",
    "37": "#d0d0d0",
}
FONT = "DejaVu Sans Mono"  # matplotlib ships it: every box-drawing and punctuation glyph used
FONT_SIZE = 10.0  # points
LINE_HEIGHT = 1.25  # in ems
DPI = 150


@dataclass(frozen=True)
class Run:
    """A piece of a line in one look: its text, colour, bold or dim."""

    text: str
    colour: str
    bold: bool
    dim: bool


def terminal_output(
    args: Sequence[str], columns: int, cwd: Path | None = None, rows: int = 200
) -> str:
    """What ``args`` prints on a terminal ``columns`` wide (stdout and stderr, as a person
    sees them), escapes and all; line ends as ``\\n``."""
    env = os.environ | {
        "COLUMNS": str(columns),
        "LINES": str(rows),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT / "src"),
        "HF_HUB_OFFLINE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("NO_COLOR", None)
    main, child = pty.openpty()
    ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(args, stdout=child, stderr=child, cwd=cwd, env=env)
    os.close(child)
    output = _read_all(main)
    process.wait()
    return output.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _read_all(fd: int) -> bytes:
    """Everything a pseudo-terminal's other end wrote, until it closed."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child's end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def styled_lines(output: str) -> list[list[Run]]:
    """Each line of a terminal's output as its runs of one look (SGR colours, bold, dim)."""
    look = {"colour": COLOURS["fg"], "bold": False, "dim": False}
    lines = []
    for line in OTHER_ESCAPE.sub("", output).rstrip("\n").split("\n"):
        runs = []
        for k, part in enumerate(SGR.split(line)):
            if k % 2:
                look = _apply(look, part)
            elif part:
                runs.append(Run(part, str(look["colour"]), bool(look["bold"]), bool(look["dim"])))
        lines.append(runs)
    return lines


def _apply(look: dict[str, object], codes: str) -> dict[str, object]:
    """The look after an SGR sequence's codes (0 resets; 1 bold, 2 dim, 3x a colour)."""
    look = dict(look)
    for code in (codes or "0").split(";"):
        if code in ("0", ""):
            look = {"colour": COLOURS["fg"], "bold": False, "dim": False}
        elif code == "1":
            look["bold"] = True
        elif code == "2":
            look["dim"] = True
        elif code in ("22",):
            look["bold"] = look["dim"] = False
        elif code in COLOURS:
            look["colour"] = COLOURS[code]
        elif code == "39":
            look["colour"] = COLOURS["fg"]
    return look


def render_terminal_png(output: str, columns: int, path: Path, title: str = "") -> Path:
    """``output`` drawn on a grid ``columns`` characters wide, in a frame whose right edge is
    the terminal's: a line wider than the terminal would cross it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Rectangle

    lines = styled_lines(output)
    fig = plt.figure(dpi=DPI, facecolor=COLOURS["bg"])
    char_w = _advance(fig)  # inches, as the renderer draws it (hinting rounds it to pixels)
    line_h = LINE_HEIGHT * FONT_SIZE / 72
    pad = 2 * char_w
    heading = line_h * 1.6 if title else 0.0
    width = columns * char_w + 2 * pad
    height = len(lines) * line_h + 2 * pad + heading
    fig.set_size_inches(width, height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    frame = Rectangle(
        (pad, pad + heading),
        columns * char_w,
        len(lines) * line_h,
        fill=False,
        edgecolor=COLOURS["edge"],
        linewidth=0.8,
    )
    ax.add_patch(frame)
    font = {"family": FONT, "fontsize": FONT_SIZE, "va": "center", "ha": "left"}
    if title:
        ax.text(pad, pad + line_h * 0.5, title, color=COLOURS["edge"], **font)
    for row, runs in enumerate(lines):
        column, y = 0, pad + heading + (row + 0.5) * line_h
        for run in runs:
            weight = "bold" if run.bold else "normal"
            alpha = 0.6 if run.dim else 1.0
            x = pad + column * char_w
            ax.text(x, y, run.text, color=run.colour, fontweight=weight, alpha=alpha, **font)
            column += len(run.text)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, facecolor=COLOURS["bg"])
    plt.close(fig)
    return path


def _advance(fig: Figure) -> float:
    """One character's width in inches, measured on a long run of them."""
    sample = fig.text(0, 0, "M" * 100, family=FONT, fontsize=FONT_SIZE)
    extent = sample.get_window_extent(fig.canvas.get_renderer())
    sample.remove()
    return float(extent.width) / 100 / DPI


def report_card_png(run_dir: Path | str, columns: int, path: Path, cwd: Path | None = None) -> Path:
    """`judgegrid report RUN_DIR` on a terminal ``columns`` wide, drawn into ``path``."""
    output = terminal_output([*JUDGEGRID, "report", str(run_dir)], columns, cwd)
    return render_terminal_png(
        output, columns, path, f"judgegrid report {run_dir}  ({columns} columns)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="a run directory (judgegrid report's argument)")
    parser.add_argument("--columns", type=int, default=80, help="the terminal's width")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    print(report_card_png(args.run_dir, args.columns, args.out))


if __name__ == "__main__":
    main()
