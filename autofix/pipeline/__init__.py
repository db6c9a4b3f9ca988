"""SGLang's resolution pipeline, step by step: the core the settings rules run in.

- ``facts``: what SGLang reads besides the settings (hardware, model, environment), known or not;
- ``view``: ``ResolvingView``, the settings as a step sees them, and ``Unknown``;
- ``items``: ``Position``, ``Derivation`` and ``SettingsRule``, and their decorators;
- ``run``: ``resolve``, which runs them in SGLang's order.

The step list itself is data, generated from each SGLang release with the
argument table (``Schema.steps``).

May import: ``autofix.common``, ``autofix.schema``.
"""
