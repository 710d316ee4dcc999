"""Generated bad inputs through the console script (``fuzz_targets``: the inputs and the
properties). A bounded, derandomized number of examples: the same inputs on every run of the
suite; ``benches/fuzz.py`` is the long campaign."""

from __future__ import annotations

from hypothesis import given

from fuzz_targets import CliExample, check_cli, ci_settings, cli_examples


@ci_settings(max_examples=12)
@given(cli_examples())
def test_the_cli_refuses_bad_input_cleanly_and_its_commands_agree(example: CliExample):
    """Exit 0 or 2 (3: failed cells), no crash, nothing left on a refusal, no key shown or
    written, and what ``run`` refuses ``validate`` and ``plan`` refuse too."""
    failures = check_cli(example)
    assert not failures, "\n".join(map(str, failures))


def test_the_valid_inputs_are_valid():
    """The unmutated inputs must run: else every property above would hold vacuously."""
    example = cli_examples().example()
    while example.mutation is not None or example.option is not None:
        example = cli_examples().example()
    assert check_cli(example) == []
