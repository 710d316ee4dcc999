"""judgegrid against Ragas 0.4.3 ``evaluate()`` on one local server, in one run.

    PYTHONPATH=src python benches/bench_vs_ragas.py [--latency-ms 200] [--samples 40] [--rounds 2]

The fault-injection server runs in a process of its own and answers after a fixed latency:
judgegrid's prompts with its scripted answers, Ragas' prompts with an instance of the JSON schema
each prompt asks for (``judgegrid.testing.schema_answers``), so both harnesses parse every reply.
Both get the same samples (3 contexts each), one judge, one embedding model, strictness 3 and
concurrency 16, and run alternately (Ragas, judgegrid, Ragas, …), with all four metrics
(ResponseRelevancy, Faithfulness, ContextPrecision, ContextRecall) and with the judge-only three.
Figures, as judgegrid ÷ Ragas: wall time (judgegrid's whole ``run_grid``, report included), the
requests the server saw, the client's CPU time, and the share of NaN (unscored) cells.

Two traps, avoided here and worth knowing when reading other comparisons:
- Ragas' ResponseRelevancy embeds synchronously (``embed_query`` inside its async scorer), so its
  embedding requests never overlap and block the event loop for a round trip each.
- Ragas asks for ResponseRelevancy's questions with ``n`` by setting ``n`` on the LLM object;
  metrics sharing one LLM wrapper overwrite each other's ``n`` under concurrency. ResponseRelevancy
  gets an LLM wrapper of its own here.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from common import Row, bench_environment, emit, load_average, start_fault_server, verdict
from grid import synthetic_samples, write_jsonl

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
warnings.filterwarnings("ignore")

KEY_ENV = "JUDGEGRID_BENCH_KEY"
CONCURRENCY = 16
CONTEXTS = 3
STRICTNESS = 3
ALL = ["response_relevancy", "faithfulness", "context_precision", "context_recall"]
JUDGE_ONLY = ALL[1:]


@dataclass
class Measured:
    wall: float
    cpu: float
    requests: int
    nan_share: float


def server_requests(url: str) -> int:
    with urllib.request.urlopen(url.rstrip("/") + "/stats", timeout=10) as reply:
        return int(json.load(reply)["requests"])


def run_ragas(url: str, samples: list[dict[str, Any]], metrics: list[str]) -> Measured:
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from ragas import EvaluationDataset, RunConfig, evaluate
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import (
        Faithfulness,
        LLMContextPrecisionWithReference,
        LLMContextRecall,
        ResponseRelevancy,
    )

    # HTTP clients of this run's own: langchain-openai caches a default async client, which
    # stays bound to the event loop of the first evaluate() and fails in the next one
    limits = httpx.Limits(max_connections=CONCURRENCY * 4)

    def llm() -> Any:
        chat = ChatOpenAI(
            model="fake-ragas",
            base_url=url,
            api_key="sk-bench",
            temperature=0.0,
            max_retries=0,
            http_async_client=httpx.AsyncClient(limits=limits, timeout=120),
        )
        return LangchainLLMWrapper(chat)

    embeddings = LangchainEmbeddingsWrapper(
        OpenAIEmbeddings(
            model="fake-embed",
            base_url=url,
            api_key="sk-bench",
            check_embedding_ctx_length=False,
            http_async_client=httpx.AsyncClient(limits=limits, timeout=120),
        )
    )
    shared = llm()
    made = {
        # its own LLM wrapper: Ragas sets n on the wrapper's model for its questions
        "response_relevancy": ResponseRelevancy(
            llm=llm(), embeddings=embeddings, strictness=STRICTNESS
        ),
        "faithfulness": Faithfulness(llm=shared),
        "context_precision": LLMContextPrecisionWithReference(llm=shared),
        "context_recall": LLMContextRecall(llm=shared),
    }
    data = EvaluationDataset.from_list(
        [
            {
                "user_input": s["user_input"],
                "response": s["response"],
                "retrieved_contexts": s["retrieved_contexts"],
                "reference": s["reference"],
            }
            for s in samples
        ]
    )
    before = server_requests(url)
    cpu, wall = time.process_time(), time.perf_counter()
    result = evaluate(
        data,
        metrics=[made[m] for m in metrics],
        llm=shared,
        embeddings=embeddings,
        run_config=RunConfig(max_workers=CONCURRENCY, timeout=120, max_retries=1),
        show_progress=False,
        raise_exceptions=False,
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    frame = result.to_pandas()
    columns = [c for c in frame.columns if c in {made[m].name for m in metrics}]
    values = frame[columns].to_numpy().ravel()
    nan = sum(1 for v in values if v is None or (isinstance(v, float) and math.isnan(v)))
    return Measured(wall, cpu, server_requests(url) - before, nan / max(1, len(values)))


def run_judgegrid(url: str, data: Path, metrics: list[str], work: Path, name: str) -> Measured:
    from judgegrid import run_grid

    options = {"api_base": url, "api_key_env": KEY_ENV, "timeout": "120s"}
    matrix = {
        "name": "vs-ragas",
        "dataset": str(data),
        "defaults": {"judge": {"temperature": 0.0, **options}, "embedding": options},
        "concurrency": {"total": CONCURRENCY, "per_model": CONCURRENCY},
        "judges": [{"id": "openai/fake-judgegrid", "label": "judge"}],
        "embeddings": [{"id": "openai/fake-embed", "label": "embed"}],
        "metrics": metrics,
        "strictness": [STRICTNESS],
    }
    if "response_relevancy" not in metrics:
        matrix["embeddings"] = []
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    before = server_requests(url)
    cpu, wall = time.process_time(), time.perf_counter()
    result = run_grid(path, run_dir=work / name, use_cache=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    scores = result.scores
    nan = int((scores["status"] != "scored").sum() + scores["score"].isna().sum())
    share = min(1.0, nan / max(1, len(scores)))
    return Measured(wall, cpu, server_requests(url) - before, share)


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    bench_environment()
    samples = synthetic_samples(args.samples, contexts=CONTEXTS)
    server, url = start_fault_server(args.latency_ms / 1000)
    rows: list[Row] = []
    try:
        with tempfile.TemporaryDirectory(prefix="judgegrid-bench-") as tmp:
            work = Path(tmp)
            data = write_jsonl(work / "samples.jsonl", samples)
            # warm-up of both (imports, HTTP clients), outside the measurement
            run_ragas(url, samples[:2], JUDGE_ONLY)
            run_judgegrid(url, write_jsonl(work / "w.jsonl", samples[:2]), ALL, work, "warm")
            for label, metrics in (("all four metrics", ALL), ("judge-only three", JUDGE_ONLY)):
                ragas, ours = [], []
                for r in range(args.rounds):
                    ragas.append(run_ragas(url, samples, metrics))
                    ours.append(run_judgegrid(url, data, metrics, work, f"{len(metrics)}-{r}"))
                rows += report(label, ragas, ours, args.latency_ms)
    finally:
        server.terminate()
        server.wait(timeout=30)
    rows.append(Row("vs Ragas", "load average (1, 5, 15 min) after the runs", load_average()))
    emit(rows)


def report(label: str, ragas: list[Measured], ours: list[Measured], latency: float) -> list[Row]:
    wall = mean([o.wall for o in ours]) / mean([r.wall for r in ragas])
    cpu = mean([o.cpu for o in ours]) / mean([r.cpu for r in ragas])
    requests = (ours[0].requests, ragas[0].requests)
    print(
        f"{label} at {latency:.0f} ms: Ragas wall {[round(r.wall, 1) for r in ragas]} s, "
        f"CPU {[round(r.cpu, 1) for r in ragas]} s, {ragas[0].requests} requests, "
        f"NaN {ragas[0].nan_share:.1%}; judgegrid wall {[round(o.wall, 1) for o in ours]} s, "
        f"CPU {[round(o.cpu, 1) for o in ours]} s, {ours[0].requests} requests, "
        f"NaN {ours[0].nan_share:.1%}; load {load_average()}",
        flush=True,
    )
    target = 0.5 if label.startswith("all") else 0.8
    return [
        Row(
            "vs Ragas",
            f"{label}, {latency:.0f} ms: wall time, judgegrid / Ragas",
            round(wall, 2),
            "x",
            f"<= {target}",
            verdict(wall <= target),
        ),
        Row(
            "vs Ragas",
            f"{label}: client CPU, judgegrid / Ragas",
            round(cpu, 2),
            "x",
            "<= 1",
            verdict(cpu <= 1),
        ),
        Row(
            "vs Ragas", f"{label}: requests, judgegrid vs Ragas", f"{requests[0]} vs {requests[1]}"
        ),
        Row(
            "vs Ragas",
            f"{label}: NaN share, judgegrid vs Ragas",
            f"{ours[0].nan_share:.1%} vs {ragas[0].nan_share:.1%}",
        ),
    ]


if __name__ == "__main__":
    main()
