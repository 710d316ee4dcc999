"""The statistics themselves, on arrays, each written once and each checked against an
independent implementation in the tests: intervals (``intervals``), agreement on categories
and Krippendorff's alpha (``categorical``), intraclass correlation and Spearman-Brown
(``icc``), rank correlations (``correlation``), paired tests (``paired``), the paired rule
that names the best of several candidates measured on the same items (``ruling``), weighted
figures and betting (``weighted``, ``betting``), and a judge's mean corrected by people's
labels (``ppi``: prediction-powered inference).

May import: numpy, scipy and pandas; nothing else of judgegrid (it is the floor of ``analyses``).
"""
