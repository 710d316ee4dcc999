"""Generated wrong arguments to every public function of ``judgegrid`` (``fuzz_targets``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from support.fuzz_targets import (
    API_CALLS,
    ApiExample,
    api_examples,
    check_api,
    ci_settings,
    finished_run,
)


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    return finished_run(tmp_path_factory.mktemp("fuzz-api"))


@ci_settings(max_examples=30)
@given(example=api_examples())
def test_a_wrong_argument_is_an_input_error_and_leaves_nothing(base_run, example: ApiExample):
    failures = check_api(example, base_run)
    assert not failures, "\n".join(map(str, failures))


@pytest.mark.parametrize("function", sorted(API_CALLS))
def test_each_valid_call_succeeds(base_run, function):
    """The baseline each example changes one argument of: it must be a call that works."""
    example = ApiExample(function, "", None)
    assert check_api(example, base_run) == []
