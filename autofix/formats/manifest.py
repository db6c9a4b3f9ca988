"""Kubernetes manifests and docker compose files whose containers launch SGLang.

Every document of the stream is searched. A Kubernetes container is any
mapping with ``command`` and/or ``args`` (so Deployments, StatefulSets,
Jobs, Pods, LeaderWorkerSet templates and operator resources that embed a
container spec all count); its words are ``command`` then ``args``. A
compose service (``services.<name>``) runs ``entrypoint`` then ``command``.

The words are read the way the container receives them:

- a list is one word per item (nothing splits or expands them; Kubernetes
  fills in ``$(VAR)`` and compose ``${VAR}``, so such a word is UNKNOWN);
- ``sh -c "<script>"`` (any ``sh``/``bash``, options ending in ``c``) runs a
  script: the string is read as a shell script, edited inside the string,
  in its own quoting and block style;
- a compose ``command``/``entrypoint`` string is split into words like a
  shell would (compose does not run a shell for it);
- in compose, ``$$`` is a literal ``$``.
"""

from __future__ import annotations

import json
import re

import yaml

from autofix.errors import CannotEdit, InputError
from autofix.formats import LAUNCH, embedded, tokens
from autofix.formats.launch import Launch
from autofix.formats.strings import yaml_scalar_view
from autofix.formats.view import View
from autofix.schema import Schema

NAME = "manifest"
SOURCE = "command"
edit = embedded.edit
edit_entries = embedded.edit_entries
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SHELLS = {"sh", "bash", "dash", "ash", "zsh"}
_K8S_VAR = re.compile(r"(?<!\$)\$\([A-Za-z_][A-Za-z0-9_]*\)")
_COMPOSE_VAR = re.compile(r"\$(\{|[A-Za-z_])")


def _documents(text: str, path: str, offset: int) -> list:
    loader = _Loader(text[offset:])
    try:
        nodes = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return nodes
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise InputError(path, line, col, f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(path, 0, 0, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def _get(node, key: str):
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
    return None


def _k8s_containers(node):
    """Every mapping with ``command`` or ``args``, in document order: (command, args) nodes."""
    if isinstance(node, yaml.MappingNode):
        command, args = _get(node, "command"), _get(node, "args")
        if command is not None or args is not None:
            yield command, args
        for _, v in node.value:
            yield from _k8s_containers(v)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from _k8s_containers(v)


def _compose_services(root):
    services = _get(root, "services")
    if not isinstance(services, yaml.MappingNode):
        return
    for _, service in services.value:
        entrypoint, command = _get(service, "entrypoint"), _get(service, "command")
        if entrypoint is not None or command is not None:
            yield entrypoint, command


def _render(style: str | None, compose: bool):
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
            plain = yaml.load(f"- {value}\n", Loader=_Loader) == [value]
        except yaml.YAMLError:
            plain = False
        return value if plain and value == value.strip() and value else json.dumps(value, ensure_ascii=False)

    return render


def _dollars(view: View) -> View:
    """A compose string seen with ``$$`` read as the ``$`` the container receives."""
    text, offsets, i = [], [], 0
    while i < len(view.text):
        offsets.append(view.offsets[i])
        text.append(view.text[i])
        i += 2 if view.text.startswith("$$", i) else 1
    offsets.append(view.offsets[len(view.text)])
    return View("".join(text), tuple(offsets), lambda piece: view.encode(piece.replace("$", "$$")))


def _tokens(text: str, offset: int, node, compose: bool) -> list[tokens.Token]:
    """The items of a sequence node as tokens (a scalar node is not a list: none)."""
    if not isinstance(node, yaml.SequenceNode):
        return []
    items = [n for n in node.value if isinstance(n, yaml.ScalarNode)]
    if len(items) != len(node.value):
        return []
    first = items[0].style if items else None
    lst = tokens.TokenList("flow" if node.flow_style else "block", offset + node.end_mark.index - 1,
                           _render(first if first in ("'", '"') else None, compose))
    out = []
    for n in items:
        value = n.value
        if compose:
            dynamic = bool(_COMPOSE_VAR.search(value.replace("$$", "")))
            value = value.replace("$$", "$")
        else:
            dynamic = bool(_K8S_VAR.search(value))
            value = value.replace("$$(", "$(")
        out.append(tokens.Token(value, offset + n.start_mark.index, offset + n.end_mark.index, lst, dynamic))
    return out


def _script_index(values: list[str]) -> int | None:
    """Index of the script word of ``sh -c <script>``, if these words run one that launches SGLang."""
    for i, v in enumerate(values[:-2] if len(values) > 2 else []):
        if v.rsplit("/", 1)[-1] in _SHELLS:
            j = i + 1
            while j < len(values) and values[j].startswith("-") and not values[j].endswith("c"):
                j += 1
            if j + 1 < len(values) and values[j].startswith("-") and values[j].endswith("c"):
                return j + 1 if LAUNCH.search(values[j + 1]) else None
    return None


def _launches_of(text: str, offset: int, nodes: list, compose: bool, path: str, schema: Schema, locate):
    """The launches written in a container's ``[program-node, arguments-node]``."""
    toks: list[tokens.Token] = []
    scalars = []
    for node in nodes:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
            scalars.append(node)
        toks.extend(_tokens(text, offset, node, compose))
    out: list[Launch] = []
    values = [t.value for t in toks]
    script = _script_index(values)
    if script is not None:
        node = next(n for n in _item_nodes(nodes) if offset + n.start_mark.index == toks[script].start)
        out.extend(_script(text, offset, node, compose, path, schema, locate))
        return out
    launch = tokens.read(text, toks, schema, locate) if toks else None
    if launch is not None:
        out.append(launch)
    if compose:  # a compose string is split into words, not run by a shell
        for node in scalars:
            if LAUNCH.search(node.value):
                out.extend(_script(text, offset, node, compose, path, schema, locate))
    return out


def _item_nodes(nodes):
    for node in nodes:
        if isinstance(node, yaml.SequenceNode):
            yield from node.value


def _script(text, offset, node, compose, path, schema, locate) -> list[Launch]:
    try:
        view = yaml_scalar_view(text, node, offset)
    except CannotEdit as exc:
        raise InputError(path, node.start_mark.line + 1, node.start_mark.column + 1,
                         f"cannot read the command string: {exc}") from None
    return embedded.script_launches(_dollars(view) if compose else view, path, schema, locate)


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the manifest's containers, in file order.

    Raises ``InputError`` for invalid YAML or a command string that cannot be read.
    """
    offset = 1 if text.startswith("\ufeff") else 0
    locate = embedded.locator(text)
    launches: list[Launch] = []
    for root in _documents(text, path, offset):
        services = list(_compose_services(root))
        if services:
            for entrypoint, command in services:
                launches.extend(_launches_of(text, offset, [entrypoint, command], True, path, schema, locate))
            continue
        for command, args in _k8s_containers(root):
            launches.extend(_launches_of(text, offset, [command, args], False, path, schema, locate))
    return launches


def looks_like_config(launches: list[Launch]) -> bool:
    """A manifest counts when one of its containers launches SGLang."""
    return bool(launches)
