"""``autofix explain``: from a rule code, a name or SGLang's pasted error back to the rule, and its manual.

- ``lookup``: what a query is (a code, a name, a traceback, a message) and the answer's text;
- ``sites``: SGLang's check sites and their messages' words, the data shipped in ``autofix/schema/``;
- ``rule_docs``: a rule's documentation rendered from its docstring (also docs/rules.md and SARIF help).

May import: ``autofix.common``, ``autofix.schema``, ``autofix.pipeline``, ``autofix.rules``.
"""
