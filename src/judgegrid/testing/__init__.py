"""Test doubles shipped with the package: scripted judge answers and a fault-injection server.

They live in the package (not under tests/) so the benchmarks and other projects' tests can use
them too. Nothing here is imported by a normal run.

May import: anything of judgegrid; nothing of judgegrid imports it.
"""
