"""The fuzz target's symlink cases in CI (``harness/fuzz/paths.py``): a fixed, derandomized budget (``ci`` profile).

By hand: ``HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/fuzz/test_fuzz_paths.py``, or
``python scripts/fuzz.py --minutes 30`` (random, with the other properties of the target).
"""

from __future__ import annotations

from hypothesis import given

from harness.fuzz.paths import Tree, check_tree, trees


@given(trees())
def test_nothing_outside_the_project_is_printed_or_written_unless_named(tree):
    check_tree(tree)


def test_the_issue_s_reproducers():
    """``autofix .`` in a project whose script names ``../outside/o0.yaml`` and ``/abs/outside/o0.yaml``, and whose
    tree holds ``link.yaml -> ../outside/o0.yaml`` (issue 29, cases 4 and 5)."""
    check_tree(Tree(outside=(("o0.yaml", "config", None), ("o1.sh", "script", "o0.yaml")),
                    entries=(("s0.sh", "script", (("", "relative", "out:o0.yaml"), ("", "absolute", "out:o0.yaml"),
                                                  ("", "link", "out:o0.yaml"))),
                             ("link.yaml", "link", "out:o0.yaml"), ("a/run.sh", "link", "out:o1.sh")),
                    named=(".",), cwd="", fmt="full"))
