"""The rule cases (``cases``: every ``cases_<family>.py``), what a case is (``casekit``), and their recorded verdicts."""
