"""A model of how the GitHub Actions runner reads workflow commands in a step's output, for the tests.

Written from actions/runner's source: ``OutputManager.OnDataReceived`` offers each line holding ``##[`` or
``::`` to ``ActionCommandManager.TryProcessCommand``, which parses it with ``ActionCommand.TryParseV2``
(leading white space trimmed, ``::name props::data``), else ``ActionCommand.TryParse`` (``##[name
props]data`` anywhere in the line), for a command name it knows (case-insensitive), and keeps the
``stop-commands`` state: while stopped, only the token resumes. Lines end at ``\\n``, ``\\r`` or ``\\r\\n``
(.NET's ``ReadLine``). Python's white space holds .NET's, so the model finds every command the runner
would, and maybe more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KNOWN = {"error", "warning", "notice", "debug", "group", "endgroup", "add-mask", "add-matcher",
         "remove-matcher", "set-output", "save-state", "set-env", "add-path", "echo", "stop-commands"}


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for escaped, raw in pairs:
        text = text.replace(escaped, raw)
    return text


@dataclass
class Runner:
    """Feed it a step's output; ``commands`` holds what it ran, as ``(name, properties, data)``."""

    known: set[str] = field(default_factory=lambda: set(KNOWN))
    stopped_for: str | None = None
    commands: list[tuple[str, dict, str]] = field(default_factory=list)

    def feed(self, text: str) -> Runner:
        lines = re.split(r"\r\n|\r|\n", text)
        for line in lines[:-1] if lines and lines[-1] == "" else lines:
            self.line(line)
        return self

    def line(self, line: str) -> None:
        if "##[" not in line and "::" not in line:
            return
        command = self._v2(line) or self._v1(line)
        if command is None:
            return
        name = command[0].lower()
        if self.stopped_for is not None:
            if name == self.stopped_for.lower():
                self.known.discard(name)
                self.stopped_for = None
            return
        if name == "stop-commands":
            self.stopped_for = command[2]
            self.known.add(command[2].lower())
            return
        self.commands.append(command)

    def _name(self, info: str) -> str | None:
        name = info.split(" ", 1)[0]
        return name if name.lower() in self.known else None

    def _v2(self, line: str):
        text = line.lstrip()
        if not text.startswith("::"):
            return None
        end = text.find("::", 2)
        if end < 0:
            return None
        info = text[2:end]
        name = self._name(info)
        if name is None:
            return None
        props = {}
        if " " in info:
            for pair in info.split(" ", 1)[1].strip().split(","):
                key, eq, value = pair.partition("=")
                if eq and key and value:
                    props[key] = _unescape(value, True)
        return name, props, _unescape(text[end + 2:], False)

    def _v1(self, line: str):
        at = line.find("##[")
        if at < 0:
            return None
        end = line.find("]", at)
        if end < 0:
            return None
        info = line[at + 3:end]
        name = self._name(info)
        if name is None:
            return None
        return name, {}, line[end + 1:]
