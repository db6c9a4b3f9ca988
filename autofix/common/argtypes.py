"""SGLang's argparse ``type=`` callables, applied to a value word as argparse applies them.

The argument table names each option's converter (``Option.type``, written by ``scripts/gen_schema.py``
from SGLang's own parser). SGLang 0.5.23's parser uses nine, and each is modelled here:

- ``int``, ``float``, ``str``: Python's own (``int(" 8 ")`` and ``int("1_000")`` are 8 and 1000 there too);
- ``json``: ``json.loads`` (seven options, ``--limit-mm-data-per-request`` ...). Nested deeper than Python's
  recursion limit, ``json.loads`` raises ``RecursionError``, which argparse does not catch: SGLang stops with
  that traceback (the depth it stops at depends on the stack; here a refusal like any other);
- ``human_readable_int`` (``utils/common.py:3394``): an integer with an optional SI or IEC suffix (``1k``,
  ``1.5k``, ``2Ki``; no decimals with an IEC suffix);
- ``nullable_str`` (``utils/common.py:3388``): ``None`` or the empty word is None, any other word itself;
- ``json_list_type`` (``utils/common.py:4818``): ``orjson.loads``, read as ``json.loads`` with orjson's
  refusals (``NaN``/``Infinity``, a number that is infinite as a double, a lone surrogate, nesting past 1,024);
- ``parse_cuda_graph_backend_arg`` (``model_executor/cuda_graph_config.py:237``): ``tc_piecewise`` is refused
  before argparse looks at the choices;
- ``parse_cuda_graph_config_arg`` (``model_executor/cuda_graph_config.py:246``): a JSON object of phases
  (``decode``, ``prefill``), each an object of the keys that phase takes. The one that differs between the
  releases autofix has tables of (0.5.19 takes other keys and any backend): ``BY_RELEASE``.

``convert(type_name, text, release)`` returns the value or raises ``ValueError`` (or ``TypeError``); ``message``
and ``refusal`` say why, in autofix's words (the refusal is SGLang's, the sentence ours). A converter another
release names and this module does not know keeps the text (``KNOWN`` lists the ones modelled;
``tests/test_argtypes.py`` checks that no shipped table names another).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from autofix.common.diagnostics import UNKNOWN


class Refused(ValueError):
    """A converter's own refusal (SGLang raises ``argparse.ArgumentTypeError``, whose message argparse prints as
    it is, where it prints ``invalid <type> value: '<word>'`` for any other ``ValueError``). Its message says the
    same in autofix's words, not SGLang's."""


_TOO_DEEP = ("nested deeper than json.loads reads (a RecursionError, which argparse does not catch: SGLang stops "
             "with its traceback)")


def _json_kind(value: Any) -> str:
    """The JSON name of a decoded value's kind (``[1]``: array)."""
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def human_readable_int(value: str) -> int:
    """``utils/common.py:3394``: ``1k`` is 1000, ``1Ki`` 1024, ``25.6k`` 25600; else ``int(value)``."""
    value = value.strip()
    match = _HUMAN.fullmatch(value)
    if match:
        from decimal import Decimal  # here: a suffixed size is rare, and decimal costs every start-up

        number, suffix = match.groups()
        if suffix in _IEC:
            if "." in number:
                raise Refused(f"'{value}': an IEC suffix ({suffix}) takes a whole number "
                              f"('{int(Decimal(number))}{suffix}'), a decimal takes an SI one ('{number}{suffix[0]}')")
            return int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(value)
    except ValueError:
        raise Refused(f"'{value}' is no integer, bare or with a size suffix (SI: 1k, 1M; IEC: 1Ki, 1Mi; "
                      "case-sensitive)") from None


_HUMAN = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def nullable_str(value: str) -> str | None:
    """``utils/common.py:3388``."""
    if not value or value == "None":
        return None
    return value


def loads(value: str) -> Any:
    """``json.loads``, whose name argparse prints (``invalid loads value``); too deep a nesting is refused."""
    try:
        return json.loads(value)
    except RecursionError:  # not caught by argparse: SGLang stops with the traceback
        raise Refused(_TOO_DEEP) from None


ORJSON_MAX_DEPTH = 1024  # orjson refuses an array or object nested deeper ("depth limit exceeded")


def json_list_type(value: str) -> Any:
    """``utils/common.py:4818``: ``orjson.loads``; every refusal is one message (``_invalid_list``).

    orjson reads the JSON ``json.loads`` reads, less ``NaN``/``Infinity``/``-Infinity``, a number whose double
    is infinite (``1e400``, 400 digits), a lone surrogate (``"\\ud800"``) and nesting past 1,024 levels;
    integers past 64 bits it keeps as doubles. Nested deeper than ``json.loads`` can (about 1,000), it is
    refused past 1,024 and unknown below (orjson builds it, autofix cannot).
    """
    try:
        data = json.loads(value, parse_constant=_no_constant, parse_float=_finite, parse_int=_orjson_int)
    except RecursionError:
        if _depth(value) > ORJSON_MAX_DEPTH:
            raise Refused(_invalid_list(value)) from None
        return UNKNOWN
    except ValueError:
        raise Refused(_invalid_list(value)) from None
    if _lone_surrogate(data):
        raise Refused(_invalid_list(value))
    return data


def _invalid_list(value: str) -> str:
    return (f"'{value}' is no JSON orjson reads (no NaN or Infinity, no number past a double's range, no lone "
            "surrogate, at most 1,024 levels deep)")


def _no_constant(name: str) -> float:
    raise ValueError(f"orjson does not read {name}")


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError("number is infinity when parsed as double")
    return number


def _orjson_int(text: str) -> int | float:
    if len(text) <= 20 and -(2**63) <= (number := int(text)) < 2**64:  # an int orjson keeps (i64 or u64)
        return number
    return _finite(text)  # past 64 bits: a double, refused where infinite


def _lone_surrogate(data: Any) -> bool:
    """Whether a string of ``data`` (a key too) holds a surrogate ``json.loads`` did not pair: orjson refuses it."""
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item)
            todo.extend(item.values())
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _depth(value: str) -> int:
    """How deep the arrays and objects of a JSON text nest (strings left out)."""
    depth = deepest = 0
    for c in re.sub(r"[^\[\]{}]", "", _STRING.sub("", value)):
        depth += 1 if c in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def cuda_graph_backend(raw: str) -> str:
    """``parse_cuda_graph_backend_arg`` (``model_executor/cuda_graph_config.py:237``)."""
    if raw == "tc_piecewise":
        raise Refused("this release has no tc_piecewise CUDA graph backend (it has breakable, full and disabled)")
    return raw


PHASES = ("decode", "prefill")  # cuda_graph_config.Phase.ALL (0.5.19 and 0.5.23)
# cuda_graph_config.ALLOWED_KEYS_PER_PHASE, by release: 0.5.23 dropped tc_compiler, added max_context_size and
# max_seq_len, and checks a phase's backend (0.5.19 still had the tc_piecewise backend)
PHASE_KEYS = {
    "0.5.23": {"decode": ("backend", "max_bs", "bs"),
               "prefill": ("backend", "max_bs", "bs", "max_context_size", "full_prefill_max_req",
                           "full_prefill_prefix_chunk_tokens", "max_seq_len")},
    "0.5.19": {"decode": ("backend", "max_bs", "bs", "tc_compiler"),
               "prefill": ("backend", "max_bs", "bs", "tc_compiler", "full_prefill_max_req",
                           "full_prefill_prefix_chunk_tokens")},
}


def cuda_graph_config(raw: str, release: str = "0.5.23") -> dict[str, dict[str, Any]]:
    """``parse_cuda_graph_config_arg`` (``model_executor/cuda_graph_config.py:246`` in 0.5.23, :229 in 0.5.19),
    its checks in its order."""
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as e:
        raise Refused(f"--cuda-graph-config is not JSON ({e})") from None
    except RecursionError:
        raise Refused(_TOO_DEEP) from None
    if not isinstance(parsed, dict):
        raise Refused(f"--cuda-graph-config is a JSON {_json_kind(parsed)}, not an object of phases")
    result: dict[str, dict[str, Any]] = {}
    for phase, settings in parsed.items():
        if phase not in PHASES:
            raise Refused(f"--cuda-graph-config has no phase '{phase}' (its phases: {', '.join(PHASES)})")
        if not isinstance(settings, dict):
            raise Refused(f"--cuda-graph-config's {phase} is a JSON {_json_kind(settings)}, not an object of "
                          "its settings")
        if "backend" in settings and release != "0.5.19":
            cuda_graph_backend(settings["backend"])
        allowed = PHASE_KEYS[release][phase]
        result[phase] = {}
        for key, value in settings.items():
            if key not in allowed:
                raise Refused(f"--cuda-graph-config's {phase} takes no key '{key}' (its keys: {', '.join(allowed)})")
            result[phase][key] = value
    return result


_COMMON = "sglang.srt.utils.common."
_GRAPHS = "sglang.srt.model_executor.cuda_graph_config."
# the same code in every release autofix ships a table of (0.5.19, 0.5.23)
CONVERTERS: dict[str, Callable[[str], Any]] = {
    "int": int, "float": float, "str": str, "json": loads,
    _COMMON + "human_readable_int": human_readable_int, _COMMON + "nullable_str": nullable_str,
    _COMMON + "json_list_type": json_list_type,
    _GRAPHS + "parse_cuda_graph_backend_arg": cuda_graph_backend,
}
# what changed between releases: the converter of each release, by its table's version
BY_RELEASE: dict[str, dict[str, Callable[[str], Any]]] = {
    _GRAPHS + "parse_cuda_graph_config_arg": {release: partial(cuda_graph_config, release=release)
                                             for release in PHASE_KEYS},
}
KNOWN = frozenset(CONVERTERS) | frozenset(BY_RELEASE)


def converter(type_name: str | None, release: str = "0.5.23") -> Callable[[str], Any] | None:
    """The converter of ``type_name`` (None: ``str``) in SGLang ``release``; None when it is not modelled."""
    name = type_name or "str"
    fn = CONVERTERS.get(name)
    return fn if fn is not None else BY_RELEASE.get(name, {}).get(release)


def convert(type_name: str | None, text: str, release: str = "0.5.23") -> Any:
    """``text`` converted as the option's type does in ``release`` (None: ``str``); a converter not modelled
    keeps the text.

    Raises ``ValueError`` or ``TypeError`` where argparse refuses the word (``Refused``: with the message
    argparse prints).
    """
    fn = converter(type_name, release)
    return text if fn is None else fn(text)


def refusal(type_name: str | None, text: str, release: str = "0.5.23") -> str | None:
    """Why the type refuses ``text`` (``message``), or None when it takes it."""
    try:
        convert(type_name, text, release)
    except (ValueError, TypeError) as exc:
        return message(type_name, text, exc)
    return None


def message(type_name: str | None, text: str, exc: Exception) -> str:
    """Why the type refused ``text`` (it raised ``exc``): a converter's own refusal (``Refused``) in autofix's
    words, else what argparse prints for any other error (``argparse._get_value``: ``invalid <name> value:
    <text>``)."""
    return str(exc) if isinstance(exc, Refused) else f"invalid {_shown_name(type_name)} value: {text!r}"


def _shown_name(type_name: str | None) -> str:
    """The converter's ``__name__``, as argparse prints it (``json.loads``: ``loads``)."""
    return {"json": "loads"}.get(type_name or "str", (type_name or "str").rsplit(".", 1)[-1])
