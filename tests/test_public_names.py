"""`import judgegrid`: every public name is there, and importing the package alone loads none of
the heavy libraries (the console script forks its reader before they load)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import judgegrid

SRC = Path(judgegrid.__file__).parents[1]


def test_import_judgegrid_loads_none_of_the_heavy_libraries_until_a_name_is_used():
    probe = (
        "import sys, judgegrid\n"
        "heavy = ['pandas', 'scipy', 'matplotlib', 'litellm', 'aiohttp']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "judgegrid.Sample\n"
        "print('pandas' in sys.modules, 'scipy' in sys.modules)\n"
        "judgegrid.run_grid\n"
        "print('judgegrid.api' in sys.modules, 'scipy' in sys.modules)\n"  # scipy: when used
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=SRC, check=True
    )
    assert done.stdout.split("\n")[:3] == ["[]", "False False", "True False"]


def test_every_public_name_resolves_and_is_listed():
    for name in judgegrid.__all__:
        assert getattr(judgegrid, name) is not None
    assert set(judgegrid.__all__) <= set(dir(judgegrid))
    with pytest.raises(AttributeError, match="no_such_name"):
        judgegrid.no_such_name  # noqa: B018
