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

A recipe that sweeps variants (``base:`` plus ``override_*`` and
``zip_override_*`` sections, srt-slurm's config overrides) gives a launch
per role of the base and of every variant; text the base and several
variants read is edited only when each of them needs that edit.

The recipe is composed by ``yaml_nodes`` (within ``autofix.common.limits``); merge
keys are read as srtctl's ``yaml.safe_load`` reads them. A role mapping
that merges another (``decode: {<<: *prefill, ...}``) reads that mapping's
text too: its merged keys are never edited from it (``CannotEdit``), and an
edit there by the launch that owns it must suit every launch that merges it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import yaml

from autofix.adapters import yaml_config
from autofix.adapters.launch import Launch, no_config_argument
from autofix.adapters.syntax import yaml_nodes
from autofix.adapters.syntax.yaml_nodes import Composed
from autofix.adapters.yaml_config import Context, Pair, _loc, entries_of_pairs, read_pairs_of
from autofix.common.arguments import Word, parse_words
from autofix.common.diagnostics import EntryOp, Op
from autofix.common.edits import Edit
from autofix.common.errors import CannotEdit, InputError
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter, Source

NAME = "srt-slurm"
SOURCE: Source = "recipe"  # keys as written, flags as read (``written.Written.source``)
CONFIG_FILES: Adapter | None = None  # srtctl hands SGLang flags, not a --config file
config_argument = no_config_argument
comments = yaml_nodes.comments  # where the comments are (``autofix.common.suppressions`` reads markers only there)
MODES = {"prefill": "prefill", "decode": "decode"}  # role -> --disaggregation-mode srtctl adds

def _keeps_a_key(launch: Launch, gone: set[str]) -> None:
    """Raise ``CannotEdit`` when removing the keys ``gone`` would empty one of the launch's role mappings.

    An emptied ``decode:`` reads as null, and srtctl starts no decode worker from it (in a variant:
    the role is deleted).
    """
    ctx = launch.ctx
    for a, b in getattr(ctx, "mappings", ()) or ((ctx.offset + ctx.root.start_mark.index,
                                                     ctx.offset + ctx.root.end_mark.index),):
        keys = {p.key for p in ctx.pairs if a <= ctx.offset + p.key_node.start_mark.index < b}
        if keys and keys <= gone:
            raise CannotEdit("removing the last key of a role mapping would leave the role empty, "
                             "which srtctl reads as no worker: fix it by hand")


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """``yaml_config.edit``, refusing to empty a role mapping."""
    from autofix.common.diagnostics import Unset

    _keeps_a_key(launch, {p.key for op in ops if isinstance(op, Unset) for p in launch.ctx.pairs
                          if p.dest == op.dest})
    return yaml_config.edit(text, launch, ops, schema)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """``yaml_config.edit_entries``; a renamed key is renamed in the layers it overrides too.

    A sweep variant that overrides the base's ``cuda-graph-max-bs`` and
    renames its own copy renames the base's as well, so that its override
    still overrides (and agrees with the base launch's own rename).
    """
    from autofix.common.diagnostics import Respell

    ctx = launch.ctx
    more = []
    for op in ops:
        if isinstance(op, Respell):
            key = ctx.pairs[op.entry].key
            more += [Respell(e.index, op.flag) for e in launch.entries
                     if e.ignored == "overridden" and ctx.pairs[e.index].key == key and e.index != op.entry]
    from autofix.common.diagnostics import Drop

    _keeps_a_key(launch, {ctx.pairs[op.entry].key for op in ops if isinstance(op, Drop)})
    return yaml_config.edit_entries(text, launch, [*ops, *more], schema)


def flag_of(key: str) -> str:
    """The flag srtctl writes for a key: ``tp_size`` -> ``--tp-size``."""
    return "--" + key.replace("_", "-")


def _words_for(key: str, value: Any, key_node: Any, value_node: Any, index: int) -> list[Word]:
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


@dataclass(frozen=True, slots=True)
class RoleContext(Context):
    """A role launch's context: the mappings it reads (a sweep variant: the base's and its section's).

    ``covers`` says what text a launch reads, for ``core.proposals.Proposals``: all of
    every mapping it merges (a key a later layer overrides included, since
    a fix there, a rename, can change what the override overrides), except
    the items of a zipped list that belong to other variants.
    """

    mappings: tuple[tuple[int, int], ...] = ()
    elsewhere: tuple[tuple[int, int], ...] = ()  # other variants' items of zipped lists
    merged: tuple[tuple[int, int], ...] = ()  # mappings its own merge through merge keys (``<<: *prefill``)

    def covers(self, edit: Edit) -> bool:
        """Whether ``edit`` changes text this launch reads."""
        if any(a <= edit.start and edit.end <= b for a, b in self.elsewhere):
            return False
        spans = self.mappings + self.merged
        if edit.start == edit.end:
            return any(a <= edit.start <= b for a, b in spans)
        return any(edit.start < b and edit.end > a for a, b in spans)


def _roles(doc: Composed, section: Any) -> dict[str, tuple[Any, Any]]:
    """role -> (role key node, mapping node or None for ``role: null``) of a section's backend.sglang_config."""
    roles = doc.value(doc.value(section, "backend"), "sglang_config")
    if not isinstance(roles, yaml.MappingNode):
        return {}
    return {str(k.value): (k, v if isinstance(v, yaml.MappingNode) else None) for k, v in doc.pairs(roles)}


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """One launch per role mapping of ``backend.sglang_config``, in file order.

    A recipe with ``base:`` sweeps variants (srt-slurm's config overrides):
    the base's roles are launches (``srtctl apply -f FILE:base``), and so is
    every role of every variant: an ``override_*`` section deep-merged over
    the base, or each variant ``i`` of a ``zip_override_*`` section, whose
    list leaves give variant ``i`` their item ``i`` (one item: every
    variant). Raises ``InputError`` for invalid YAML, a recipe past
    ``autofix.common.limits``, or zipped lists of different lengths. A recipe
    without ``sglang_config`` has no launches.
    """
    offset = 1 if text.startswith("\ufeff") else 0
    doc = yaml_nodes.compose(text[offset:], path)
    root = doc.root
    newline = "\r\n" if "\r\n" in text else "\n"
    launches = []
    base = doc.value(root, "base")
    for key_node, mapping in _roles(doc, base if base is not None else root).values():
        if mapping is not None:  # `decode: null`: srtctl starts no worker from it
            launches.append(_launch(doc, key_node, [(mapping, None)], offset, newline, path, schema))
    if base is not None:
        launches.extend(_variants(doc, root, _roles(doc, base), offset, newline, path, schema))
    return launches


def _variants(doc: Composed, root: Any, base_roles: dict[str, tuple[Any, Any]], offset: int, newline: str, path: str,
              schema: Schema) -> list[Launch]:
    """The launches of each variant the recipe's ``override_*`` and ``zip_override_*`` sections make (``read``)."""
    out = []
    for name_node, section in doc.effective(root):
        name = str(name_node.value)
        if name.startswith("override_"):
            count, zipped = 1, False
        elif name.startswith("zip_override_"):
            count, zipped = _zip_count(doc, section, path), True
        else:
            continue
        own = _roles(doc, section)
        for i in range(count):
            for role in [*base_roles, *(r for r in own if r not in base_roles)]:
                base_key, base_map = base_roles.get(role, (None, None))
                key_node, mapping = own.get(role, (None, None))
                if key_node is not None and mapping is None:
                    continue  # `role: null` deletes the role
                layers = [(m, z) for m, z in ((base_map, None), (mapping, i if zipped else None)) if m is not None]
                if layers:
                    out.append(_launch(doc, key_node or base_key, layers, offset, newline, path, schema))
    return out


def _zip_count(doc: Composed, section: Any, path: str) -> int:
    """How many variants a ``zip_override_*`` section makes: the length its list leaves share (1 broadcasts)."""
    lengths: dict[int, Any] = {}
    # a walk in file order without recursion: one iterator per mapping being read, the innermost last
    todo = [iter(doc.effective(section))] if isinstance(section, yaml.MappingNode) else []
    while todo:
        for _, v in todo[-1]:
            if isinstance(v, yaml.SequenceNode):
                lengths.setdefault(len(v.value), v)
            elif isinstance(v, yaml.MappingNode):
                todo.append(iter(doc.effective(v)))
                break
        else:
            todo.pop()
    many = sorted(n for n in lengths if n != 1)
    if len(many) > 1:
        node = lengths[many[1]]
        raise InputError(path, node.start_mark.line + 1, node.start_mark.column + 1,
                         f"zipped lists of different lengths ({', '.join(map(str, many))}): srtctl refuses the sweep")
    return many[0] if many else 1


def _layer_pairs(doc: Composed, mapping: Any, index: int | None, path: str) -> list[tuple[Any, ...]]:
    """(key, value, key node, value node, whole list or None, merge key or None) of a layer;
    a zipped list gives variant ``index``'s item."""
    out = []
    for key, value, knode, vnode, merge in read_pairs_of(doc, mapping, path):
        whole = None
        if index is not None and isinstance(vnode, yaml.SequenceNode) and vnode.value:
            whole, vnode = vnode, vnode.value[0 if len(vnode.value) == 1 else index]
            value = doc.construct(vnode)
        out.append((key, value, knode, vnode, whole, merge))
    return out


def _launch(doc: Composed, role_node: Any, layers: list[tuple[Any, int | None]], offset: int, newline: str, path: str,
            schema: Schema) -> Launch:
    """One launch from role mappings merged in order (a later layer's key wins; its ``null`` deletes the key)."""
    role_loc = _loc(role_node.start_mark)
    words = [Word("--model-path", role_loc), Word("/model", role_loc)]
    mode = MODES.get(str(role_node.value))
    if mode:
        words += [Word("--disaggregation-mode", role_loc), Word(mode, role_loc)]
    # srtctl writes the flags in sorted key order (a repeated key: its last value, as a dict keeps it),
    # so `tp-size` comes before `tp_size` whatever the file order: entries follow that order too
    read_pairs = sorted(((key, value, knode, vnode, whole, layer, merge)
                         for layer, (mapping, index) in enumerate(layers)
                         for key, value, knode, vnode, whole, merge in _layer_pairs(doc, mapping, index, path)),
                        key=lambda pair: pair[0])
    last = {key: i for i, (key, *_) in enumerate(read_pairs)}
    spans: dict[int, tuple[int, ...]] = {}
    for key in sorted(last):
        i = last[key]
        _, value, knode, vnode, *_ = read_pairs[i]
        start = len(words)
        words.extend(_words_for(key, value, knode, vnode, i))
        spans[i] = tuple(range(start, len(words)))
    pairs = []
    for i, (key, value, knode, vnode, whole, _, merge) in enumerate(read_pairs):
        m = schema.match(flag_of(key))
        pairs.append(Pair(key, knode, vnode, value, m.option.dest if m.option else None, spans.get(i, ()), whole,
                          merge))
    parsed = parse_words(schema, words)
    entries = entries_of_pairs(pairs, parsed, last, _words_for, flag_of)
    # a key the next layer sets again is overridden, not repeated (ARG007 is about one mapping)
    entries = tuple(replace(e, ignored="overridden") if e.ignored == "repeated"
                    and read_pairs[e.index][5] < read_pairs[last[read_pairs[e.index][0]]][5] else e for e in entries)
    mappings = tuple((offset + m.start_mark.index, offset + m.end_mark.index) for m, _ in layers)
    merged = tuple((offset + n.start_mark.index, offset + n.end_mark.index)
                   for m, _ in layers for n in doc.merged_mappings(m))
    elsewhere = tuple((offset + item.start_mark.index, offset + item.end_mark.index)
                      for p in pairs if p.whole is not None and len(p.whole.value) > 1
                      for item in p.whole.value if item is not p.value_node)
    return Launch(parsed, role_loc, RoleContext(offset, layers[-1][0], tuple(pairs), newline, mappings, elsewhere,
                                                merged), entries)


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """A recipe counts when it has at least one SGLang launch."""
    return bool(launches)
