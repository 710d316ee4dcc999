"""The tests' shared helpers: the scripted provider, demo data sets, fault-server matrices,
killed-and-resumed runs, servers, the headless browser and its pages, fuzz targets, and the like.

Imported by the tests (``from support.scripted import ...``; tests/conftest.py puts ``tests/`` on
``sys.path``) and by the benchmarks (benches/fuzz.py), never by the tool itself.
"""
