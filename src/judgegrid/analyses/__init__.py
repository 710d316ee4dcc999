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
- ``probes``: what each configuration makes of the probes (detection rate, rises on injection),
  their rows kept out of every other analysis
- ``recommendation``: judges ranked by validity or consensus against cost and latency
- ``paired``: paired comparisons of judges on the same items (exact McNemar, paired bootstrap,
  Holm), behind every "best" the tool names
- ``juries``: panels of judges as virtual judges made from the calls already made
- ``decision``: the decision card, the evidence ladder and the paired rule
- ``categorical``: agreement on categories (Cohen's and Fleiss' kappa, Krippendorff's alpha,
  Gwet's AC1) with bootstrap intervals
- ``criteria``: a criterion's categories, a judge's modal answer per sample, the people's label
- ``criterion_agreement``: agreement between judges on a criterion, by statistics fitting its type
- ``criterion_validity``: a criterion's judges against people (accuracy against the
  no-information rate, kappa, TPR/TNR, recall; weighted kappa and Spearman for a scale)
- ``calibration``: Brier score and reliability curve of log-prob weighted judges against people
- ``wording``: variance between wordings beside repeats, and the flag of a judge whose verdict
  changes with the wording
- ``weighting``: the cells of each judge whose log-probabilities never came
- ``pairwise``: A-against-B judges (both orders combined, consistency, first-position rate,
  validity with ties stated, juries, probe moves, win rates, rankings)
- ``pairwise_tables``: a run's pairwise criteria read from its scores (each cell's two orders as
  verdict rows) through ``pairwise``, and the card's evidence and flags for them
- ``usage``: calls, tokens and cost per model from the calls table
- ``bundle``: every table of a run in one pure call, for the report writers

Each analysis states its missing-data rule. May import: ``core`` (value types such as
``CriterionSpec``) and nothing else of judgegrid outside ``analyses`` (numpy, pandas and scipy).
"""
