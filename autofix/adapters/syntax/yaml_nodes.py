"""YAML text -> composed nodes, for every YAML adapter: bounded, and read as SGLang's loader reads it.

``compose(text, path)`` gives the one document of a ``--config`` file or an
srt-slurm recipe, ``compose_all(text, path)`` every document of a manifest;
both return a ``Composed``: the node graph of PyYAML's C composer (libyaml,
SGLang's own loader) plus the reading of it that ``yaml.safe_load`` makes:

- ``pairs(mapping)``: its pairs with merge keys (``<<: *base``,
  ``<<: [*a, *b]``) flattened by PyYAML's own
  ``SafeConstructor.flatten_mapping`` (the merged pairs first, then the
  mapping's own; a later key wins), without changing the node graph;
  ``merge(mapping, pair)`` says which merge key a pair came from;
- ``construct(node)``: the Python value, built as PyYAML's
  ``construct_document`` builds it (no recursion: ``state_generators`` are
  drained in a loop), on those flattened mappings.

The limits of ``autofix.common.limits`` hold before anything is built (``yaml_limits``), and every YAML error
is an ``InputError`` at a real 1-based line:col (1:1 when PyYAML gives no position; ``yaml_loader``).

With both limits, a walk over the composed graph that follows aliases
visits at most ``MAX_YAML_NODES`` nodes and nests at most
``MAX_YAML_DEPTH`` levels (the expanded height is bounded too, through
aliases and merge keys), far inside Python's default recursion limit.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from autofix.adapters.syntax.yaml_limits import STOP, check_limits
from autofix.adapters.syntax.yaml_loader import Composer, Loader, input_error, renumber
from autofix.common.errors import InputError

MERGE = "tag:yaml.org,2002:merge"
_STR, _INT, _BOOL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool"
_VALUE = "tag:yaml.org,2002:value"  # a plain `=` key, which flatten_mapping reads as the string "="

Pair = tuple[yaml.Node, yaml.Node]  # a mapping's (key node, value node)


def compose(text: str, path: str) -> Composed:
    """The single document of ``text`` (``root`` None for an empty stream).

    Raises ``InputError`` for invalid YAML, a second document, or a limit crossed.
    """
    check_limits(text, path)
    loader = Composer(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise input_error(exc, text, path) from None
    except RecursionError:  # only PyYAML's pure-Python composer (no libyaml) recurses, ~2 frames a level
        raise InputError(path, 1, 1, f"YAML nested too deeply for PyYAML's composer; {STOP}") from None
    finally:
        loader.dispose()
    if root is not None:
        renumber(text, [root])
    return Composed(text, path, (root,) if root is not None else ())


def comments(text: str, path: str = "-") -> list[tuple[int, int]]:
    """The spans of the comments of the YAML stream ``text``, in order: each from its ``#`` to the end of its line.

    libyaml's scanner (SGLang's loader's) gives every token of the stream
    with its span; what lies between two tokens is blanks, line breaks and
    comments, so every ``#`` there starts a comment. A ``#`` inside a token
    is the token's: in a plain, quoted, literal or folded scalar, a tag, an
    anchor, a directive. A block scalar's header (``| # why``) is the one
    comment inside a token: the rest of the ``|``/``>`` line. A comment ends
    at a YAML line break (a lone CR, NEL, LS and PS too). Raises
    ``InputError`` for a text libyaml does not scan (no adapter reads one).
    """
    offset = 1 if text.startswith("\ufeff") else 0  # libyaml counts no BOM
    out: list[tuple[int, int]] = []
    gap = offset  # where the text after the last token starts
    loader = Loader(text[offset:])
    try:
        while (token := loader.get_token()) is not None:
            start, end = offset + token.start_mark.index, offset + token.end_mark.index
            _comments_in(text, gap, start, out)
            if isinstance(token, yaml.ScalarToken) and token.style in ("|", ">"):
                header = _BREAK.search(text, start, end)
                _comments_in(text, start, header.start() if header else end, out)
            gap = max(gap, end)
    except yaml.YAMLError as exc:
        raise input_error(exc, text[offset:], path) from None
    finally:
        loader.dispose()
    _comments_in(text, gap, len(text), out)
    return out


_BREAK = re.compile("[\r\n\x85\u2028\u2029]")


def _comments_in(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Add to ``out`` every comment of ``text[start:end]``, text in which every ``#`` starts one."""
    at = text.find("#", start, end)
    while at >= 0:
        stop = _BREAK.search(text, at, end)
        out.append((at, stop.start() if stop else end))
        at = text.find("#", stop.end(), end) if stop else -1


def check_as_safe_load(text: str, path: str) -> None:
    """Raise ``InputError`` where PyYAML's own scanner, which ``yaml.safe_load`` uses, refuses ``text``.

    autofix reads with libyaml (``Loader``), which takes a tab where the pure-Python scanner refuses it
    (``tp-size: 8\\t# comment``: "found character '\\t' that cannot start any token"); SGLang's loader is the
    pure-Python one. Only a text with a tab is parsed again, events only (no alias is expanded).
    """
    if "\t" not in text or not yaml.__with_libyaml__:
        return
    try:
        for _ in yaml.parse(text, Loader=yaml.SafeLoader):
            pass
    except yaml.YAMLError as exc:
        raise input_error(exc, text, path) from None


def compose_all(text: str, path: str) -> Composed:
    """Every document of ``text``, in order. Raises ``InputError`` as ``compose`` does."""
    check_limits(text, path)
    loader = Composer(text)
    try:
        nodes: list[yaml.Node] = []
        while loader.check_node():
            nodes.append(loader.get_node())  # type: ignore[arg-type]  # a node follows: check_node said so
    except yaml.YAMLError as exc:
        raise input_error(exc, text, path) from None
    except RecursionError:
        raise InputError(path, 1, 1, f"YAML nested too deeply for PyYAML's composer; {STOP}") from None
    finally:
        loader.dispose()
    renumber(text, nodes)
    return Composed(text, path, tuple(nodes))


def load(text: str, path: str = "-") -> Any:
    """``yaml.safe_load(text)`` within the limits (None for an empty stream). Raises ``InputError``."""
    composed = compose(text, path)
    return composed.construct(composed.root) if composed.root is not None else None


class Merge:
    """The merge key a mapping's pair came from: the ``<<`` key node and its value as written.

    (A plain class: a dataclass costs ~0.5 ms of every start.)
    """

    __slots__ = ("key", "written")

    def __init__(self, key: yaml.ScalarNode, written: str) -> None:
        self.key = key
        self.written = written  # "<<: *base", "<<: [*a, *b]"

    @property
    def where(self) -> str:
        return f"{self.key.start_mark.line + 1}:{self.key.start_mark.column + 1}"

    @property
    def note(self) -> str:
        """Why such a pair is not edited in place, for a ``CannotEdit``."""
        return f"the value comes from the merge key '{self.written}' at {self.where}; fix by hand"


class Composed:
    """A composed YAML stream and the reading ``yaml.safe_load`` makes of its nodes.

    ``documents``: the root node of each document; ``root``: the first, or
    None. Node positions (``start_mark.index``) are offsets into ``text``.
    ``aliases`` is False when no node can be reached twice (no ``*`` in the text).
    """

    def __init__(self, text: str, path: str, documents: tuple[yaml.Node, ...]) -> None:
        self.text, self.path, self.documents = text, path, documents
        self.root = documents[0] if documents else None
        self.aliases = "*" in text  # else no node is reached twice
        self._merges = "<<" in text or "=" in text  # else no mapping needs flattening
        self._flat: dict[int, tuple[list[Pair], dict[int, Merge]]] = {}
        self._constructor: _Constructor | None = None

    def pairs(self, node: yaml.MappingNode) -> list[Pair]:
        """The (key node, value node) pairs ``yaml.safe_load`` builds the mapping from, in order.

        Merge keys flattened as PyYAML's ``flatten_mapping`` does; a key
        written twice is there twice (the dict keeps the last). Raises
        ``InputError`` for a merge of something that is not a mapping.
        """
        if not self._merges:
            own: list[Pair] = node.value  # (the stubs leave a node's value untyped)
            return own
        return self._flatten(node)[0]

    def merge(self, node: yaml.MappingNode, pair: Pair) -> Merge | None:
        """The merge key of ``node`` that ``pair`` (one of ``pairs(node)``) came from; None for an own pair."""
        if not self._merges:
            return None
        return self._flatten(node)[1].get(id(pair))

    def merged_mappings(self, node: yaml.MappingNode) -> list[yaml.MappingNode]:
        """The mappings whose pairs ``node`` merges, directly or through their own merge keys."""
        out, todo, seen = [], [node], {id(node)}
        while todo:
            for key, value in todo.pop().value:
                if key.tag != MERGE:
                    continue
                for m in value.value if isinstance(value, yaml.SequenceNode) else [value]:
                    if isinstance(m, yaml.MappingNode) and id(m) not in seen:
                        seen.add(id(m))
                        out.append(m)
                        todo.append(m)
        return out

    def get(self, node: Any, key: str) -> Pair | None:
        """The pair of scalar key ``key`` that a loaded mapping keeps (the last one), or None.

        None too when ``node`` is not a ``yaml.MappingNode`` (None included).
        """
        if not isinstance(node, yaml.MappingNode):
            return None
        found = None
        for pair in self.pairs(node):
            if isinstance(pair[0], yaml.ScalarNode) and pair[0].value == key:
                found = pair
        return found

    def value(self, node: Any, key: str) -> yaml.Node | None:
        """The value node of ``get(node, key)``, or None."""
        pair = self.get(node, key)
        return pair[1] if pair is not None else None

    def effective(self, node: yaml.MappingNode) -> list[Pair]:
        """``pairs(node)`` less the merged pairs a later pair of the same scalar key overrides.

        What a walk over the loaded mapping should visit: an overridden
        merged value is not part of it. (A key written twice in the mapping
        itself is kept twice, as the walks have always read it.)
        """
        pairs = self.pairs(node)
        if not self._merges or not self._flatten(node)[1]:
            return pairs
        last = {}
        for i, (k, _) in enumerate(pairs):
            if isinstance(k, yaml.ScalarNode):
                last[(k.tag, k.value)] = i
        merged = self._flatten(node)[1]
        return [p for i, p in enumerate(pairs) if id(p) not in merged or not isinstance(p[0], yaml.ScalarNode)
                or last[(p[0].tag, p[0].value)] == i]

    def construct(self, node: yaml.Node) -> Any:
        """The value ``yaml.safe_load`` makes of ``node`` (a node shared through an alias: one object).

        Raises ``InputError`` where a value cannot be constructed (an
        unknown tag, an unhashable key, ``!!int x``, ``2001-02-30``).
        """
        if node.__class__ is yaml.ScalarNode:  # most values: what PyYAML's constructor gives, without its dispatch
            tag, text = node.tag, node.value
            if tag == _STR:
                return text  # construct_yaml_str: the scalar's text
            if tag == _INT and len(text) < 19 and text.isascii() and text.isdigit() and (text[0] != "0" or text == "0"):
                # construct_yaml_int of plain decimal digits (no sign, `_`, base or `:`; short: int() takes it)
                return int(text)
            if tag == _BOOL and text.lower() in SafeConstructor.bool_values:
                return SafeConstructor.bool_values[text.lower()]  # construct_yaml_bool
        if self._constructor is None:
            self._constructor = _Constructor(self)
        c = self._constructor
        try:
            data = c.construct_object(node)
            while c.state_generators:  # construct_document's loop: each collection filled, no recursion
                generators, c.state_generators = c.state_generators, []
                for generator in generators:
                    for _ in generator:
                        pass
        except yaml.YAMLError as exc:
            self._constructor = None  # its state is half-built
            raise input_error(exc, self.text, self.path) from None
        return data

    def _flatten(self, node: yaml.MappingNode) -> tuple[list[Pair], dict[int, Merge]]:
        """(pairs, id(pair) -> its merge key) for a mapping, memoised.

        PyYAML's own ``flatten_mapping`` (whose result changed in 6.0.4: a
        key two mappings of ``<<: [*a, *b]`` both write is now ``b``'s) on
        the real nodes, which it rewrites in place; their pair lists are put
        back after, so that the graph stays as written. Its recursion
        follows merge keys only: at most ``MAX_YAML_DEPTH`` deep (each
        merge nests the mapping it merges one level deeper).
        """
        done = self._flat.get(id(node))
        if done is not None:
            return done
        if not any(k.tag in (MERGE, _VALUE) for k, _ in node.value):
            done = self._flat[id(node)] = (node.value, {})
            return done
        closure = [node, *self.merged_mappings(node)]
        saved = [(m, list(m.value)) for m in closure]
        origin: dict[int, Merge] = {}
        try:
            SafeConstructor.flatten_mapping(_FLATTENER, node)
            pairs = node.value
            # each mapping merged is flattened in place now: its pairs are those `node` took from it
            for key, value in saved[0][1]:
                if key.tag == MERGE:
                    merge = Merge(key, "<<: " + _written(self.text, key, value))
                    for m in value.value if isinstance(value, yaml.SequenceNode) else [value]:
                        for pair in m.value:
                            origin.setdefault(id(pair), merge)
        except ConstructorError as exc:
            raise input_error(exc, self.text, self.path) from None
        finally:
            for m, value in saved:
                m.value = value
        own = {id(p) for p in node.value}
        done = self._flat[id(node)] = (pairs, {id(p): origin[id(p)] for p in pairs if id(p) not in own})
        return done


_FLATTENER = SafeConstructor()


class _Constructor(SafeConstructor):
    """PyYAML's SafeConstructor reading mappings through ``Composed.pairs`` (so never rewriting nodes).

    A constructor that fails with a Python error (``!!int ''``, a date that
    does not exist) is a ``ConstructorError`` at the node, as safe_load's
    failure is SGLang's refusal.
    """

    def __init__(self, composed: Composed) -> None:
        super().__init__()
        self.composed = composed

    def construct_mapping(self, node: yaml.ScalarNode | yaml.SequenceNode | yaml.MappingNode,
                          deep: bool = False) -> dict[Hashable, object]:
        if not isinstance(node, yaml.MappingNode):
            raise ConstructorError(None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
        mapping: dict[Hashable, object] = {}
        for key_node, value_node in self.composed.pairs(node):
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise ConstructorError("while constructing a mapping", node.start_mark, "found unhashable key",
                                       key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        try:
            return super().construct_object(node, deep)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError, OverflowError) as exc:
            tag = node.tag.rsplit(":", 1)[-1] if node.tag.startswith("tag:yaml.org,2002:") else node.tag
            what = f" {node.value!r}" if isinstance(node, yaml.ScalarNode) else ""
            raise ConstructorError(None, None, f"cannot read the {tag}{what}: {exc}", node.start_mark) from None


_ALIAS_VALUE = r"\s*:\s*(\*[^\s,\[\]{}]+)"


def alias_end(text: str, key: yaml.Node) -> int:
    """Where the ``*alias`` written as ``key``'s value ends (the key's end when none is found).

    An alias is not a node: the value node of ``key: *x`` is the anchored
    node, with the anchor's positions.
    """
    m = re.compile(_ALIAS_VALUE).match(text, key.end_mark.index)
    return m.end(1) if m else key.end_mark.index


def _written(text: str, key: yaml.Node, value: yaml.Node) -> str:
    """A pair's value as written after its key: ``*base`` for an alias, else its text (shortened)."""
    if value.start_mark.index < key.end_mark.index:  # an alias: the node is the anchored one, written earlier
        m = re.compile(_ALIAS_VALUE).match(text, key.end_mark.index)
        return m.group(1) if m else "*..."
    shown = " ".join(text[value.start_mark.index:value.end_mark.index].split())
    return shown if len(shown) <= 40 else shown[:37] + "..."
