"""The information-gain questioner prefers splitting questions and never repeats itself."""

from __future__ import annotations

import pytest

from studio.sessions.questioner import (
    Candidate,
    InformationGainQuestioner,
    RandomQuestioner,
    answer_distribution,
    entropy,
)


def candidates() -> list[Candidate]:
    # Every candidate is red (asking the colour tells nothing); sleeves split them 2 / 2.
    return [
        Candidate("a", 0.9, {"color": "red", "sleeve": "long", "fit": "slim"}),
        Candidate("b", 0.9, {"color": "red", "sleeve": "long", "fit": "slim"}),
        Candidate("c", 0.9, {"color": "red", "sleeve": "short", "fit": "slim"}),
        Candidate("d", 0.9, {"color": "red", "sleeve": "short", "fit": "loose"}),
    ]


def test_entropy_of_hand_computed_distributions() -> None:
    assert entropy({"a": 0.5, "b": 0.5}) == pytest.approx(1.0)
    assert entropy({"a": 1.0}) == 0.0
    assert entropy({"a": 0.25, "b": 0.25, "c": 0.5}) == pytest.approx(1.5)


def test_it_asks_the_question_that_splits_the_candidates() -> None:
    questioner = InformationGainQuestioner(["color", "fit", "sleeve"])
    question = questioner.ask(candidates(), asked=[])
    assert question.facet == "sleeve"  # 1 bit, versus 0.81 for fit and 0 for colour
    assert set(question.options) == {"long", "short"}


def test_it_never_repeats_a_question() -> None:
    questioner = InformationGainQuestioner(["color", "fit", "sleeve"])
    asked: list[str] = []
    for _ in range(3):
        question = questioner.ask(candidates(), asked)
        assert question.facet not in asked
        asked.append(question.facet)
    assert sorted(asked) == ["color", "fit", "sleeve"]
    assert questioner.ask(candidates(), asked) is None


def test_scores_weight_the_answer_distribution() -> None:
    ranked = [Candidate("a", 1.0, {"color": "red"}), Candidate("b", 0.0, {"color": "blue"})]
    distribution = answer_distribution(ranked, "color")
    assert distribution["red"] > 0.99


def test_random_questioner_is_seeded_and_does_not_repeat() -> None:
    first = [RandomQuestioner(["a", "b", "c"], seed=3).ask([], asked=[]).facet for _ in range(2)]
    assert first[0] == first[1]
    questioner = RandomQuestioner(["a", "b"], seed=0)
    one = questioner.ask([], asked=[]).facet
    assert questioner.ask([], asked=[one]).facet != one
