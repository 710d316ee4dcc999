"""What a page shows the program printing is a file the program wrote: ``docs/outputs/NAME.txt``,
made by ``docs/hooks/doc_outputs.py`` (`make docs-outputs`) and included whole with
pymdownx.snippets. A card, a table or a message typed into a page by hand goes stale unseen;
these tests find one (test_doc_outputs.py checks that each file is what the program prints now).
"""

from __future__ import annotations

import re
import sys

import pytest
from doc_blocks import ROOT, Block, all_blocks

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import doc_outputs  # docs/hooks is not a package: imported from its folder

BLOCKS = all_blocks()
OUTPUT_LANGUAGES = {"text", ""}
MADE = {name: output.path for name, output in doc_outputs.OUTPUTS.items()}
# a command's own line in a console block, and a comment there (# not run: …)
TYPED = re.compile(r"^(\$ .*|#.*|)$")


def made_texts() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in MADE.items()}


def pasted_lines(block: Block) -> list[str]:
    """The lines of output a block holds itself, not from an included file."""
    own = [line for line in block.own.splitlines() if not line.startswith("--8<-- ")]
    if block.language == "console":
        return [line for line in own if not TYPED.match(line.strip())]
    if block.language in OUTPUT_LANGUAGES:
        return [line for line in own if line.strip()]
    return []


def is_a_copy(block: Block) -> bool:
    """README is read where snippets are not included (GitHub): there an output is a verbatim
    copy of its file."""
    return block.text.strip("\n") + "\n" in made_texts().values()


def test_no_page_pastes_an_output_by_hand():
    pasted = [
        f"{b.where}: {pasted_lines(b)[0]!r}"
        for b in BLOCKS
        if pasted_lines(b) and not (b.path.name == "README.md" and is_a_copy(b))
    ]
    assert pasted == [], (
        "output typed into a page: write it with docs/hooks/doc_outputs.py and include it "
        '(--8<-- "docs/outputs/NAME.txt"), or make the block a synopsis if the program never '
        "prints it"
    )


def distinctive(text: str) -> set[str]:
    """An output's lines that no hand would write alike by chance: long, numbers masked."""
    return {line for line in doc_outputs.masked(text).splitlines() if len(line) >= 30}


def repeated_lines(blocks: list[Block]) -> list[str]:
    """The blocks' own lines that repeat a line of an output."""
    lines = set().union(*(distinctive(text) for text in made_texts().values()))
    return [f"{b.where}: {line!r}" for b in blocks for line in distinctive(b.own) if line in lines]


def test_no_block_repeats_a_line_of_an_output():
    """A card or a message pasted into a block of another kind (a synopsis, a comment) is
    found by its lines."""
    assert repeated_lines(BLOCKS) == []


def test_a_card_pasted_into_a_synopsis_is_found():
    """The check itself: the demo's card, its figures changed, in a synopsis block."""
    card = MADE["demo-card"].read_text(encoding="utf-8").replace("0.", "1.")
    assert repeated_lines([page_block("synopsis", card)])


def test_a_page_includes_only_made_outputs_and_every_output_is_shown():
    included = {path for b in BLOCKS for path in b.included}
    outputs = {f"docs/outputs/{name}.txt" for name in MADE}
    other = included - outputs - {p for p in included if p.startswith("docs/examples/")}
    assert other == set(), "included, yet not an output doc_outputs.py makes"
    assert outputs - included == set(), "made, yet no page shows it"
    on_disk = {f"docs/outputs/{p.name}" for p in (ROOT / "docs" / "outputs").glob("*")}
    assert on_disk == outputs, "docs/outputs/ holds a file doc_outputs.py does not make"


def test_every_fence_closes_on_a_line_of_its_own():
    """A closing fence with text after it is no fence: the block runs on into the page."""
    broken = [b.where for b in BLOCKS if any(line.startswith("```") for line in b.own.splitlines())]
    assert broken == []


def page_block(language: str, own: str) -> Block:
    """A block as a page would hold it (an include stays its --8<-- line here)."""
    return Block(ROOT / "x.md", 1, language, own, own)


@pytest.mark.parametrize(
    ("language", "own", "found"),
    [
        ("text", "metric  verdict  basis", True),
        ("", "score rows: 12", True),
        ("console", "$ judgegrid plan m.yaml\nmodel  step  calls", True),
        ("console", "# not run: serves a page\n$ judgegrid view RUN", False),
        ("console", '# not run: why\n--8<-- "docs/outputs/view-serves.txt"', False),
        ("text", '--8<-- "docs/outputs/demo-card.txt"', False),
        ("synopsis", "judgegrid run [MATRIX]", False),
    ],
)
def test_pasted_output_is_found_and_an_include_is_not(language: str, own: str, found: bool):
    """The check itself, on blocks made here."""
    assert bool(pasted_lines(page_block(language, own))) is found


def test_the_mask_keeps_words_and_forgets_numbers():
    """The demo's outputs are compared masked: a figure may move, a word may not."""
    card = "faithfulness  gemma-270m (1 of 2 not sepa…  people  rho 0.81 [0.42, 0.95]   9"
    other_figures = "faithfulness  gemma-270m (1 of 3 not se…  people  rho -0.12 [-0.5, 0.95]  12"
    other_judge = "faithfulness  smollm2-135m (1 of 2 not sepa…  people  rho 0.81 [0.42, 0.95]  9"
    other_basis = "faithfulness  gemma-270m (1 of 2 not sepa…  pairs  rho 0.81 [0.42, 0.95]   9"
    assert doc_outputs.masked(card) == doc_outputs.masked(other_figures)
    assert doc_outputs.masked(card) != doc_outputs.masked(other_judge)
    assert doc_outputs.masked(card) != doc_outputs.masked(other_basis)
    rule = "──────  ───\n" + "-" * 12
    assert doc_outputs.masked(rule) == doc_outputs.masked("──  ─────────\n" + "-" * 3)
