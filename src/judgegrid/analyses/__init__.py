"""Pure analyses of a scores table (no I/O). One module per concept:

- ``tables``: per-configuration means, run-to-run spread, failure counts (the summary tables)
- ``icc``, ``alpha``: reliability coefficients (ICC(1), ICC(2,1), ICC(3,1); Krippendorff alpha)
- ``stability``: run-to-run stability of each configuration
- ``agreement``: agreement between judges, and between embedding configurations
- ``disagreement``: per sample, the gap between the highest and lowest judge (the samples
  to open first)
- ``variance``: variance components and the decision study
- ``strictness``: what a larger strictness buys and costs
- ``validity``: preference-pair accuracy, correlation with numeric labels, contrasts
- ``human``: validity against human labels, the annotators' own alpha, the Alternative
  Annotator Test, and how many labels would separate the judges
- ``recommendation``: judges ranked by validity or consensus against cost and latency
- ``usage``: calls, tokens and cost per model from the calls table
- ``bundle``: every table of a run in one pure call, for the report writers

Each analysis states its missing-data rule. May import: nothing of judgegrid outside
``analyses`` (numpy, pandas and scipy only).
"""
