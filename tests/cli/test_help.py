"""`--help` piped (`judgegrid run --help | cat`): every command's help keeps every word of every
option's text whole, where rich at its 80 columns cut long ones with "…"."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import typer
import typer.rich_utils

from judgegrid.cli import app, main


def commands(group: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every command of the CLI by its words (``labels import``), groups walked."""
    found: dict[str, Any] = {}
    for name, command in getattr(group, "commands", {}).items():
        if getattr(command, "commands", None):
            found |= commands(command, (*path, name))
        else:
            found[" ".join((*path, name))] = command
    return found


COMMANDS = commands(typer.main.get_command(app))


def test_every_command_is_walked():
    assert {"run", "export", "labels import", "labels export", "cache stats", "view"} <= set(
        COMMANDS
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_piped_help_keeps_every_word_of_every_option(name, monkeypatch, capsys):
    monkeypatch.setenv("TERMINAL_WIDTH", "")
    monkeypatch.delenv("TERMINAL_WIDTH")  # restored (absent) after the test
    monkeypatch.setattr(typer.rich_utils, "MAX_WIDTH", typer.rich_utils.MAX_WIDTH)
    monkeypatch.setattr(sys, "argv", ["judgegrid", *name.split(), "--help"])
    with pytest.raises(SystemExit) as exited:
        main()
    text = capsys.readouterr().out
    assert exited.value.code == 0, text
    assert "…" not in text
    for param in COMMANDS[name].params:
        for word in (getattr(param, "help", None) or "").split():
            assert word in text, (name, param.name, word)
