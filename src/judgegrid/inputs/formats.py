"""Naming schemes of RAG samples: which one a data set uses, and where each field goes.

People arrive with samples named the Ragas way (v2: ``user_input``, ``response``,
``retrieved_contexts``, ``reference``, ``reference_contexts``; v1: ``question``, ``answer``,
``contexts``, ``ground_truth``), the DeepEval way (``input``, ``actual_output``,
``retrieval_context``, ``expected_output``, ``context``, or the camelCase aliases of its API), or
their own way, named with a column map. The scheme is read off the field names of the whole data
set, never row by row, so a file that mixes two schemes is refused with the choices named rather
than half read.

The trap this module exists for: DeepEval's ``context`` is the *ideal* context (Ragas'
``reference_contexts``); what the retriever returned is its ``retrieval_context``.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.names import did_you_mean, repeats, unknown_name
from judgegrid.core.sample import FieldMapping

TARGETS = (
    "id",
    "user_input",
    "response",
    "retrieved_contexts",
    "reference",
    "reference_contexts",
    "labels",
    "contrast",
    "language",
)
LIST_TARGETS = ("retrieved_contexts", "reference_contexts")
JSON_TARGETS = ("labels", "contrast")  # an object; in a table cell, as JSON text
# judgegrid's own fields, read in any scheme
OWN_FIELDS = {f: f for f in ("id", "labels", "contrast", "language")}
COLUMNS = "--columns"
DELIMITER_OPTION = "--list-delimiter"
# pandas writes its index as a nameless first column unless told not to.
PANDAS_INDEX = re.compile(r"^Unnamed: \d+$")
# DeepEval writes a retrieved context that has a source as this marker (deepeval.dataset.utils).
DEEPEVAL_SOURCE_MARKER = re.compile(r"^deepeval_source=.*?,deepeval_context=(?P<context>.*)$", re.S)
# A delimiter that is also punctuation: followed by a space, it has cut a sentence apart.
PROSE_MARKS = (",", ";", ".", ":")


@dataclass(frozen=True)
class Scheme:
    """One tool's field names: what each becomes, which it has that judgegrid leaves out, and
    how it joins a list into one text cell."""

    name: str
    fields: Mapping[str, str]
    ignored: frozenset[str]
    delimiter: str | None


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


RAGAS_V2 = {t: t for t in ("user_input", "response", "retrieved_contexts", "reference")}
RAGAS_V2["reference_contexts"] = "reference_contexts"
RAGAS_V1 = {
    "question": "user_input",
    "answer": "response",
    "contexts": "retrieved_contexts",
    "ground_truth": "reference",
}
RAGAS = Scheme(
    "Ragas",
    {**RAGAS_V2, **RAGAS_V1},
    _words(
        "retrieved_context_ids reference_context_ids multi_responses rubrics persona_name "
        "query_style query_length synthesizer_name"
    ),
    None,
)
DEEPEVAL = Scheme(
    "DeepEval",
    {
        "input": "user_input",
        "actual_output": "response",
        "actualOutput": "response",
        "retrieval_context": "retrieved_contexts",
        "retrievalContext": "retrieved_contexts",
        "expected_output": "reference",
        "expectedOutput": "reference",
        "context": "reference_contexts",  # the ideal context, not the retrieved one
    },
    # What deepeval 4.3 writes besides (save_as, model_dump by alias), in both spellings.
    _words(
        "name comments source_file sourceFile tools_called toolsCalled expected_tools "
        "expectedTools token_cost tokenCost completion_time completionTime input_token_count "
        "output_token_count additional_metadata additionalMetadata metadata "
        "custom_column_key_values customColumnKeyValues expectations flaky multimodal tags "
        "images_mapping imagesMapping mcp_servers mcp_tools_called mcpToolsCalled "
        "mcp_resources_called mcpResourcesCalled mcp_prompts_called mcpPromptsCalled"
    ),
    "|",  # deepeval.dataset.utils.DELIMITER: its CSV and JSONL files join lists on it
)
SCHEMES = (RAGAS, DEEPEVAL)
MULTI_TURN_FIELDS = ("turns", "scenario")  # DeepEval's ConversationalGolden


# -- the column map ------------------------------------------------------------------------------


def parse_columns(text: str | None) -> dict[str, str]:
    """``user_input=question,response=answer`` as {Sample field: the data set's column}; None
    (not given) is no map, an empty or blank text a mistake."""
    if text is None:
        return {}
    if not text.strip():
        raise OptionError(COLUMNS, [Problem("", "empty; expected FIELD=COLUMN,…")])
    columns: dict[str, str] = {}
    problems = []
    for item in text.split(","):
        target, sep, column = (part.strip() for part in item.partition("="))
        if not sep or not target or not column:
            problems.append(
                Problem(item.strip(), "expected FIELD=COLUMN, e.g. user_input=question")
            )
        elif target in columns:
            problems.append(Problem(target, "given twice"))
        else:
            columns[target] = column
    if problems:
        raise OptionError(COLUMNS, problems)
    return columns


def _check_columns(
    columns: Mapping[str, str], seen: Mapping[str, str], source: str, blank: Sequence[str] = ()
) -> None:
    """Every target a Sample field, every column one of the data set's (``seen``: those with a
    value; ``blank``: those without any), none used twice: the same words whatever the source."""
    problems = []
    targets = list(columns)
    known = list(dict.fromkeys([*seen, *blank]))
    for target, column in columns.items():
        where = f"{target}={column}"
        if target not in TARGETS:
            problems.append(Problem(where, unknown_name("sample field", target, TARGETS)))
        if column in blank:
            message = f"column '{column}' has no value in any sample of {source}; fill it in"
            problems.append(Problem(where, message + f" or leave out {where}"))
        elif column not in seen:
            problems.append(Problem(where, unknown_name("column", column, known, f"in {source}")))
    mapped = list(columns.values())
    for later, first in repeats(mapped):
        message = (
            f"column '{mapped[later]}' is mapped to two fields, {targets[first]} and "
            f"{targets[later]}; map it once"
        )
        problems.append(Problem(f"{targets[later]}={mapped[later]}", message))
    if problems:
        raise OptionError(COLUMNS, problems)


# -- detecting the scheme ------------------------------------------------------------------------


def plan_fields(
    seen: Mapping[str, str],
    source: str,
    columns: Mapping[str, str] | None = None,
    delimiter: str | None = None,
    extra: Sequence[str] = (),
    blank: Sequence[str] = (),
) -> FieldMapping:
    """How to read a data set whose fields are ``seen`` ({field: where it first appears}) and
    ``blank`` (present, with no value anywhere).

    The column map comes first; the other fields are read by the one scheme they belong to.
    Without a map an unknown field is an error (it is usually a typo); with one it is left out,
    as a tracing tool's export has many columns no metric reads. A column named in ``extra``
    (a criterion's field that is no sample field) is kept as it is, in ``Sample.extra``."""
    columns = dict(columns or {})
    _check_columns(columns, seen, source, blank)
    if delimiter == "":
        raise OptionError(DELIMITER_OPTION, [Problem("", "empty; name the text between items")])
    kept = tuple(f for f in seen if f in extra and f not in columns.values())
    rest = [f for f in seen if f not in columns.values() and f not in kept]
    scheme = _detect(rest, seen, source, mapped=bool(columns))
    fields = [(column, target) for target, column in columns.items()]
    ignored: list[str] = []
    problems = []
    for field in rest:
        target = OWN_FIELDS.get(field) or (scheme.fields.get(field) if scheme else None)
        if target in columns:
            message = f"also given by {COLUMNS} {target}={columns[target]}; drop one"
            problems.append(Problem(f"{seen[field]}, field {field}", message))
        elif target:
            fields.append((field, target))
        elif columns or PANDAS_INDEX.match(field) or (scheme and field in scheme.ignored):
            ignored.append(field)
        else:
            problems.append(_unknown_field(field, seen[field], scheme))
    problems += _trap(scheme, rest, columns, seen)
    if problems:
        raise DatasetError(source, problems)
    return FieldMapping(
        scheme=_scheme_title(scheme, rest, bool(columns)),
        fields=tuple(fields),
        ignored=tuple(ignored),
        delimiter=delimiter if delimiter is not None else (scheme.delimiter if scheme else None),
        delimiter_given=delimiter is not None,
        extra=kept,
    )


def _detect(fields: list[str], seen: Mapping[str, str], source: str, mapped: bool) -> Scheme | None:
    """The one scheme the fields belong to (None if no field is known); two is an error. A
    conversation is refused, unless a column map says which fields to read."""
    by_scheme = {s.name: [f for f in fields if f in s.fields] for s in SCHEMES}
    present = [s for s in SCHEMES if by_scheme[s.name]]
    multi_turn = [] if mapped else [f for f in fields if f in MULTI_TURN_FIELDS]
    if multi_turn:
        where = f"{seen[multi_turn[0]]}, field {multi_turn[0]}"
        message = "a multi-turn conversation (DeepEval ConversationalGolden); judgegrid scores "
        raise DatasetError(source, [Problem(where, message + "single-turn RAG samples")])
    if len(present) < 2:
        return present[0] if present else None
    first, second = sorted(present, key=lambda s: list(seen).index(by_scheme[s.name][0]))
    field = by_scheme[second.name][0]
    names = ", ".join(by_scheme[first.name][:3])
    message = (
        f"a {second.name} name in a data set of {first.name} names ({names}, first at "
        f"{seen[by_scheme[first.name][0]]}); use one scheme's names, or map the fields with "
        f"{COLUMNS} (e.g. {COLUMNS} user_input=input,response=actual_output)"
    )
    raise DatasetError(source, [Problem(f"{seen[field]}, field {field}", message)])


def _unknown_field(field: str, where: str, scheme: Scheme | None) -> Problem:
    known = [*OWN_FIELDS, *(scheme.fields if scheme else (f for s in SCHEMES for f in s.fields))]
    hint = did_you_mean(field, known)
    if scheme is None:
        expected = (
            "expected Ragas names (user_input, response, retrieved_contexts, reference) or "
            "DeepEval names (input, actual_output, retrieval_context, expected_output)"
        )
    else:
        expected = f"read as {scheme.name} names: {', '.join(_primary_names(scheme))}"
    return Problem(
        f"{where}, field {field}",
        f"unknown field; {hint}{expected}; or map it: {COLUMNS} FIELD={field}",
    )


def _primary_names(scheme: Scheme) -> list[str]:
    """The scheme's own names, without the aliases (camelCase, Ragas v1)."""
    names = [f for f in scheme.fields if f not in RAGAS_V1 and not re.search(r"[A-Z]", f)]
    return [*names, *OWN_FIELDS]


def _trap(
    scheme: Scheme | None, fields: list[str], columns: Mapping[str, str], seen: Mapping[str, str]
) -> list[Problem]:
    """A DeepEval ``context`` without a ``retrieval_context``: say which of the two it is."""
    retrieved = [f for f in fields if (scheme and scheme.fields.get(f)) == "retrieved_contexts"]
    if scheme is not DEEPEVAL or "context" not in fields or retrieved or LIST_TARGETS[0] in columns:
        return []
    return [
        Problem(
            f"{seen['context']}, field context",
            "DeepEval's context is the ideal context, not what the retriever returned, and no "
            "sample has retrieval_context; say which it is: "
            f"{COLUMNS} retrieved_contexts=context (what was retrieved) or "
            f"{COLUMNS} reference_contexts=context (kept aside; metrics that need retrieved "
            "contexts skip)",
        )
    ]


def _scheme_title(scheme: Scheme | None, fields: list[str], mapped: bool) -> str:
    if scheme is RAGAS:
        versions = [
            v for v, names in (("v2", RAGAS_V2), ("v1", RAGAS_V1)) if set(fields) & set(names)
        ]
        title = f"Ragas {' and '.join(versions)} names"
    elif scheme is DEEPEVAL:
        title = "DeepEval names (LLMTestCase, Golden)"
    else:
        title = "judgegrid names" if not mapped else ""
    if mapped:
        return f"your {COLUMNS}" + (f", then {title}" if title else "")
    return title


# -- reading one record --------------------------------------------------------------------------


@dataclass
class Mapped:
    """One record in a Sample's field names, where each came from, and what was wrong."""

    fields: dict[str, Any]
    origin: dict[str, str]  # Sample field -> the data set's field, to name it in errors
    problems: list[Problem]


def apply_mapping(mapping: FieldMapping, record: Mapping[str, Any], label: str) -> Mapped:
    """``record`` renamed to a Sample's fields; list cells split, JSON cells parsed."""
    renames = dict(mapping.fields)
    out = Mapped({}, {}, [])
    for field, value in record.items():
        if field in mapping.extra and not is_blank(value):
            out.fields["extra"] = {**out.fields.get("extra", {}), field: as_text(value)}
            continue
        target = renames.get(field)
        if target is None or is_blank(value):
            continue
        where = f"{label}, field {field}" if label else f"field {field}"
        if target in out.fields:
            where = f"{label}, fields {out.origin[target]} and {field}" if label else where
            out.problems.append(Problem(where, f"two names for {target}; keep one"))
            continue
        converted, error = _convert(target, value, mapping)
        if error:
            out.problems.append(Problem(where, error))
            continue
        out.fields[target] = converted
        out.origin[target] = field
    return out


def as_text(value: Any) -> str:
    """An extra column's value as the judge reads it: text as it is, anything else as JSON."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def is_blank(value: Any) -> bool:
    """None, or an empty table cell (NaN); an empty string or list is a value, and missing."""
    if isinstance(value, list | tuple | dict | str) or hasattr(value, "tolist"):
        return False
    return bool(pd.isna(value))


def _convert(target: str, value: Any, mapping: FieldMapping) -> tuple[Any, str | None]:
    if hasattr(value, "tolist"):  # an Arrow or numpy list in a table
        value = value.tolist()
    if target in LIST_TARGETS:
        if isinstance(value, str):
            return parse_list(value, mapping.delimiter, mapping.delimiter_given)
        if isinstance(value, list | tuple):
            return [context_text(item) for item in value], None
    if target in JSON_TARGETS and isinstance(value, str):
        try:
            return json.loads(value), None
        except json.JSONDecodeError:
            return None, "expected a JSON object"
    return value, None


def context_text(item: Any) -> Any:
    """A retrieved context as text: DeepEval's source marker (or object) gives its context."""
    if isinstance(item, str):
        match = DEEPEVAL_SOURCE_MARKER.match(item)
        return match.group("context") if match else item
    if isinstance(item, dict) and set(item) == {"context", "source"}:
        return item["context"]
    return item


def parse_list(
    text: str, delimiter: str | None, given: bool
) -> tuple[list[str] | None, str | None]:
    """A list field's text cell as a list: a JSON or Python list literal (as Ragas' CSV writes
    it), else split on the delimiter; (None, why) when that would misread it."""
    if not text.strip():
        return [], None
    literal = _list_literal(text)
    if literal is not None:
        if given:
            return None, (
                f"the cell is a list ({_excerpt(text)}), which {DELIMITER_OPTION} {delimiter!r} "
                f"would cut apart; drop {DELIMITER_OPTION}"
            )
        return [context_text(item) for item in literal], None
    if delimiter is None:
        return None, (
            f'not a list ({_excerpt(text)}): write it as a JSON list ["…", "…"], or name the '
            f"text between items with {DELIMITER_OPTION}"
        )
    pieces = text.split(delimiter)
    if len(pieces) > 1 and any(not piece.strip() for piece in pieces):
        return None, (
            f"an empty item: {delimiter!r} twice in a row or at an end ({_excerpt(text)}); is "
            f"{delimiter!r} part of a context? choose a delimiter no context contains"
        )
    cut = [p for p in pieces[1:] if p.startswith(" ")]
    if delimiter in PROSE_MARKS and cut:
        return None, (
            f"{delimiter!r} followed by a space cuts a sentence apart "
            f"(…{delimiter}{_excerpt(cut[0])}); "
            "choose a delimiter no context contains (DeepEval's is '|'), or write the cell as a "
            "JSON list"
        )
    return [context_text(piece) for piece in pieces], None


def _list_literal(text: str) -> list[str] | None:
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(stripped)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    return None


def _excerpt(text: str, chars: int = 40) -> str:
    return repr(text if len(text) <= chars else text[:chars] + "…")


def mapping_lines(mapping: FieldMapping) -> list[str]:
    """What ``judgegrid validate`` shows: each field's place, what was left out, how lists split."""
    lines = []
    for field, target in sorted(mapping.fields, key=lambda pair: TARGETS.index(pair[1])):
        notes = []
        if target == "reference_contexts" and field == "context":
            notes.append("DeepEval's ideal context: kept, not scored")
        if target in LIST_TARGETS and mapping.delimiter:
            notes.append(f"a text cell is split on {mapping.delimiter!r}")
        lines.append(f"{field} → {target}" + (f" ({'; '.join(notes)})" if notes else ""))
    if mapping.extra:
        lines.append(f"kept for the criteria: {', '.join(mapping.extra)}")
    if mapping.ignored:
        lines.append(f"left out: {', '.join(mapping.ignored)}")
    return lines
