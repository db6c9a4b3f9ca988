"""What tests/ and scripts/ share to check autofix: not shipped (pyproject's package discovery takes autofix only).

- ``oracle/``: SGLang 0.5.23's own verdicts (``oracle.run_batch``, through ../shared/oracle), the fidelity
  harness (``fidelity``: drawn configs judged by autofix and by SGLang; ``families/``, the rule families'
  draws) and the stand-in model configs the oracle reads (``models/``).
- ``rules/``: the rule cases, one ``cases_<family>.py`` per family (where a rule's cases are written), what a
  case is (``casekit``), and the verdicts the oracle gave them (``oracle-verdicts.json``).
- ``fuzz/``: the fuzz target (``target.check_input``, ``paths.check_tree``) and what it is fed (``strategies``).
- ``unified``: an applier of unified diffs, independent of autofix's.

Nothing here imports from tests/, and neither does scripts/ (tests/test_layout.py).
"""
