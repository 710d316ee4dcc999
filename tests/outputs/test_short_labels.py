"""Labels shortened to a width stay apart: whatever the names shown together (juries of long
model names in either order, configurations sharing a long prefix, any text at all), each
shortened label fits the width, two different names never read the same, and a name that fits
is shown whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judgegrid.outputs.short_labels import short_labels

MODEL = st.one_of(
    st.sampled_from(["smollm2-135m", "gemma-270m", "gemma-3-270m", "qwen2.5-0.5b", "gpt-4o-mini"]),
    st.from_regex(r"[a-z]{3,10}[0-9.]{0,3}(-[a-z0-9.]{1,6}){1,3}", fullmatch=True),
)
EMBEDDER = st.sampled_from(["e5-small", "bge-small", "minilm", "multilingual-e5-small"])


@st.composite
def shown_together(draw: st.DrawFn) -> list[str]:
    """The judges of one forest plot as a run names them: a few judges, juries of them (their
    members in any order, so one jury may come in both), each with one of a few embedding
    models when the metric uses one."""
    judges = draw(st.lists(MODEL, min_size=2, max_size=4, unique=True))
    panels = st.lists(st.sampled_from(judges), min_size=2, max_size=3, unique=True)
    juries = [f"jury({' + '.join(panel)})" for panel in draw(st.lists(panels, max_size=4))]
    raters = list(dict.fromkeys(judges + juries))
    embedders = draw(st.lists(EMBEDDER, max_size=3, unique=True))
    return [f"{r} / {e}" for r in raters for e in embedders] or raters


ANY_TEXT = st.lists(st.text(max_size=60), min_size=1, max_size=12, unique=True)


def _check(names: list[str], width: int) -> None:
    shown = short_labels(names, width)
    assert len(shown) == len(names)
    assert len(set(shown)) == len(set(names)), dict(zip(names, shown, strict=True))
    for name, label in zip(names, shown, strict=True):
        assert len(label) <= width, (name, label)
        if len(name) <= width:
            assert label == name


@settings(max_examples=150, deadline=None)
@given(shown_together(), st.integers(8, 40))
def test_a_runs_configurations_shortened_fit_and_stay_distinct(names: list[str], width: int):
    _check(names, width)


@settings(max_examples=100, deadline=None)
@given(ANY_TEXT, st.integers(8, 40))
def test_any_names_shortened_fit_and_stay_distinct(names: list[str], width: int) -> None:
    _check(names, width)


def test_a_jury_keeps_each_member_short_rather_than_losing_the_last():
    """Each member's name cut to its first part that no other name shares: both members of
    both juries stay readable, where cutting the tail left 'jury(smollm2-135m + g…' twice."""
    names = ["jury(smollm2-135m + gemma-270m)", "jury(gemma-270m + smollm2-135m)"]
    assert short_labels(names, 22) == ["jury(smollm2 + gemma)", "jury(gemma + smollm2)"]


def test_configurations_of_one_jury_differ_where_their_names_do():
    jury = "jury(smollm2-135m + gemma-270m + qwen2.5-0.5b)"
    shown = short_labels([f"{jury} / bge-small", f"{jury} / e5-small"], 26)
    assert len(set(shown)) == 2 and all(len(s) <= 26 for s in shown)
    assert shown[0].endswith("/ bge") and shown[1].endswith("/ e5"), shown


def test_names_no_ending_tells_apart_take_a_number_each():
    names = ["x" * 25 + "yyy", "x" * 26 + "yyy", "x" * 9]
    assert short_labels(names, 10) == ["xxxxxxx…#1", "xxxxxxx…#2", "x" * 9]
