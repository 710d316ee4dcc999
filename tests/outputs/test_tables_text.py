"""The analyses' tables as text for people: a configuration by language table of means, each
cell with its samples and failed cells; none for a data set in one language."""

from __future__ import annotations

from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.outputs.tables_text import language_table, markdown_for_terminal, means_by_language
from support.frames import LANGUAGES, multilingual


def test_the_bundle_and_the_table_name_configurations_and_languages():
    scores = multilingual()
    info = {
        sid: {"language": lang, "labels": None, "contrast": None} for sid, lang in LANGUAGES.items()
    }
    analysis = analyse(scores, RunFacts(sample_info=info))
    table = means_by_language(analysis.table("language_means"))["response_relevancy"]
    assert list(table.columns) == ["en", "vi", "zh"]
    assert "a / mini @ 384 (s=1)" in table.index
    assert table.loc["a / mini @ 384 (s=1)", "en"].endswith("(n=4)")
    faith = language_table(analysis.table("language_means"), "faithfulness")
    assert faith.loc["b", "zh"].endswith("(n=3, 2 failed)")
    # a one-language run has no such section
    one = {sid: {**i, "language": "en"} for sid, i in info.items()}
    alone = analyse(scores, RunFacts(sample_info=one)).table("language_means")
    assert means_by_language(alone) == {}


PAGE = """# a title with /a/path/that/is/longer/than/the/terminal/is/wide/by/a/good/way.jsonl

| configuration | faithfulness         | answer_relevance     |
|:--------------|:---------------------|:---------------------|
| judge-a       | 1.00 [0.51–1.00] n=4 | –                    |

- a list item long enough to go over more than one line of the narrow terminal
"""


def test_a_markdown_page_fits_a_narrow_terminal_its_tables_stacked_nothing_cut():
    lines = markdown_for_terminal(PAGE, 40).splitlines()
    assert lines[:2] == [
        "# a title with",
        "/a/path/that/is/longer/than/the/terminal/is/wide/by/a/good/way.jsonl",  # whole
    ]
    assert lines[3:5] == ["judge-a", "  faithfulness: 1.00 [0.51–1.00] n=4"]  # no "–" cell
    assert lines[6:] == [
        "- a list item long enough to go over",
        "  more than one line of the narrow",
        "  terminal",
    ]
    table = [line for line in PAGE.splitlines() if line.startswith("|")]
    assert [line for line in markdown_for_terminal(PAGE, 80).splitlines() if "|" in line] == table
