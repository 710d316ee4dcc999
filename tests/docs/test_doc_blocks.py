"""Every Python block and every judgegrid command of the docs (docs/*.md, README.md) is run or
at least parsed; a block that is not run says why (doc_blocks.py has the rules)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from doc_blocks import CALL_NOTHING, ROOT, Block, all_blocks, scripted_source
from typer.testing import CliRunner

from judgegrid.cli.command import app
from judgegrid.inputs.matrix import inspect_matrix

BLOCKS = all_blocks()
KNOWN_LANGUAGES = {"python", "bash", "console", "yaml", "text", "synopsis", ""}
DUMMY_KEYS = {"OPENAI_API_KEY": "sk-docs-test-not-a-key", "OPENROUTER_API_KEY": "sk-or-not-a-key"}


def of(language: str, *more: str) -> list[Block]:
    return [b for b in BLOCKS if b.language in (language, *more)]


def ids(blocks: list[Block]) -> list[str]:
    return [b.where for b in blocks]


def test_the_docs_have_blocks_of_each_kind():
    # guards the collection itself: a broken fence parser would make every test below vacuous
    assert len(of("python")) >= 6 and len(of("bash")) >= 8 and len(of("console")) >= 3
    assert sum(len(b.commands()) for b in BLOCKS) >= 20


def test_every_block_has_a_known_language():
    unknown = [f"{b.where}: {b.language}" for b in BLOCKS if b.language not in KNOWN_LANGUAGES]
    assert unknown == []


def test_no_command_hides_in_an_unchecked_block():
    """A `$ judgegrid` line belongs in a console block, where it is checked."""
    hidden = [
        b.where
        for b in of("text", "")
        if any(line.lstrip().startswith("$ judgegrid") for line in b.text.splitlines())
    ]
    assert hidden == []


# -- Python ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("block", of("python"), ids=ids(of("python")))
def test_python_block(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    code = compile(block.text, block.where, "exec")  # a SyntaxError fails every block
    if block.not_run_because:
        return  # compiled; the block's first line says why it is not run
    monkeypatch.chdir(tmp_path)  # a run directory it makes lands here
    for name, value in DUMMY_KEYS.items():
        monkeypatch.setenv(name, value)
    code = compile(scripted_source(block), block.where, "exec")
    exec(code, {"__name__": "__docs__"})


# -- judgegrid commands ----------------------------------------------------------------------------


def parse(args: list[str]) -> None:
    """Parse a command line against the app as click would (subcommands, options, the number of
    arguments), without converting values: a path in the docs need not exist here."""
    command = typer.main.get_command(app)
    rest, name = list(args), "judgegrid"
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        sub = command.commands.get(rest[0])
        assert sub is not None, f"judgegrid has no command {name} {rest[0]!r}"
        name, command, rest = f"{name} {rest[0]}", sub, rest[1:]
    ctx = command.context_class(command, info_name=name)
    _, extra, _ = command.make_parser(ctx).parse_args(rest)  # what the arguments did not take
    assert not extra or command.allow_extra_args, f"{name}: arguments too many: {extra}"


@pytest.mark.parametrize(
    "args", [["run", "--no-such-option"], ["no-such-command"], ["report", "RUN_DIR", "extra"]]
)
def test_parse_refuses_what_the_app_refuses(args: list[str]):
    with pytest.raises(Exception):  # noqa: B017 (click's usage errors and the asserts of parse)
        parse(args)


SHELL = of("bash", "console")


@pytest.mark.parametrize("block", SHELL, ids=ids(SHELL))
def test_commands_parse(block: Block):
    for args in block.commands():
        try:
            parse(args)
        except Exception as exc:  # click's usage errors, and the asserts above
            pytest.fail(f"{block.where}: judgegrid {' '.join(args)}: {exc}")


RUN_CONSOLE = [b for b in of("console") if not b.not_run_because]


@pytest.mark.parametrize("block", RUN_CONSOLE, ids=ids(RUN_CONSOLE))
def test_console_block_runs(block: Block, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ROOT)
    for name, value in DUMMY_KEYS.items():
        monkeypatch.setenv(name, value)
    for args in block.commands():
        assert args[0] in CALL_NOTHING, (
            f"{block.where}: `judgegrid {args[0]}` is not run by this test: say why on the "
            "block's first line (# not run: …)"
        )
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, f"{block.where}: judgegrid {' '.join(args)}\n{result.output}"


RUN_BASH = [b for b in of("bash") if not b.not_run_because and b.commands()]


def run_bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A docs script run by bash in cwd, with this interpreter's judgegrid first on PATH, the
    checkout's src importable, and no provider key in the environment."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("block", RUN_BASH, ids=ids(RUN_BASH))
def test_bash_block_runs_in_an_empty_directory(block: Block, tmp_path: Path):
    done = run_bash(block.text, tmp_path)
    assert done.returncode == 0, f"{block.where}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr


# -- YAML ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("block", of("yaml"), ids=ids(of("yaml")))
def test_yaml_block(block: Block):
    text = block.text  # an included file as the block (doc_blocks.expand_snippets)
    data = yaml.safe_load(text)
    assert isinstance(data, dict), f"{block.where}: not a mapping"
    if "judges" in data and ("metrics" in data or "criteria" in data):
        _, problems = inspect_matrix(text, block.where)
        assert problems == [], f"{block.where}: {problems}"


# -- synopses --------------------------------------------------------------------------------------

CODE_WIDTH = 80  # characters a code block of the site shows before it scrolls (1280 px window)


@pytest.mark.parametrize("block", of("synopsis"), ids=ids(of("synopsis")))
def test_a_synopsis_fits_the_pages_code_block(block: Block):
    """A hand-written synopsis is read at a glance: a comment past the block's edge is cut."""
    wide = [line for line in block.text.splitlines() if len(line) > CODE_WIDTH]
    assert wide == []
