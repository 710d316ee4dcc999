"""Issue 39's generators through the console script (``fuzz_files``): YAML as YAML, output paths
that collide, the environment, secrets in written fields. Each class has an example of its own,
a strict xfail while it is in ``OPEN_CLASSES``; the drawn examples leave open classes out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from judgegrid.testing.strategies import key_shaped
from support.fuzz_files import (
    EnvExample,
    PathExample,
    SecretExample,
    YamlExample,
    check_env,
    check_paths,
    check_secrets,
    check_yaml,
    env_examples,
    path_examples,
    secret_examples,
    yaml_examples,
)
from support.fuzz_targets import ci_settings, closed, finished_run, open_class


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    return finished_run(tmp_path_factory.mktemp("fuzz-files"))


def _no_failures(failures) -> None:
    assert not failures, "\n".join(map(str, failures))


# -- cli-yaml: one drawn example of each feature ------------------------------------------------

# (the file, the feature, the part of its failure class that OPEN_CLASSES may list)
YAML_CASES = [
    ("matrix", "duplicate key", "duplicate key @ matrix"),
    ("matrix", "boolean where a number is due", "accepted: boolean where a number is due"),
    ("matrix", "special float where a number is due", "accepted: special float"),
    ("matrix", "boolean where a name is due", "without a hint to quote"),
    ("matrix", "foreign tag", "accepted: foreign tag"),
    ("matrix", "alias bomb", "alias bomb @ matrix"),
    ("matrix", "deep nesting", "deep nesting @ matrix"),
    ("matrix", "anchor and alias", "refused: anchor and alias"),
    ("matrix", "merge key", "refused: merge key"),
    ("matrix", "own-type tag", "refused: own-type tag"),
    ("spring", "duplicate key", "duplicate key @ spring"),
    ("spring", "boolean where a number is due", "accepted: boolean where a number is due"),
    ("promptfoo", "duplicate key", "duplicate key @ promptfoo"),
    ("promptfoo", "boolean where a number is due", "accepted: boolean where a number is due"),
    ("promptfoo", "special float where a number is due", "accepted: special float"),
    ("promptfoo", "boolean where a name is due", "without a hint to quote"),
]


@pytest.mark.parametrize(
    "kind, feature",
    [pytest.param(k, f, marks=open_class(c), id=f"{k}-{f}") for k, f, c in YAML_CASES],
)
def test_each_yaml_feature_is_refused_or_changes_nothing(kind: str, feature: str):
    """A hostile feature refused by every command reading the file (a bomb at once), a benign
    one changing nothing, a boolean name refused with a hint to quote."""

    @ci_settings(max_examples=1)
    @given(yaml_examples((kind,), (feature,)))
    def one(example: YamlExample) -> None:
        _no_failures(check_yaml(example))

    one()


@ci_settings(max_examples=4)
@given(yaml_examples())
def test_drawn_yaml_documents_keep_the_closed_classes_closed(example: YamlExample):
    _no_failures(closed(check_yaml(example)))


# -- cli-paths -----------------------------------------------------------------------------------

PATH_CASES = [
    (PathExample("export", "fresh", "csv"), ""),
    (PathExample("export", "unrelated file", "csv"), "overwrote a file without --overwrite"),
    (PathExample("export", "own input"), "wrote over an input or a run's file"),
    (PathExample("export", "run's file", "csv"), "wrote over an input or a run's file"),
    (PathExample("labels export", "run's file", "csv"), "wrote over an input or a run's file"),
    (PathExample("init", "missing folder", "yaml"), "@ run/starter.py:init_matrix"),
    (PathExample("init", "unrelated file", "yaml"), ""),
    (PathExample("report", "", spoil="bad margin"), "refused but changed or made files @ report"),
    (
        PathExample("report", "", spoil="resolved matrix broken"),
        "refused but changed or made files @ report",
    ),
    (PathExample("run", "unrelated file"), ""),
    (PathExample("pairs", "run's file"), ""),
]


@pytest.mark.parametrize(
    "example",
    [pytest.param(e, marks=open_class(c), id=str(e)) for e, c in PATH_CASES],
)
def test_each_collision_leaves_the_users_files_as_they_were(base_run, example: PathExample):
    _no_failures(check_paths(example, base_run))


@ci_settings(max_examples=4)
@given(path_examples())
def test_drawn_output_paths_keep_the_closed_classes_closed(base_run, example: PathExample):
    _no_failures(closed(check_paths(example, base_run)))


# -- cli-env -------------------------------------------------------------------------------------

ENV_CASES = [
    (EnvExample("JUDGEGRID_CACHE_DIR", "a file", "", "cache stats"), "the crash logger failed"),
    (EnvExample("JUDGEGRID_CACHE_DIR", "a file", "", "run"), "the crash logger failed"),
    (
        EnvExample("TERMINAL_WIDTH", "garbage", "abc", "run --help"),
        "traceback printed @ run --help",
    ),
    (
        EnvExample("TERMINAL_WIDTH", "garbage", "99999999999999999999", "run --help"),
        "traceback printed @ run --help",
    ),
    (EnvExample("NO_COLOR", "empty", "", "--help"), ""),
    (EnvExample("COLUMNS", "garbage", "-1", "validate"), ""),
]


@pytest.mark.parametrize(
    "example",
    [pytest.param(e, marks=open_class(c), id=str(e)) for e, c in ENV_CASES],
)
def test_each_odd_environment_is_exit_0_or_2_without_a_traceback(base_run, example: EnvExample):
    _no_failures(check_env(example, base_run))


@ci_settings(max_examples=6)
@given(env_examples())
def test_drawn_environments_keep_the_closed_classes_closed(base_run, example: EnvExample):
    _no_failures(closed(check_env(example, base_run)))


# -- cli-secrets ---------------------------------------------------------------------------------

KEY = "sk-proj-FUZZabcdefghijklmnopqrstuvw7"
SECRET_CASES = [
    ("judge extra header", "key written @ run: matrix.resolved.yaml"),
    ("label note", "label note"),
    ("annotator column", "annotator column"),
    ("spring default", "a key as a default in the file"),
    ("spring base-url userinfo", "spring base-url userinfo"),
    ("api_base userinfo", ""),
]


@pytest.mark.parametrize(
    "place",
    [pytest.param(p, marks=open_class(c), id=p) for p, c in SECRET_CASES],
)
def test_a_key_in_a_written_field_is_never_written_or_shown(base_run, place: str):
    _no_failures(check_secrets(SecretExample(place, KEY), base_run))


@ci_settings(max_examples=3)
@given(secret_examples())
def test_drawn_secrets_keep_the_closed_classes_closed(base_run, example: SecretExample):
    _no_failures(closed(check_secrets(example, base_run)))


def test_the_keys_drawn_are_found_by_the_check():
    """The check looks for what a partial mask keeps; a drawn key has it."""
    example = key_shaped().example()
    assert example.startswith("sk-proj-FUZZ") and len(example) > 30
