"""Placeholder judge answers: a plausible, schema-valid answer for every judge prompt, decided
by the prompt alone (no model), and placeholder vectors (a bag of words).

``judgegrid plan`` answers each step with them to learn the steps that follow (how many verdict
lists, how many questions) without calling anything; the tests' scripted provider and the
fault-injection server answer with them too, so a plan, a scripted run and a served run agree.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import numpy as np

EMBED_DIM = 64


def step_of(prompt: str) -> str:
    if "write the one question" in prompt:
        return "question"
    if "Break the answer into short statements" in prompt:
        return "statements"
    if "Take each sentence of the reference answer" in prompt:
        return "classify"
    if "decide whether the context supports it" in prompt:
        return "verdicts"
    if "Was the context useful to arrive at the given answer" in prompt:
        return "usefulness"
    if "List the unique named entities" in prompt:
        return "entities"
    if "say whether it is relevant to answering the input" in prompt:
        return "relevance"
    if "Explain in one or two sentences why the answer relevancy score" in prompt:
        return "ar_reason"
    if prompt.startswith("Judge the sample by this criterion:"):
        return "criterion"
    if prompt.startswith("Compare answer A and answer B by this criterion:"):
        return "pairwise"
    return "unknown"


def last_block(prompt: str, label: str) -> str:
    """The value after the last 'Label:' line of a few-shot prompt (the real input)."""
    matches = re.findall(rf"^{label}: (.*)$", prompt, flags=re.MULTILINE)
    return matches[-1] if matches else ""


def last_section(prompt: str, label: str) -> str:
    """Everything after the last 'Label:' up to the 'JSON:' line (a value may span lines)."""
    matches = re.findall(rf"^{label}: (.*?)\nJSON:", prompt, flags=re.MULTILINE | re.DOTALL)
    return matches[-1] if matches else ""


def default_answer(step: str, prompt: str, model: str) -> dict[str, Any]:
    """Plausible answers: questions echo the answer's words; verdicts check word overlap."""
    if step == "question":
        answer = last_block(prompt, "Answer")
        evasive = any(w in answer.lower() for w in ("not sure", "don't know", "no information"))
        return {"question": f"What about {answer.rstrip('.')}?", "noncommittal": int(evasive)}
    if step == "statements":
        answer = last_block(prompt, "Answer")
        parts = [p.strip() for p in re.split(r"(?<=\.)\s+", answer) if p.strip()]
        return {"statements": parts}
    if step == "verdicts":
        context = last_block(prompt, "Context").lower()
        statements = json.loads(last_block(prompt, "Statements") or "[]")
        items = []
        for s in statements:
            words = {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 3}
            supported = sum(w in context for w in words) >= 0.6 * max(1, len(words))
            items.append({"statement": s, "reason": "word overlap", "verdict": int(supported)})
        return {"statements": items}
    if step == "usefulness":
        answer, context = last_block(prompt, "Answer"), last_block(prompt, "Context")
        return {"reason": "word overlap", "verdict": int(_overlap(answer, context) >= 0.3)}
    if step == "classify":
        context = last_block(prompt, "Context")
        sentences = [p for p in re.split(r"(?<=\.)\s+", last_block(prompt, "Reference")) if p]
        return {
            "classifications": [
                {
                    "statement": s,
                    "reason": "word overlap",
                    "attributed": int(_overlap(s, context) >= 0.6),
                }
                for s in sentences
            ]
        }
    if step == "entities":
        text = last_section(prompt, "Text")
        return {"entities": sorted(set(re.findall(r"\b(?:[A-Z][a-z]+|[0-9]{3,4})\b", text)))}
    if step == "relevance":
        question = last_block(prompt, "Input")
        statements = json.loads(last_block(prompt, "Statements") or "[]")
        return {
            "verdicts": [
                {"verdict": "yes", "reason": None}
                if _overlap(s, question) >= 0.3
                else {"verdict": "no", "reason": "off the question"}
                for s in statements
            ]
        }
    if step == "criterion":
        return criterion_answer(prompt)
    if step == "pairwise":
        return pairwise_answer(prompt)
    if step == "ar_reason":
        return {"reason": f"The score is {last_block(prompt, 'Score')} because of the verdicts."}
    raise AssertionError(f"scripted judge got an unknown prompt: {prompt[:200]}")


def criterion_answer(prompt: str) -> dict[str, Any]:
    """A criterion's answer, read off its reply format: pass where the response shares words
    with the question, else fail; the first label; the middle level of a scale."""
    reply = last_block(prompt, "Reply with JSON")
    if reply.startswith('{"verdict"'):
        passes = _overlap(last_block(prompt, "Response"), last_block(prompt, "Question")) >= 0.3
        return {"verdict": "pass" if passes else "fail", "reason": "word overlap"}
    if reply.startswith('{"label"'):
        first = re.search(r'\{"label": "([^"]+)"', reply)
        return {"label": first.group(1) if first else "", "reason": "the first label"}
    levels = [int(n) for n in re.findall(r"(-?\d+)(?= or|, \"reason)", reply)]
    return {"level": levels[len(levels) // 2] if levels else 0, "reason": "the middle level"}


def pairwise_answer(prompt: str) -> dict[str, Any]:
    """A pairwise criterion's answer, read off its reply format: the answer sharing more words
    with the question (a tie when they share as many); the middle level of a graded scale."""
    reply = last_block(prompt, "Reply with JSON")
    if reply.startswith('{"level"'):
        levels = [int(n) for n in re.findall(r"(-?\d+)(?= or|, \"reason)", reply)]
        return {"level": levels[len(levels) // 2] if levels else 0, "reason": "the middle level"}
    question = last_block(prompt, "Question")
    first = _overlap(question, last_block(prompt, "Answer A"))
    second = _overlap(question, last_block(prompt, "Answer B"))
    ties = '"tie"' in reply
    verdict = "A" if first > second else "B" if second > first or not ties else "tie"
    return {"verdict": verdict, "reason": "word overlap with the question"}


def _overlap(text: str, context: str) -> float:
    """Share of the text's longer words that occur in the context."""
    words = {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}
    return sum(w in context.lower() for w in words) / max(1, len(words))


def bag_of_words(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic embedding: hashed word counts, so shared words mean higher cosine."""
    vector = np.zeros(dim)
    vector[0] = 0.5  # a shared component: no text embeds to a zero vector, even truncated
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    return vector.tolist()


def answer_for_messages(messages: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The scripted answer to a chat request: the task prompt is the second message (after the
    system line), also in a corrective retry, which appends to the original messages."""
    contents = [str(m.get("content") or "") for m in messages]
    prompt = "\n\n".join(contents)
    step = step_of(contents[1] if len(contents) > 1 else prompt)
    return default_answer(step, prompt, model)
