"""Kubernetes manifests and docker compose files whose containers launch SGLang.

Every document of the stream is searched. A Kubernetes container is any
mapping with ``command`` and/or ``args`` (so Deployments, StatefulSets,
Jobs, Pods, LeaderWorkerSet templates and operator resources that embed a
container spec all count); its words are ``command`` then ``args``. A
compose service (``services.<name>``) runs ``entrypoint`` then ``command``.

The words are read the way the container receives them:

- a list is one word per item (nothing splits or expands them; Kubernetes
  fills in ``$(VAR)`` and compose ``${VAR}``, so such a word is UNKNOWN);
- a compose ``command``/``entrypoint`` string is split into words by
  compose itself (``go-shellwords``, no shell); a service's words are its
  entrypoint's then its command's, whatever form each is written in;
- ``sh -c <script>`` (any ``sh``/``bash``, options ending in ``c``) runs
  the script word and nothing else: it is read as a shell script, edited
  inside the string (or inside the script's quotes in a compose string),
  in its own quoting and block style. When the script word is only the
  first of the words that hold a launch (``entrypoint: [sh, -c]`` with a
  string ``command``, which compose splits; ``args`` items after
  ``command: [sh, -c]``), no SGLang starts: the launch has no words and a
  ``host`` that says so (``written.SplitScript``, rule DKR003), whose fix
  makes the string the one item of a list, or joins the items into one;
- in compose, ``$$`` is a literal ``$``; a single ``$VAR``/``${VAR}`` is
  compose's interpolation, UNKNOWN;
- a node shared through a YAML alias is read wherever it is used and never
  edited (``CannotEdit``: an edit would change every user, or drop the anchor);
- merge keys are read as YAML 1.1 (and PyYAML's ``safe_load``) reads them: a
  container mapping may take ``command``/``args`` from ``<<: *defaults``; such
  words are read, never edited from the mapping that merges them.

The stream is composed by ``yaml_nodes``, within ``autofix.common.limits``; the
walks over it are loops, not recursion.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import yaml

from autofix.adapters import LAUNCH, argv, embedded, tokens
from autofix.adapters.launch import Launch, no_config_argument
from autofix.adapters.syntax import yaml_nodes
from autofix.adapters.syntax.strings import (
    compose_dynamic,
    compose_word_view,
    compose_words,
    content_start,
    yaml_scalar_view,
)
from autofix.adapters.syntax.text_view import View, read_only, within
from autofix.adapters.syntax.yaml_nodes import Composed, Merge
from autofix.common.arguments import Entry, ParsedArgs
from autofix.common.diagnostics import EntryOp, Location, Op, Requote
from autofix.common.edits import Edit, apply_edits
from autofix.common.errors import CannotEdit, InputError
from autofix.common.suppressions import ANNOTATION, Malformed, Suppression, annotation
from autofix.common.written import SplitScript
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter, Source

NAME = "manifest"
SOURCE: Source = "command"
CONFIG_FILES: Adapter | None = None  # a container's --config FILE is the container's: never read on this host
config_argument = no_config_argument
comments = yaml_nodes.comments  # the YAML comments; those of the scripts a shell runs: ``embedded.script_comments``
_K8S_VAR = re.compile(r"(?<!\$)\$\([A-Za-z_][A-Za-z0-9_]*\)")
_COMPOSE_DOLLAR = re.compile(r"\$\$|\$(?=[{A-Za-z_])")  # a literal `$` written `$$`, or one compose interpolates
Ignores = tuple[Suppression | Malformed, ...]  # the ``autofix.io/ignore`` annotations of the objects a container is in


def _alias_at(doc: Composed, offset: int, mapping: yaml.MappingNode, key: str) -> int | None:
    """Where ``key``'s value in ``mapping`` is read through an alias, or None.

    The offset of the ``*alias`` written as its value (``args: *common``),
    or of the merge key it came from (``<<: *defaults``).
    """
    pair = doc.get(mapping, key)
    if pair is None:
        return None
    merge = doc.merge(mapping, pair)
    if merge is not None:
        return offset + merge.key.start_mark.index
    m = re.compile(r"[ \t]*:[ \t]*(\*)[^\s,\[\]{}]+").match(doc.text, pair[0].end_mark.index)
    return offset + m.start(1) if m else None


def _k8s_containers(doc: Composed, root: yaml.Node,
                    offset: int) -> Iterator[tuple[yaml.MappingNode, yaml.Node | None, yaml.Node | None, Ignores]]:
    """Every mapping with ``command`` or ``args``, in document order: (mapping, command, args, the
    ``autofix.io/ignore`` annotations of the objects it is in).

    A walk in file order without recursion (one iterator per collection
    being read, with the annotations in scope there); a node reached through
    several aliases is visited each time, which the node limit bounds.
    """
    todo: list[tuple[Iterator[yaml.Node], Ignores]] = [(iter([root]), ())]
    while todo:
        scope = todo[-1][1]
        for node in todo[-1][0]:
            if isinstance(node, yaml.MappingNode):
                command, args = doc.value(node, "command"), doc.value(node, "args")
                inner = scope + _ignore_annotation(doc, node, offset)
                if command is not None or args is not None:
                    yield node, command, args, inner
                todo.append((iter([v for _, v in doc.effective(node)]), inner))
                break
            if isinstance(node, yaml.SequenceNode):
                todo.append((iter(node.value), scope))
                break
        else:
            todo.pop()


def _ignore_annotation(doc: Composed, node: yaml.MappingNode, offset: int) -> Ignores:
    """The ``autofix.io/ignore`` annotation in ``node``'s ``metadata.annotations``, as a one-item tuple of a
    ``Suppression`` (or ``Malformed``), or ()."""
    meta = doc.value(node, "metadata")
    annotations = doc.value(meta, "annotations") if isinstance(meta, yaml.MappingNode) else None
    value = doc.value(annotations, ANNOTATION) if isinstance(annotations, yaml.MappingNode) else None
    if not isinstance(value, yaml.ScalarNode):
        return ()
    start = offset + value.start_mark.index
    return (annotation(value.value, value.start_mark.line + 1, value.start_mark.column + 1, start,
                       doc.text[value.start_mark.index:value.end_mark.index]),)


def _compose_services(doc: Composed,
                      root: yaml.Node) -> Iterator[tuple[yaml.MappingNode, yaml.Node | None, yaml.Node | None]]:
    services = doc.value(root, "services")
    if not isinstance(services, yaml.MappingNode):
        return
    for _, service in doc.effective(services):
        if not isinstance(service, yaml.MappingNode):
            continue  # no entrypoint, no command
        entrypoint, command = doc.value(service, "entrypoint"), doc.value(service, "command")
        if entrypoint is not None or command is not None:
            yield service, entrypoint, command


def _render(style: str | None, compose: bool) -> Callable[[str, str | None], str]:
    """A new item's text: in the quote style of the item it replaces (or of its list)."""

    def render(value: str, like: str | None) -> str:
        if compose:
            value = value.replace("$", "$$")
        quote = (like or "")[:1] if like and like[:1] in "'\"" else style
        if quote == "'" and "\n" not in value:
            return "'" + value.replace("'", "''") + "'"
        if quote == '"':
            return json.dumps(value, ensure_ascii=False)
        try:
            plain = yaml_nodes.load(f"- {value}\n") == [value]
        except InputError:
            plain = False
        return value if plain and value == value.strip() and value else json.dumps(value, ensure_ascii=False)

    return render


def _dollars(view: View) -> tuple[View, frozenset[int]]:
    """A compose string seen with ``$$`` read as the ``$`` the container receives.

    Also gives the decoded offsets of the ``$`` that compose interpolates (a
    single ``$VAR`` or ``${VAR}``): a word holding one is unknown, a ``$``
    that came from ``$$`` is a literal character.
    """
    source = view.text
    offsets: list[int] = []
    text, interpolated, i, n = [], set(), 0, 0
    for m in _COMPOSE_DOLLAR.finditer(source):  # the text between two `$` is copied whole
        text.append(source[i:m.start()])
        offsets.extend(range(i, m.start()))
        n += m.start() - i
        if m.group() != "$$":
            interpolated.add(n)
        text.append("$")
        offsets.append(m.start())
        n += 1
        i = m.end()
    text.append(source[i:])
    offsets.extend(range(i, len(source) + 1))
    inner = View("".join(text), tuple(offsets), lambda piece: piece.replace("$", "$$"))
    return within(inner, view), frozenset(interpolated)


Reasons = Mapping[int, "str | Merge"]  # id(node) -> "&anchor" it is shared through, or the merge key it came from


def _shared(doc: Composed, root: yaml.Node) -> dict[int, str]:
    """The nodes a document reaches more than once (through YAML aliases), and their descendants.

    ``id(node) -> "&anchor"``: editing such a node would change every place
    that reads it, and the edit could drop the anchor others refer to. Two
    walks without recursion; each node is entered once.
    """
    if not doc.aliases:
        return {}
    seen: dict[int, int] = {}
    order = []
    todo = [root]
    while todo:
        node = todo.pop()
        seen[id(node)] = seen.get(id(node), 0) + 1
        if seen[id(node)] == 1:
            order.append(node)
            todo.extend(reversed(_children(node)))
    out: dict[int, str] = {}
    anchor_re = re.compile(r"&[^\s,\[\]{}]+")
    for node in order:
        if seen[id(node)] > 1 and id(node) not in out:
            m = anchor_re.match(doc.text, node.start_mark.index)
            _mark(node, m.group() if m else "an anchor", out)
    return out


_Reason = TypeVar("_Reason", str, Merge)


def _mark(node: yaml.Node, reason: _Reason, out: dict[int, _Reason]) -> None:
    """``out[id(n)] = reason`` for ``node`` and every node under it not marked yet."""
    todo = [node]
    while todo:
        n = todo.pop()
        if id(n) not in out:
            out[id(n)] = reason
            todo.extend(reversed(_children(n)))


def _merged(doc: Composed, mapping: yaml.MappingNode, keys: tuple[str, ...]) -> dict[int, Merge]:
    """The nodes under ``keys``' values that ``mapping`` takes from a merge key, with that merge key."""
    out: dict[int, Merge] = {}
    for key in keys:
        pair = doc.get(mapping, key)
        if pair is not None and (merge := doc.merge(mapping, pair)) is not None:
            _mark(pair[1], merge, out)
    return out


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _alias_reason(node: yaml.Node, shared: Reasons, what: str) -> str | None:
    reason = shared.get(id(node))
    if isinstance(reason, Merge):
        return reason.note
    return None if reason is None else f"the {what} is shared through a YAML alias ({reason}); fix it by hand"


_NOT_SCALAR = "this item is not a word but a YAML {} (a template expression?): its value is unknown; fix it by hand"


def _tokens(text: str, offset: int, node: yaml.Node, compose: bool, shared: Reasons,
            alias: Location | None = None) -> list[tokens.Token]:
    """The items of a sequence node as tokens (a scalar node is not a list: none).

    An item that is not a scalar (``{{ .Values.extra }}``, which YAML reads
    as a mapping; a nested list) is a word whose value is UNKNOWN: the
    launch is still found and checked as far as it can be, the item never
    edited. ``alias``: where the launch reads the list through an ``*alias``
    (a note that the shared list cannot be edited points there).
    """
    if not isinstance(node, yaml.SequenceNode):
        return []
    scalars = [n for n in node.value if isinstance(n, yaml.ScalarNode)]
    first = scalars[0].style if scalars else None
    lst = tokens.TokenList("flow" if node.flow_style else "block", offset + node.end_mark.index - 1,
                           _render(first if first in ("'", '"') else None, compose),
                           _alias_reason(node, shared, "list"), alias)
    out = []
    for n in node.value:
        start, end = offset + n.start_mark.index, offset + n.end_mark.index
        if not isinstance(n, yaml.ScalarNode):
            what = "mapping" if isinstance(n, yaml.MappingNode) else "list"
            out.append(tokens.Token(text[start:end], start, end, lst, True, _NOT_SCALAR.format(what)))
            continue
        value = n.value
        if compose:
            dynamic = compose_dynamic(value)
            value = value.replace("$$", "$")
        else:
            dynamic = bool(_K8S_VAR.search(value))
            value = value.replace("$$(", "$(")
        out.append(tokens.Token(value, content_start(text, start, end), end, lst, dynamic,
                                lst.readonly or _alias_reason(n, shared, "item")))
    return out


@dataclass(frozen=True, slots=True)
class _Word:
    """One word of a container's command: a list item's token, or a word of a compose string."""

    token: tokens.Token
    item: yaml.ScalarNode | None = None  # the list item it is
    string: yaml.ScalarNode | None = None  # the compose string it is a word of
    span: tuple[int, int] = (0, 0)  # its span in the string's decoded text


_SPLIT = ("the launch's words are split between compose's entrypoint and command and one of them is a string: "
          "fix it by hand")


def _string_words(text: str, offset: int, node: yaml.ScalarNode, path: str) -> list[_Word]:
    """The words compose splits a ``command``/``entrypoint`` string into (read only as tokens)."""
    view = _string_view(text, offset, node, path)
    lst = tokens.TokenList("string", -1, _render(None, True), _SPLIT)
    out = []
    for s, e in compose_words(view.text):
        try:
            value = compose_word_view(view.text, s, e).text
        except CannotEdit as exc:  # go-shellwords refuses the string ("invalid command line string"): so does compose
            loc = embedded.locator(text)(view.offsets[s])
            raise InputError(path, loc.line, loc.col, f"compose cannot split this command string: {exc}") from None
        token = tokens.Token(value, view.offsets[s], view.offsets[e], lst, compose_dynamic(view.text[s:e]), _SPLIT)
        out.append(_Word(token, string=node, span=(s, e)))
    return out


def _string_view(text: str, offset: int, node: yaml.ScalarNode, path: str) -> View:
    try:
        return yaml_scalar_view(text, node, offset)
    except CannotEdit as exc:
        raise InputError(path, node.start_mark.line + 1, node.start_mark.column + 1,
                         f"cannot read the command string: {exc}") from None


def _launches_of(text: str, offset: int, nodes: list[yaml.Node | None], compose: bool, path: str, schema: Schema,
                 locate: Callable[[int], Location], shared: Reasons,
                 aliases: list[int | None] | None = None) -> list[Launch]:
    """The launches written in a container's ``[program-node, arguments-node]``.

    Its words are the program node's then the arguments node's: a list's
    items; in compose, a string's words as compose splits them. When they
    are a shell running a script (``sh -c <script>``), the script is read
    (a list item, or one word of a compose string); otherwise the words
    themselves may launch SGLang.
    """
    words: list[_Word] = []
    for node, alias in zip(nodes, aliases or [None] * len(nodes)):
        if isinstance(node, yaml.SequenceNode):
            toks = _tokens(text, offset, node, compose, shared, None if alias is None else locate(alias))
            words.extend(_Word(t, item=n if isinstance(n, yaml.ScalarNode) else None)
                         for t, n in zip(toks, node.value))
        elif compose and isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
            words.extend(_string_words(text, offset, node, path))
    values = [w.token.value for w in words]
    script = embedded.shell_script(values)
    if script is not None:  # a shell runs the script word, and only it
        w = words[script]
        split = _split(text, offset, words, script, schema, locate, shared)
        if split is not None:
            return [split]
        if not LAUNCH.search(w.token.value) or (w.item is None and w.string is None):
            return []  # the script launches no SGLang, or is not a scalar (unknown)
        if w.item is not None:
            return _script(text, offset, w.item, compose, path, schema, locate, shared)
        assert w.string is not None
        view = _string_view(text, offset, w.string, path)
        view = within(compose_word_view(view.text, *w.span), view)
        reason = _alias_reason(w.string, shared, "string")
        return argv.script_launches(read_only(view, reason) if reason else view, path, schema, locate)
    found = tokens.launch_start(values)
    if found is None:
        return []
    strings = {id(w.string) for w in words[found[0] - 2:]}
    head = words[found[0] - 2]
    if head.string is not None and strings == {id(head.string)}:  # one compose string holds the launch
        return _compose_string(text, offset, head.string, path, schema, locate, shared)
    launch = tokens.read([w.token for w in words], schema, locate)
    return [launch] if launch is not None else []


@dataclass(frozen=True, slots=True)
class _Split:
    """``sh -c`` given a launch as several words (DKR003), and how to write them as the one script word:
    a compose ``string`` (its scalar node, made the one item of a list) or list ``items`` (joined into one)."""

    words: tuple[str, ...] | None  # (the script,) the fix writes, or None: reported, not fixed
    offset: int
    string: yaml.ScalarNode | None = None
    items: tuple[tokens.Token, ...] = ()


def _split(text: str, offset: int, words: list[_Word], script: int, schema: Schema,
           locate: Callable[[int], Location], shared: Reasons) -> Launch | None:
    """The launch of ``sh -c`` whose script word ``words[script]`` is only the first word of what launches
    SGLang (DKR003), or None when the script is the whole launch, or launches none.

    The words meant are the script word and those after it: list items (each a plain word, then joined with
    blanks), or the compose string the script word starts, whole (compose split it at its blanks, and
    dropped what follows an unquoted ``&``, ``;``, ``|``: the shell takes it all).
    """
    values = [w.token.value for w in words]
    w = words[script]
    string = w.string if w.string is not None and w.span[0] == _first_word_start(w.string, words) else None
    held = string  # the compose string that holds the launch: the finding is placed at its start
    if string is not None:
        meant = string.value
        if embedded.split_script(values) is None and (LAUNCH.search(w.token.value) or not _launches(meant, schema)):
            return None
        if any(x.string is not string for x in words[script:]) or _alias_reason(string, shared, "string"):
            string = None  # words of another node follow, or the string is shared: reported, not fixed
        fix = _Split((meant,), offset, string=string) if string is not None else _Split(None, offset)
        where = "command string"
    else:
        if embedded.split_script(values) is None:
            return None
        rest = words[script:]
        joined = embedded.script_of(values[script:])
        one_list = len({id(x.token.list) for x in rest}) == 1
        if joined is not None and one_list and all(x.item is not None and not x.token.readonly for x in rest):
            fix = _Split((joined,), offset, items=tuple(x.token for x in rest))
        else:
            fix = _Split(None, offset)
        where = "list items"
    shell = next(k for k in range(script - 1, -1, -1) if values[k].rsplit("/", 1)[-1] in embedded.SHELLS)
    host = SplitScript(" ".join(values[shell:script]), w.token.value, tuple(values[script + 1:]), where, fix.words)
    # a compose string's finding is at the string (a `|` block's indicator line, where a comment can go), a
    # list's at its script word
    at = locate(offset + held.start_mark.index if held is not None else w.token.start)
    return Launch(ParsedArgs(()), at, fix, (Entry(0, None, (" ".join(values[script:]),), (), at),), host)


def _launches(script: str, schema: Schema) -> bool:
    """Whether the shell script ``script`` launches SGLang (one bash would not run launches nothing)."""
    if not LAUNCH.search(script):
        return False
    from autofix.adapters import argv

    try:
        return bool(argv.read_script(script, "-", schema, lambda i: Location(1, 1)))
    except InputError:
        return False


def _first_word_start(string: yaml.ScalarNode, words: list[_Word]) -> int:
    """Where the first word compose splits ``string`` into starts, in its decoded text."""
    return next(x.span[0] for x in words if x.string is string)


def _as_one_item(text: str, ctx: _Split, path: str) -> list[Edit]:
    """The edits that write ``sh -c``'s script as one word (DKR003's fix): list items joined into one, or a
    compose string made the one item of a list: ``[...]`` around a quoted scalar, a plain one written as a
    JSON string in it (in place when it is one already, once quoted), ``- `` before a block scalar (its lines
    kept as they are). Checked by reading back."""
    if ctx.items:
        assert ctx.words is not None  # a fix: edit_entries reads no other
        return tokens.join_items(text, list(ctx.items), ctx.words[0])
    node, off = ctx.string, ctx.offset
    assert node is not None  # a fix of no list items is one of a compose string
    a, b = off + node.start_mark.index, off + node.end_mark.index
    if node.style in ("|", ">"):
        i = a
        while text[i - 1] in " \t":
            i -= 1
        if text[i - 1] != ":":
            raise CannotEdit("the block string does not follow its key on the key's line: fix it by hand")
        key_line = text.rfind("\n", 0, i) + 1
        indent = len(text[key_line:i]) - len(text[key_line:i].lstrip(" "))
        edits, item = [Edit(i, a, "\n" + " " * indent + "- ")], i + 1 + indent
    elif node.style in ("'", '"'):  # a quoted string is a list item as it is
        edits, item = [Edit(a, a, "["), Edit(b, b, "]")], a
    elif text[a:b] == node.value and not any(c in node.value for c in '"\\'):  # one line: quoted where it is
        edits, item = [Edit(a, a, '["'), Edit(b, b, '"]')], a
    else:  # a plain one may hold what a flow list reads otherwise (a comma): written as a JSON string
        edits, item = [Edit(a, b, "[" + json.dumps(node.value, ensure_ascii=False) + "]")], a
    candidate = apply_edits(text, edits)
    seq = _node_at(yaml_nodes.compose_all(candidate[off:], path), item - off)
    if not (isinstance(seq, yaml.SequenceNode) and len(seq.value) == 1 and isinstance(seq.value[0], yaml.ScalarNode)
            and seq.value[0].value == node.value):
        raise CannotEdit("the command string does not read back as a list of itself: fix it by hand")
    return edits


def _node_at(doc: Composed, index: int) -> yaml.SequenceNode | None:
    """The sequence node that starts at ``index`` (its ``[`` or first ``-``), or None."""
    todo = list(doc.documents)
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.SequenceNode) and node.start_mark.index == index:
            return node
        todo.extend(_children(node))
    return None


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Argparse-stage edits for one launch (see ``embedded.edit_entries``); for ``sh -c`` given the launch as
    several words, ``Requote`` (DKR003's fix) writes them as the one script word."""
    ctx = launch.ctx
    if isinstance(ctx, _Split):
        if ctx.words is None or len(ops) != 1 or type(ops[0]) is not Requote or ops[0].words != ctx.words:
            raise CannotEdit("the shell runs only the first word of this launch: only writing it as one applies")
        return _as_one_item(text, ctx, "-")
    return embedded.edit_entries(text, launch, ops, schema)


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Settings edits for one launch (see ``embedded.edit``)."""
    if isinstance(launch.ctx, _Split):
        raise CannotEdit("the shell runs only the first word of this launch: SGLang never reads its settings")
    return embedded.edit(text, launch, ops, schema)


def _script(text: str, offset: int, node: yaml.ScalarNode, compose: bool, path: str, schema: Schema,
            locate: Callable[[int], Location], shared: Reasons) -> list[Launch]:
    """The launches of a list item a shell runs as its script (``sh -c <item>``)."""
    view = _string_view(text, offset, node, path)
    if compose:
        view = _dollars(view)[0]
    reason = _alias_reason(node, shared, "string")
    return argv.script_launches(read_only(view, reason) if reason else view, path, schema, locate)


def _compose_string(text: str, offset: int, node: yaml.ScalarNode, path: str, schema: Schema,
                    locate: Callable[[int], Location], shared: Reasons) -> list[Launch]:
    """The launch a compose ``command``/``entrypoint`` string holds (split into words, no shell).

    Read and edited as a command line; a ``$`` that came from ``$$`` is a
    literal character, a ``$VAR``/``${VAR}`` that compose fills in is unknown.
    """
    from autofix.adapters import argv  # the shell grammar: only when a compose string is read

    view, interpolated = _dollars(_string_view(text, offset, node, path))
    marks = sorted(interpolated)  # a word [s, e) is unknown when one of them is in it
    reason = _alias_reason(node, shared, "string")
    if reason:
        view = read_only(view, reason)
    found = argv.read_script(view.text, path, schema, lambda i: locate(view.offsets[i]),
                             lambda s, e: bisect.bisect_left(marks, s) < bisect.bisect_left(marks, e))
    return [embedded.nested(launch, view, argv, script=False) for launch in found]


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the manifest's containers, in file order.

    Raises ``InputError`` for invalid YAML, a stream past ``autofix.common.limits``,
    or a command string that cannot be read.
    """
    offset = 1 if text.startswith("\ufeff") else 0
    locate = embedded.locator(text)
    launches: list[Launch] = []
    doc = yaml_nodes.compose_all(text[offset:], path)
    for root in doc.documents:
        shared = _shared(doc, root)
        services = list(_compose_services(doc, root))
        if services:
            for service, entrypoint, command in services:
                keys = ("entrypoint", "command")
                aliases = [_alias_at(doc, offset, service, k) for k in keys]
                launches.extend(_launches_of(text, offset, [entrypoint, command], True, path, schema, locate,
                                             _reasons(doc, service, keys, shared), aliases))
            continue
        for container, command, args, ignores in _k8s_containers(doc, root, offset):
            keys = ("command", "args")
            aliases = [_alias_at(doc, offset, container, k) for k in keys]
            found = _launches_of(text, offset, [command, args], False, path, schema, locate,
                                 _reasons(doc, container, keys, shared), aliases)
            for launch in found:
                launch.suppress = ignores
            launches.extend(found)
    return launches


def _reasons(doc: Composed, mapping: yaml.MappingNode, keys: tuple[str, ...], shared: dict[int, str]) -> Reasons:
    """Why the words of ``mapping`` cannot be edited, node by node: a merge key first, then an alias."""
    merged = _merged(doc, mapping, keys)
    # (the ignore: ChainMap takes mutable maps, invariant in their values; this one is only read, as a Reasons)
    return ChainMap(merged, shared) if merged else shared  # type: ignore[arg-type]


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """A manifest counts when one of its containers launches SGLang."""
    return bool(launches)
