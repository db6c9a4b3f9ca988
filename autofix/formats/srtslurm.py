"""srt-slurm recipes: SGLang settings as mappings under ``backend.sglang_config.<role>``.

Each role mapping (``prefill``, ``decode``, ``aggregated``) is one launch.
srtctl does not hand the mapping to SGLang as a ``--config`` file: it turns
it into command-line flags (``_config_to_cli_args`` in srtctl's SGLang
backend), and that is how it is read here:

- keys in sorted order; ``_`` in a key becomes ``-``, and ``--`` is put in front;
- ``true`` is the bare flag, ``false`` and null are left out;
- a list is the flag followed by each item; anything else is the flag and ``str(value)``.

Before those flags srtctl passes ``--model-path /model`` and, for prefill and
decode workers, ``--disaggregation-mode <role>``; they are read as words no
key wrote, so a later key overrides them as it does at launch. Edits reuse
the ``--config`` adapter's minimal YAML edits, on the role's mapping.

A recipe that sweeps variants (``base:`` plus ``zip_override_*:`` sections
merged over it, lists zipped across variants) is checked on its base
launches only; the overrides are not merged here.
"""

from __future__ import annotations

from typing import Any

import yaml

from autofix.arguments import Word, parse_words
from autofix.formats import yaml_config
from autofix.formats.launch import Launch
from autofix.formats.yaml_config import Context, Pair, _compose, _loc, entries_of_pairs, read_pairs_of
from autofix.schema import Schema

NAME = "srt-slurm"
SOURCE = "recipe"  # keys as written, flags as read (``written.Written.source``)
MODES = {"prefill": "prefill", "decode": "decode"}  # role -> --disaggregation-mode srtctl adds

edit = yaml_config.edit
edit_entries = yaml_config.edit_entries


def _child(node, key: str):
    """The value node of ``key`` in a mapping node, else None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def flag_of(key: str) -> str:
    """The flag srtctl writes for a key: ``tp_size`` -> ``--tp-size``."""
    return "--" + key.replace("_", "-")


def _words_for(key: str, value: Any, key_node, value_node, index: int) -> list[Word]:
    """srtctl's conversion of one pair to words (see the module docstring)."""
    kloc, vloc = _loc(key_node.start_mark), _loc(value_node.start_mark)
    flag = Word(flag_of(key), kloc, ("key", index))
    if isinstance(value, bool):
        return [flag] if value else []
    if value is None:
        return []
    if isinstance(value, list):
        return [flag, *(Word(str(v), vloc, ("item", index, i)) for i, v in enumerate(value))]
    return [flag, Word(str(value), vloc, ("value", index))]


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """One launch per role mapping of ``backend.sglang_config``, in file order.

    Raises ``InputError`` for invalid YAML. A recipe without
    ``sglang_config`` has no launches.
    """
    offset = 1 if text.startswith("\ufeff") else 0
    loader, root = _compose(text[offset:], path)
    newline = "\r\n" if "\r\n" in text else "\n"
    launches = []
    try:
        backend = _child(root, "backend") or _child(_child(root, "base"), "backend")  # a zip-override recipe's base
        roles = _child(backend, "sglang_config")
        for role_node, mapping in roles.value if isinstance(roles, yaml.MappingNode) else ():
            if not isinstance(mapping, yaml.MappingNode):
                continue  # `decode: null`: srtctl starts no worker from it
            launches.append(_launch(loader, role_node, mapping, offset, newline, path, schema))
    finally:
        loader.dispose()
    return launches


def _launch(loader, role_node, mapping, offset: int, newline: str, path: str, schema: Schema) -> Launch:
    role_loc = _loc(role_node.start_mark)
    words = [Word("--model-path", role_loc), Word("/model", role_loc)]
    mode = MODES.get(str(role_node.value))
    if mode:
        words += [Word("--disaggregation-mode", role_loc), Word(mode, role_loc)]
    # srtctl writes the flags in sorted key order (a repeated key: its last value, as a dict keeps it),
    # so `tp-size` comes before `tp_size` whatever the file order: entries follow that order too
    read_pairs = sorted(read_pairs_of(loader, mapping, path), key=lambda pair: pair[0])
    last = {key: i for i, (key, *_) in enumerate(read_pairs)}
    spans: dict[int, tuple[int, ...]] = {}
    for key in sorted(last):
        i = last[key]
        _, value, knode, vnode = read_pairs[i]
        start = len(words)
        words.extend(_words_for(key, value, knode, vnode, i))
        spans[i] = tuple(range(start, len(words)))
    pairs = []
    for i, (key, value, knode, vnode) in enumerate(read_pairs):
        m = schema.match(flag_of(key))
        pairs.append(Pair(key, knode, vnode, value, m.option.dest if m.option else None, spans.get(i, ())))
    parsed = parse_words(schema, words)
    entries = entries_of_pairs(pairs, parsed, last, _words_for, flag_of)
    return Launch(parsed, role_loc, Context(offset, mapping, tuple(pairs), newline), entries)


def looks_like_config(launches: list[Launch]) -> bool:
    """A recipe counts when it has at least one SGLang launch."""
    return bool(launches)
