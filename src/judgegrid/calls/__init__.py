"""Talking to models: judge and embedding clients, each call through litellm with limits,
retries and one record per attempt; answers computed once (memo, cache); batch mode; and
``providers/``, litellm set up once and the embedded local models behind it.

May import: ``store`` (calls are recorded in the run database), ``inputs`` and ``core``.
"""
