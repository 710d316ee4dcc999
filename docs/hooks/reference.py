"""MkDocs hook: the pages' generated parts, made at build time so they cannot drift.

A page asks for one by a marker line:

- ``<!-- generated: matrix-reference -->``: every field of the matrix's pydantic models
  (``judgegrid.inputs.matrix.Matrix`` and the models it holds) with its type, default,
  description and an example read from ``docs/examples/every-field.yaml``;
- ``<!-- generated: cli-reference -->``: every command of the Typer app with its arguments and
  options, from the click command Typer builds.

``tests/docs/`` imports this module too (it checks that no field lacks a description).
"""

from __future__ import annotations

import inspect
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "every-field.yaml"
# the checkout's own code is documented, whichever judgegrid the environment has installed
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))
MARKER = "<!-- generated: {} -->"


# -- the matrix reference ------------------------------------------------------------------------


def kebab(name: str) -> str:
    """A field as the examples write it (the matrix takes snake_case too)."""
    return name.replace("_", "-")


def models_of(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models inside a field's type (list[JudgeSpec] holds JudgeSpec)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in models_of(arg)]


def sections(root: type[BaseModel]) -> dict[type[BaseModel], list[str]]:
    """Every model reachable from the root (in the order first reached) with every path where
    it is used: ModelOptions is at defaults.judge, judges[].options, …"""
    found: dict[type[BaseModel], list[str]] = {}

    def walk(model: type[BaseModel], at: str) -> None:
        first = model not in found
        found.setdefault(model, []).append(at)
        if not first:
            return
        for name, field in model.model_fields.items():
            many = "list[" in str(field.annotation)
            for inner in models_of(field.annotation):
                walk(inner, f"{at}.{kebab(name)}{'[]' if many else ''}".lstrip("."))

    walk(root, "")
    return found


def type_name(annotation: Any) -> str:
    """A field's type in a reader's words: `int ≥ 1`, `list of JudgeSpec`, `"auto" | "native"`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin is typing.Annotated:
        base = DURATION if is_duration(args[1:]) else type_name(args[0])
        return base + "".join(bound(m) for m in args[1:])
    if origin is Literal:
        return " | ".join(f'"{a}"' if isinstance(a, str) else str(a).lower() for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is list:
        return f"list of {type_name(args[0])}"
    if origin is dict:
        return "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    return getattr(annotation, "__name__", str(annotation))


def bound(meta: Any) -> str:
    """A constraint of annotated metadata (Ge, Le, …) as text; others (validators) as nothing."""
    if isinstance(meta, FieldInfo):
        return "".join(bound(m) for m in meta.metadata)
    for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
        if hasattr(meta, attr) and type(meta).__name__.lower() == attr:
            return f" {sign} {getattr(meta, attr)}"
    return ""


DURATION = "duration (2s, 2000ms, 1m or seconds)"


def is_duration(metadata: Any) -> bool:
    """Whether a type's metadata reads a duration (core.options.Duration: '2s', '2000ms')."""
    return any(
        getattr(getattr(m, "func", None), "__name__", "") == "parse_duration" for m in metadata
    )


def field_type(field: FieldInfo) -> str:
    base = DURATION if is_duration(field.metadata) else type_name(field.annotation)
    text = base + "".join(bound(m) for m in field.metadata)
    return text.replace("|", "\\|")


def default_of(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return f"`{yaml_inline(field.default_factory())}`"  # type: ignore[call-arg]
    if field.default is PydanticUndefined:
        return "required"
    if isinstance(field.default, BaseModel):
        return "its fields' defaults"
    return f"`{yaml_inline(field.default)}`"


def yaml_inline(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6)
    return text.strip().removesuffix("...").strip().replace("|", "\\|")


def example_at(data: Any, path: list[str]) -> Any:
    """The value at a path (kebab keys, `[]` meaning 'the first item that has it')."""
    if not path:
        return data
    head, rest = path[0], path[1:]
    if head.endswith("[]"):
        items = data.get(head[:-2]) if isinstance(data, dict) else None
        for item in items or []:
            found = example_at(item, rest)
            if found is not MISSING:
                return found
        return MISSING
    if isinstance(data, dict) and head in data:
        return example_at(data[head], rest)
    return MISSING


MISSING = object()


def example_of(data: Any, paths: list[str], name: str) -> Any:
    """The field's value in the example file, at the first of the model's paths that has one."""
    for at in paths:
        value = example_at(data, f"{at}.{kebab(name)}".lstrip(".").split("."))
        if value is not MISSING:
            return value
    return MISSING


def example_text(data: Any, paths: list[str], name: str, field: FieldInfo) -> str:
    inner = models_of(field.annotation)
    if inner:
        return f"see [below](#{inner[0].__name__.lower()})"
    value = example_of(data, paths, name)
    return "–" if value is MISSING else f"`{yaml_inline(value)}`"


def undescribed_fields() -> list[str]:
    """Every matrix field (path) that has no description: the docs test wants none."""
    return [
        f"{model.__name__}.{name} (at {paths[0] or 'the top'})"
        for model, paths in sections(_matrix_model()).items()
        for name, field in model.model_fields.items()
        if not (field.description or "").strip()
    ]


def unexampled_fields() -> list[str]:
    """Every matrix field that the example file does not show."""
    data = _example()
    return [
        f"{model.__name__}.{name} (at {paths[0] or 'the top'})"
        for model, paths in sections(_matrix_model()).items()
        for name in model.model_fields
        if example_of(data, paths, name) is MISSING
    ]


def _matrix_model() -> type[BaseModel]:
    from judgegrid.inputs.matrix import Matrix

    return Matrix


def _example() -> Any:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


def matrix_reference() -> str:
    """The reference as Markdown: one table per model, then each metric's parameters."""
    data = _example()
    parts = []
    for model, paths in sections(_matrix_model()).items():
        title = "The matrix (top level)" if paths == [""] else f"`{paths[0]}`"
        where = ", ".join(f"`{p}`" for p in paths[1:])
        doc = " ".join((model.__doc__ or "").split()) if model.__doc__ else ""
        rows = [
            "| field | type | default | example | what it is |",
            "|---|---|---|---|---|",
        ]
        for name, field in model.model_fields.items():
            description = " ".join((field.description or "").split()).replace("|", "\\|")
            rows.append(
                f"| `{kebab(name)}` | {field_type(field)} | {default_of(field)} | "
                f"{example_text(data, paths, name, field)} | {description} |"
            )
        head = f"### {title} {{#{model.__name__.lower()}}}"
        also = f" Also at {where}." if where else ""
        parts.append(f"{head}\n\n`{model.__name__}`.{also} {doc}\n\n" + "\n".join(rows))
    parts.append(metric_parameters())
    return "\n\n".join(parts) + "\n"


def metric_parameters() -> str:
    """Each metric's own parameters, written beside its name under metrics:."""
    from judgegrid.metrics import METRICS

    rows = ["| metric | parameter | type | default | what it is |", "|---|---|---|---|---|"]
    for metric_name, metric in METRICS.items():
        fields = metric.Params.model_fields
        if not fields:
            rows.append(f"| `{metric_name}` | – | | | no parameters |")
        for name, field in fields.items():
            description = (field.description or "").replace("|", "\\|")
            rows.append(
                f"| `{metric_name}` | `{kebab(name)}` | {field_type(field)} | "
                f"{default_of(field)} | {description} |"
            )
    return "### Metric parameters {#metric-parameters}\n\n" + "\n".join(rows)


# -- the CLI reference ---------------------------------------------------------------------------


def cli_reference() -> str:
    """Every command of the app with its arguments and options: what ``typer
    judgegrid.cli.command utils docs`` prints, its headings moved under the page's."""
    import typer
    from typer.cli import get_docs_for_click

    from judgegrid.cli.command import app

    command = typer.main.get_command(app)
    whole_summaries(command)
    with typer.Context(command) as ctx:
        docs = get_docs_for_click(obj=command, ctx=ctx, name="judgegrid", title="judgegrid")
    return "\n".join("##" + line if line.startswith("#") else line for line in docs.splitlines())


def whole_summaries(group: Any) -> None:
    """Each command's summary (the first paragraph of its help) as its short help, so a group's
    list of commands says it whole: click cuts it at 45 characters. The command objects are
    this page's own (Typer makes them anew on each call)."""
    for command in getattr(group, "commands", {}).values():
        paragraph = inspect.cleandoc(command.help or "").split("\n\n")[0]
        command.short_help = " ".join(paragraph.split())
        whole_summaries(command)


# -- the hook ------------------------------------------------------------------------------------

GENERATORS = {"matrix-reference": matrix_reference, "cli-reference": cli_reference}


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace each generator's marker line by what it makes."""
    for name, make in GENERATORS.items():
        marker = MARKER.format(name)
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
