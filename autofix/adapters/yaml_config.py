"""SGLang ``--config`` YAML files: a top-level mapping of server arguments.

Read exactly as SGLang 0.5.23 reads them (``ConfigArgumentMerger`` in
``sglang/srt/utils/server_args_config_parser.py``): PyYAML (SGLang's own
loader, YAML 1.1), then every key becomes the word ``--<key>`` verbatim and
its value is converted to words; the words are then read like a command line.
Node positions come from the same PyYAML parse, so edits land on the bytes
the values came from. The text is composed by ``yaml_nodes`` (within
``autofix.common.limits``), merge keys read as ``yaml.safe_load`` reads them: a
merged pair is a setting like any other, but is never edited in place (its
text is the anchor's, which other keys may read): its fix is reported, not
applied. A merged pair that an own key overrides is ``overridden``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

import yaml

from autofix.adapters.launch import Launch, no_config_argument
from autofix.adapters.syntax import yaml_nodes
from autofix.adapters.syntax.yaml_loader import yaml_column
from autofix.adapters.syntax.yaml_nodes import Composed, Merge
from autofix.common.arguments import Entry, ParsedArgs, Word, parse_words
from autofix.common.diagnostics import Drop, EntryOp, Location, Op, Respell, Revalue, Rewrite, Unset
from autofix.common.edits import Edit, merge_deletions
from autofix.common.errors import CannotEdit, InputError
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter, Source

NAME = "yaml"
SOURCE: Source = "config"  # what the argparse-stage rules see (``written.Written.source``)
CONFIG_FILES: Adapter | None = None  # a --config file's settings are its own: it names no other file SGLang reads
config_argument = no_config_argument
comments = yaml_nodes.comments  # where the comments are (``autofix.common.suppressions`` reads markers only there)
MAP_TAG = "tag:yaml.org,2002:map"  # what PyYAML resolves an untagged mapping to


@dataclass(slots=True)  # not frozen: see arguments.Word
class Pair:
    """One top-level ``key: value`` pair: its nodes, the option it names, its words.

    The adapter's own handle on a setting (what an edit needs: the nodes' spans, the merge key it came from),
    beside the ``arguments.Word``s its value becomes, which are what argparse reads."""

    key: str
    key_node: Any
    value_node: Any
    value: Any
    dest: str | None
    words: tuple[int, ...]
    # an srt-slurm sweep's zipped list when ``value_node`` is the one item a variant reads
    whole: Any = None
    merge: Merge | None = None  # the merge key (``<<: *base``) the pair came from


@dataclass(frozen=True, slots=True)
class Context:
    """The adapter's handle on one file: where the YAML starts, its pairs, its newline."""

    offset: int  # characters before the YAML stream (a BOM)
    root: Any  # the root MappingNode, or None for an empty document
    pairs: tuple[Pair, ...]
    newline: str


def _loc(mark: Any) -> Location:
    return _location(mark.line, mark.column)


@lru_cache(maxsize=4096)
def _location(line: int, column: int) -> Location:
    """The ``Location`` of a 0-based line and column: one shared object each (a ``Location`` is immutable), as
    making a frozen dataclass costs about four times the cache's look-up, and every pair needs three."""
    return Location(line + 1, column + 1)


class _NotJson(ValueError):
    """A mapping value ``json.dumps`` refuses; ``location`` is where it is written."""

    def __init__(self, location: Location, message: str) -> None:
        super().__init__(message)
        self.location = location


def _words_for(key: str, value: Any, key_node: Any, value_node: Any, index: int,
               store_true_keys: frozenset[str]) -> list[Word]:
    """The merger's conversion of one pair to words (server_args_config_parser.py:161)."""
    kloc, vloc = _loc(key_node.start_mark), _loc(value_node.start_mark)
    flag = Word(f"--{key}", kloc, ("key", index))
    if isinstance(value, bool):
        if key.replace("-", "_") in store_true_keys:
            return [flag] if value else []
        return [flag, Word(str(value).lower(), vloc, ("value", index))]
    if isinstance(value, list):
        if not value:
            return []
        return [flag, *(Word(str(v), vloc, ("item", index, i)) for i, v in enumerate(value))]
    if isinstance(value, dict):
        try:
            text = json.dumps(value)
        except (TypeError, ValueError) as exc:  # a !!binary or !!set inside: SGLang's reader fails the same way
            raise _NotJson(vloc, f"SGLang's config reader cannot pass {key!r} on as JSON ({exc}): it fails at "
                                 "start-up (server_args_config_parser.py:179)") from None
        return [flag, Word(text, vloc, ("value", index))]
    return [flag, Word(str(value), vloc, ("value", index))]


@cache
def _config_keys(schema: Schema, support: str) -> frozenset[str]:
    """Keys (dest, or a long flag without ``--`` and with ``_``) of options with this support."""
    keys: set[str] = set()
    for o in schema.options:
        if o.config_file == support:
            keys.add(o.dest)
            keys.update(f[2:].replace("-", "_") for f in o.flags if f.startswith("--"))
    return frozenset(keys)


class NotAConfig(InputError):
    """YAML that parses (PyYAML composes it) but that SGLang's ``--config`` reader refuses for what it holds:
    not a mapping, a key that is not a string, a value ``yaml.safe_load`` cannot build (an unknown tag), a
    mapping value ``json.dumps`` refuses. An error for a file meant as an SGLang config (its top-level keys
    say so), another file's business otherwise, whatever its strings mention: a GitHub workflow's ``on:`` key
    is a boolean, a playbook a list, CloudFormation's ``!Ref`` and GitLab's ``!reference`` are tags of their
    own (``one_file.OneFile._check``)."""


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """One launch: the file's settings.

    Raises ``InputError`` for YAML that does not parse or a file past ``autofix.common.limits``, and ``NotAConfig``
    for YAML that parses but is no mapping of option strings SGLang can read (see there).
    """
    offset = 1 if text.startswith("\ufeff") else 0
    doc = yaml_nodes.compose(text[offset:], path)
    yaml_nodes.check_as_safe_load(text[offset:], path)  # SGLang reads with yaml.safe_load
    root = doc.root
    if isinstance(root, yaml.ScalarNode) and root.tag == "tag:yaml.org,2002:null":
        root = None  # "---" and nothing else: safe_load gives None, SGLang reads {}
    if root is not None and not isinstance(root, yaml.MappingNode):
        kind = {yaml.SequenceNode: "a list", yaml.ScalarNode: "a scalar"}.get(type(root), "not a mapping")
        raise NotAConfig(
            path, root.start_mark.line + 1, root.start_mark.column + 1,
            f"an SGLang config must be a mapping at the top level, not {kind}",
        )
    if root is not None and root.tag != MAP_TAG:  # `!!str` or `!x` on the mapping: safe_load does not give a dict
        raise NotAConfig(path, root.start_mark.line + 1, root.start_mark.column + 1,
                         f"the top-level mapping is tagged {root.tag}: SGLang's loader does not read it as "
                         "a mapping")
    store_true_keys = _config_keys(schema, "store_true")
    try:
        read_pairs = read_pairs_of(doc, root, path)
    except NotAConfig:
        raise
    except InputError as exc:  # a value safe_load cannot build, a merge of no mapping: the YAML parses
        raise NotAConfig(exc.path, exc.line, exc.col, exc.message) from None
    # PyYAML builds a dict: a repeated key keeps its first position and its last value.
    last = {pair[0]: i for i, pair in enumerate(read_pairs)}
    words: list[Word] = []
    spans: dict[int, tuple[int, ...]] = {}
    for key in dict.fromkeys(pair[0] for pair in read_pairs):
        i = last[key]
        _, value, knode, vnode, _ = read_pairs[i]
        start = len(words)
        try:
            words.extend(_words_for(key, value, knode, vnode, i, store_true_keys))
        except _NotJson as exc:
            raise NotAConfig(path, exc.location.line, exc.location.col, str(exc)) from None
        spans[i] = tuple(range(start, len(words)))
    pairs = []
    for i, (key, value, knode, vnode, merge) in enumerate(read_pairs):
        m = schema.match(f"--{key}")
        pairs.append(Pair(key, knode, vnode, value, m.option.dest if m.option else None, spans.get(i, ()),
                          merge=merge))
    parsed = parse_words(schema, words)
    newline = "\r\n" if "\r\n" in text else "\n"
    at = _loc(root.start_mark) if root is not None else Location(1, 1)

    def words_for(key: str, value: Any, key_node: Any, value_node: Any, index: int) -> list[Word]:
        return _words_for(key, value, key_node, value_node, index, store_true_keys)

    entries = entries_of_pairs(pairs, parsed, last, words_for)
    return [Launch(parsed, at, Context(offset, root, tuple(pairs), newline), entries)]


def read_pairs_of(doc: Composed, node: Any, path: str) -> list[tuple[str, Any, Any, Any, Merge | None]]:
    """(key, value, key node, value node, merge key or None) of every pair of a mapping node, in the order
    ``yaml.safe_load`` reads them (merged pairs first; ``node`` None: none).

    Raises ``InputError`` for a value that does not construct or a key that is not a string.
    """
    out = []
    for pair in doc.pairs(node) if node is not None else ():
        knode, vnode = pair
        key, value = doc.construct(knode), doc.construct(vnode)
        if not isinstance(key, str):
            raise NotAConfig(path, knode.start_mark.line + 1, knode.start_mark.column + 1,
                             f"config keys must be strings, not {type(key).__name__} {key!r}")
        out.append((key, value, knode, vnode, doc.merge(node, pair)))
    return out


def entries_of_pairs(pairs: list[Pair], parsed: ParsedArgs, last: dict[str, int],
                     words_for: Callable[[str, Any, Any, Any, int], list[Word]],
                     flag_of: Callable[[str], str] = lambda key: f"--{key}") -> tuple[Entry, ...]:
    """One entry per key, in file order (see ``Entry``).

    ``last`` maps each key to the index of its last copy; ``words_for(key,
    value, key_node, value_node, index)`` gives the words a pair stands for
    (for the pairs SGLang never sees: repeated, ``false`` or empty);
    ``flag_of(key)`` the flag a key is read as.
    """
    problems = {p.index: p for p in parsed.problems}
    dests = {s.option_index: s.dest for s in parsed.occurrences}
    out = []
    words = parsed.words
    for i, p in enumerate(pairs):
        if p.words:
            values = tuple([words[k].text for k in p.words[1:]])  # a list first: tuple(<genexpr>) is slower
            problem = next((problems[k] for k in p.words if k in problems), None) if problems else None
            dest, ignored = dests.get(p.words[0]), None
        else:
            shadow = words_for(p.key, p.value, p.key_node, p.value_node, i)
            values = tuple(w.text for w in shadow[1:])
            problem, dest = None, p.dest
            # a merged copy an own key (or a later merge) overrides is what merge keys are for
            ignored = ("overridden" if p.merge is not None else "repeated") if last[p.key] != i \
                else "false" if p.value is False else "empty"
        out.append(Entry(i, flag_of(p.key), values, p.words, _loc(p.key_node.start_mark), dest, problem,
                         raw=p.value, ignored=ignored))
    return tuple(out)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Edits for argparse-stage fixes: rename a key, replace a value, remove or rewrite a pair.

    Raises ``CannotEdit`` when a pair cannot be removed on its own (it shares
    its line with another key), came from a merge key, or overrides a merged
    copy of its key (removing or renaming it would bring that value back).
    """
    ctx: Context = launch.ctx
    off = ctx.offset
    edits: list[Edit] = []
    merged: dict[str, int] = {}  # key -> the first pair of it a merge key gives
    for i, p in enumerate(ctx.pairs):
        if p.merge is not None:
            merged.setdefault(p.key, i)
    for op in ops:
        pair = ctx.pairs[op.entry]
        _not_merged(pair)
        if isinstance(op, (Drop, Respell, Rewrite)) and merged.get(pair.key, op.entry) < op.entry:
            _over_a_merge(pair, ctx.pairs[merged[pair.key]])
        if pair.whole is not None and isinstance(op, (Drop, Rewrite)):
            raise CannotEdit(f"{pair.key!r} holds one value per variant of the sweep: fix it by hand")
        if isinstance(op, Drop):
            edits.append(_delete_pair(text, off, pair))
        elif isinstance(op, Respell):
            k = pair.key_node
            edits.append(Edit(off + k.start_mark.index, off + k.end_mark.index,
                              render_scalar(op.flag[2:], getattr(k, "style", None))))
        elif isinstance(op, Revalue):
            if isinstance(pair.value_node, yaml.SequenceNode):
                node = pair.value_node.value[op.item]
                start = _past_anchor(text, off + node.start_mark.index, off + node.end_mark.index, pair.key)
                edits.append(Edit(start, off + node.end_mark.index,
                                  render_scalar(op.value, getattr(node, "style", None))))
            else:
                edits.append(_replace_value(text, off, pair, op.value))
        elif isinstance(op, Rewrite):
            start = off + pair.key_node.start_mark.index
            end = off + pair.value_node.end_mark.index
            if pair.value_node.start_mark.index < pair.key_node.end_mark.index:  # `key: *alias`
                end = _line_end(text, off + pair.key_node.end_mark.index)
            keep = text[start:end][len(text[start:end].rstrip()):]  # the line break a block value ends with
            flow = ctx.root is not None and ctx.root.flow_style
            indent = ", " if flow else ctx.newline + " " * yaml_column(text[off:], pair.key_node.start_mark.index)
            lines = [f"{flag[2:]}: {_yaml_values(values)}" for flag, values in op.settings]
            edits.append(Edit(start, end, indent.join(lines) + keep))
    return [_keep_missing_final_newline(text, e) for e in merge_deletions(edits)]


def render_scalar(value: Any, quote: str | None = None) -> str:
    """YAML text that SGLang's loader turns back into the word ``value`` stands for.

    ``quote`` keeps the quote style of the value being replaced.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(render_scalar(v) for v in value) + "]"
    text = str(value)
    if quote == "'" and "'" not in text and "\n" not in text:
        return f"'{text}'"
    if quote == '"' and '"' not in text and "\\" not in text and "\n" not in text:
        return f'"{text}"'
    if _reads_plain(text) and text == text.strip() and text:
        return text
    return "'" + text.replace("'", "''") + "'"


def _reads_plain(text: str) -> bool:
    """Whether ``text`` written plain reads back as the string ``text``."""
    return _reads_plain_short(text) if len(text) <= 256 else _reads_plain_uncached(text)


@lru_cache(maxsize=1024)
def _reads_plain_short(text: str) -> bool:
    """``_reads_plain`` of a short text, kept: fixes write the same few values file after file (``pil``)."""
    return _reads_plain_uncached(text)


def _reads_plain_uncached(text: str) -> bool:
    try:
        return bool(yaml_nodes.load(f"k: {text}\n") == {"k": text})
    except InputError:
        return False


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _line_end(text: str, i: int) -> int:
    """Index just past the newline that ends the line containing ``i`` (or len)."""
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Edits that make the file's settings follow ``ops``.

    Set on a written key replaces its value; Set on a store-true key written
    ``false`` flips it; Set on an absent key adds one line after the last
    pair, in the file's indentation and newline style; Unset deletes the
    lines of every pair that sets the dest. Raises ``CannotEdit`` when a
    change cannot be written in this file's layout (a flow-style root).
    """
    ctx: Context = launch.ctx
    off = ctx.offset
    settings = launch.parsed.settings
    edits: list[Edit] = []
    appended: list[str] = []
    for op in ops:
        option = schema[op.dest]
        if isinstance(op, Unset):
            # every pair that sets the dest, and the earlier copies of a repeated key
            live_keys = {p.key for p in ctx.pairs if p.dest == op.dest and p.words}
            if not live_keys:
                raise CannotEdit(f"cannot remove {option.flag}: the launcher adds it, not this file")
            for p in ctx.pairs:
                if p.dest == op.dest and p.key in live_keys:
                    edits.append(_delete_pair(text, off, p))
            continue
        setting = settings.get(op.dest)
        pair = _pair_of_word(ctx, setting.option_index) if setting is not None else None
        if pair is not None:
            if option.nargs == 0:  # store_true already on
                continue
            edits.append(_replace_value(text, off, pair, op.value))
            continue
        inert = [p for p in ctx.pairs if p.dest == op.dest and not p.words and isinstance(p.value, bool)]
        if inert and op.value is True:
            _not_merged(inert[-1])
            vnode = inert[-1].value_node
            edits.append(Edit(off + vnode.start_mark.index, off + vnode.end_mark.index, "true"))
            continue
        appended.append(f"{option.flag[2:]}: {render_scalar(op.value)}")
    if appended:
        edits.append(_append_lines(text, ctx, appended))
    return [_keep_missing_final_newline(text, e) for e in merge_deletions(edits)]


def _yaml_values(values: tuple[Any, ...]) -> str:
    """A key's value for the words ``values``: ``true`` for none (a store-true flag), a list for several."""
    if not values:
        return "true"
    return render_scalar(values[0] if len(values) == 1 else list(values))


def _not_merged(pair: Pair) -> None:
    """Raise ``CannotEdit`` for a pair that came from a merge key: its text is the anchor's."""
    if pair.merge is not None:
        raise CannotEdit(f"cannot change {pair.key!r}: {pair.merge.note}")


def _over_a_merge(pair: Pair, merged: Pair) -> None:
    """Raise ``CannotEdit``: ``pair`` overrides ``merged``, a copy of its key a merge key gives, which
    removing or renaming it would bring back."""
    merge = merged.merge
    assert merge is not None  # (a copy a merge key gives)
    raise CannotEdit(f"cannot remove or rename {pair.key!r}: it overrides the value of the merge key "
                     f"'{merge.written}' at {merge.where}, which would then apply; fix by hand")


def _replace_value(text: str, off: int, pair: Pair, value: Any) -> Edit:
    """Replace the value written for ``pair`` (a scalar, a block scalar or an alias)."""
    _not_merged(pair)
    vnode, knode = pair.value_node, pair.key_node
    if vnode.start_mark.index < knode.end_mark.index:  # `*alias`: the node is the anchored one
        m = re.compile(r"\s*:\s*(\*[^\s,\]}#]+)").match(text, off + knode.end_mark.index)
        if m is None:
            raise CannotEdit(f"cannot find the value of key {pair.key!r}")
        return Edit(m.start(1), m.end(1), render_scalar(value))
    start, end = off + vnode.start_mark.index, off + vnode.end_mark.index
    start = _past_anchor(text, start, end, pair.key)
    style = getattr(vnode, "style", None)
    if style in ("|", ">"):  # a block scalar ends after its line break: keep one
        newline = "\r\n" if text[start:end].endswith("\r\n") else "\n" if text[start:end].endswith("\n") else ""
        return Edit(start, end, render_scalar(value) + newline)
    return Edit(start, end, render_scalar(value, style))


def _pair_of_word(ctx: Context, word_index: int) -> Pair | None:
    """The pair a word came from; None for a word a launcher adds (srt-slurm's ``--disaggregation-mode``)."""
    return next((p for p in ctx.pairs if word_index in p.words), None)


_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)\s*")


def _past_anchor(text: str, start: int, end: int, key: str) -> int:
    """Where a value's own text begins: after its ``&anchor``, which stays.

    Raises ``CannotEdit`` when an alias (``*anchor``) elsewhere reads the
    value: changing it would change that other setting too.
    """
    m = _ANCHOR.match(text, start, end)
    if m is None:
        return start
    if _alias_used(text, m.group(1)):
        raise CannotEdit(f"cannot change {key!r}: its value is shared through the YAML anchor &{m.group(1)}")
    return m.end()


def _alias_used(text: str, name: str) -> bool:
    return re.search(rf"\*{re.escape(name)}(?![^\s,\[\]{{}}])", text) is not None


def _delete_pair(text: str, off: int, p: Pair) -> Edit:
    _not_merged(p)
    if p.whole is not None:
        raise CannotEdit(f"{p.key!r} holds one value per variant of the sweep: remove it by hand")
    start = off + p.key_node.start_mark.index
    end = off + p.value_node.end_mark.index
    if p.value_node.start_mark.index > p.key_node.end_mark.index:  # the value is written here, not an alias
        _past_anchor(text, off + p.value_node.start_mark.index, end, p.key)
    ls = max(_line_start(text, start), off)  # a BOM stays
    if text[ls:start].strip():
        raise CannotEdit(f"cannot remove key {p.key!r}: it shares its line with another key")
    le = _line_end(text, max(end - 1, start))
    rest = text[end:le].strip()
    if rest and not rest.startswith("#"):
        raise CannotEdit(f"cannot remove key {p.key!r}: it shares its line with another key")
    return Edit(ls, le, "")


def _keep_missing_final_newline(text: str, d: Edit) -> Edit:
    """A deletion of the last line(s) of a file without a final newline takes the newline before them."""
    if d.text or d.end != len(text) or text.endswith("\n") or d.start == 0:
        return d
    return Edit(d.start - (2 if text[d.start - 2 : d.start] == "\r\n" else 1), d.end, "")


def _append_lines(text: str, ctx: Context, lines: list[str]) -> Edit:
    nl = ctx.newline
    root, off = ctx.root, ctx.offset
    if root is not None and root.flow_style:
        raise CannotEdit("cannot add a key to a flow-style mapping ({...})")
    if root is None or not root.value:
        indent = ""
        body = nl.join(lines)
        if not text[off:].strip():  # empty or whitespace-only document
            return Edit(off, len(text), body + nl if text.endswith("\n") or not text[off:] else body)
        at = len(text)
        if text.endswith("\n"):
            return Edit(at, at, body + nl)
        return Edit(at, at, nl + body)
    last_key, last_value = root.value[-1]  # the last pair written (a merge key's too)
    indent = " " * yaml_column(text[off:], last_key.start_mark.index)
    end = off + last_value.end_mark.index
    if last_value.start_mark.index < last_key.end_mark.index:  # `key: *alias`: the node is written earlier
        end = off + yaml_nodes.alias_end(text[off:], last_key)
    at = end if text[end - 1 : end] == "\n" else _line_end(text, end)
    block = nl.join(indent + line for line in lines)
    if at == len(text) and not text.endswith("\n"):
        return Edit(at, at, nl + block)  # keep the file's missing final newline
    return Edit(at, at, block + nl)


def sglang_key(key: str, schema: Schema) -> bool:
    """Whether a top-level key names an SGLang option in full: a flag of one as the ``--config`` reader passes
    it (``tp-size``, the alias ``tensor-parallel-size``), or one spelt with ``_`` (``tp_size``), which SGLang
    refuses but whose author meant an SGLang option.

    An abbreviation (``tp``; ``image``, which argparse reads as ``--image-processor-backend``) is no evidence:
    short words start some option or other. SGLang still reads one in a file that is a config.
    """
    if "=" in key:
        return False  # `--a=b` is a flag and its value to argparse, never a key's name
    found = schema.match(f"--{key}")
    if found.status == "exact" and found.option is not None:  # (an exact match names its option)
        return found.option.dest != "help"  # argparse's own option: no server argument
    return "_" in key and schema.match(f"--{key.replace('_', '-')}").status == "exact"


def _meant_for_sglang(keys: list[str], schema: Schema) -> bool:
    known = sum(1 for k in keys if sglang_key(k, schema))
    return known >= 1 and 2 * known >= len(keys)


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """True when at least half of the top-level keys name SGLang options (``sglang_key``): other YAML is
    skipped, not reported (a GitHub workflow, a Helm values file)."""
    pairs = launches[0].ctx.pairs if launches else ()
    if schema is None:
        from autofix.schema import load

        schema = load()
    return _meant_for_sglang([p.key for p in pairs], schema)


# a top-level key, or the first key of a top-level list's mapping item (`- tp-size: 8`)
_TOP_KEY = re.compile(r"^(?:\ufeff)?(?:-[ \t]+)?(['\"]?)([A-Za-z_][\w.-]*)\1[ \t]*:(?:[ \t]|$)", re.MULTILINE)


def looks_like_config_text(text: str, schema: Schema) -> bool:
    """``looks_like_config`` for a text that does not read as an SGLang config (invalid YAML, not a mapping):
    its top-level keys are found line by line. Decides whether a directory walk reports the file or skips it,
    and whether a named file is an error or not meant for autofix."""
    return _meant_for_sglang([m.group(2) for m in _TOP_KEY.finditer(text)], schema)
