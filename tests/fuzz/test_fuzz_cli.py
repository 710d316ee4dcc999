"""Generated bad inputs through the console script (``fuzz_targets``: the inputs and the
properties). A bounded, derandomized number of examples: the same inputs on every run of the
suite; ``benches/fuzz.py`` is the long campaign."""

from __future__ import annotations

from hypothesis import given

from support.fuzz_targets import (
    CliExample,
    check_cli,
    ci_settings,
    cli_examples,
    valid_cli_examples,
)


@ci_settings(max_examples=10)
@given(cli_examples())
def test_the_cli_refuses_bad_input_cleanly_and_its_commands_agree(example: CliExample):
    """Exit 0 or 2 (3: failed cells), no crash, nothing left on a refusal, no key shown or
    written, and what ``run`` refuses ``validate`` and ``plan`` refuse too."""
    failures = check_cli(example)
    assert not failures, "\n".join(map(str, failures))


@ci_settings(max_examples=3)
@given(valid_cli_examples())
def test_the_valid_inputs_run(example: CliExample):
    """The unmutated inputs must pass every property too (else the failures above could be the
    generator's, not the tool's)."""
    assert check_cli(example) == []
