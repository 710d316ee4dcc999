"""A package's names imported when first read (PEP 562): ``import judgegrid`` loads none of
pandas, scipy or matplotlib, ``api`` leaves the loopback pages and the card until a command asks,
and the face of ``analyses`` costs nothing until a name is used."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name of ``homes`` is imported from
    its home (``"module"``, or ``"module:attribute"`` under another name) the first time it is
    read, then kept in the package's namespace; any other name is an AttributeError."""

    def get(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = homes[name].partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[package], name, value)  # imported once
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return get, names
