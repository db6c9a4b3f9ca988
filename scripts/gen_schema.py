"""Generate autofix's SGLang argument table (the *schema*) from an installed SGLang.

Run it with an interpreter that has SGLang installed, e.g. the oracle venv:

    bash ../shared/oracle/setup.sh
    /tmp/oracle-venv/bin/python scripts/gen_schema.py > autofix/schema/sglang-0.5.23.json

SGLang's module imports need the oracle's CPU shims (fake CUDA probes, stub GPU
packages); when ``--oracle`` points at the oracle's ``check.py`` (the default
looks in ``../shared/oracle``) it is loaded first so those shims are in place.
The parser is built exactly as ``sglang.srt.server_args.prepare_server_args``
builds it, and every argparse action is written out as data: nothing here is
typed by hand.

Older SGLang releases: the oracle's ``check.py`` imports 0.5.23-only modules, so
pass ``--no-oracle``; then only the torchvision op schemas are defined (see
``define_torchvision_op_schemas``). The fake-GPU shims do not change the table:
for 0.5.23 and 0.5.19 the output with and without them is byte-identical.
E.g. for 0.5.19 (venv with the oracle's pins, but transformers 5.12.1,
tokenizers 0.22.2, openai 2.6.1, huggingface_hub 1.x, httpcore 1.x and
xgrammar 0.2.1, i.e. the pins 0.5.19 itself declares, plus sglang 0.5.19, all
``--no-deps``):

    /tmp/sgl-old-venv/bin/python scripts/gen_schema.py --no-oracle > autofix/schema/sglang-0.5.19.json

``steps`` is SGLang's resolution step list (``scripts/sglang_steps.py``),
read from the installed package's source.

``config_file`` is read from the installed SGLang's own ``ConfigArgumentMerger``
tables (its rules changed between releases), and choices given as a set are
written sorted so the output does not depend on the hash seed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ORACLE = HERE.parent.parent / "shared" / "oracle" / "check.py"


def load_oracle_shims(check_py: Path) -> None:
    """Import the oracle's check.py as a module so its CPU shims are applied."""
    sys.argv = [str(check_py), "--"]  # check.py parses its own argv on import
    spec = importlib.util.spec_from_file_location("autofix_oracle_shims", check_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def define_torchvision_op_schemas() -> None:
    """The one oracle shim an older SGLang still needs without ``--oracle``.

    SGLang imports torchvision; the only torchvision wheel on the index is a
    CUDA build whose C extension cannot load against CPU torch, and its Python
    part then fails on two undefined op schemas. Defining them (no kernels)
    lets it import; nothing here runs a torchvision op.
    """
    import torch

    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    define_torchvision_op_schemas.lib = lib  # keep the library alive


def type_name(action: argparse.Action) -> str | None:
    """Name the value converter so autofix can apply the same one."""
    t = action.type
    if t is None:
        return None
    if t in (int, float, str):
        return t.__name__
    mod = getattr(t, "__module__", "") or ""
    name = getattr(t, "__qualname__", None) or type(t).__name__
    if mod == "json" and name == "loads":
        return "json"
    return f"{mod}.{name}" if mod else name


def jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return repr(value)


def action_kind(action: argparse.Action) -> str:
    """argparse action class, as one of a few kinds autofix understands."""
    if isinstance(action, argparse._StoreTrueAction):
        return "store_true"
    if isinstance(action, argparse._StoreFalseAction):
        return "store_false"
    if isinstance(action, argparse._StoreConstAction):
        return "store_const"
    if isinstance(action, argparse.BooleanOptionalAction):
        return "boolean_optional"
    if isinstance(action, argparse._AppendAction):
        return "append"
    if isinstance(action, argparse._StoreAction):
        return "store"
    if isinstance(action, (argparse._HelpAction,)):
        return "help"
    return "custom"


def config_file_support(action: argparse.Action) -> str:
    """How SGLang's --config merger treats a key of this option.

    ``store_true``: true adds the flag, false drops it; ``value``: passed on as
    ``--key value``; ``refused``: the merger raises before argparse runs.
    (sglang/srt/utils/server_args_config_parser.py, ConfigArgumentMerger)
    """
    if isinstance(action, argparse._StoreTrueAction):
        return "store_true"
    if isinstance(action, argparse._StoreAction) or action.nargs is None:
        return "value"
    return "refused"


def merger_config_file_support(parser: argparse.ArgumentParser):
    """``config_file`` as the installed SGLang's own ``--config`` merger decides it.

    The merger's rules changed between releases (0.5.19 keys its refusals by
    dest only, so a flag that shares its dest with a deprecated alias is
    refused; 0.5.23 keys them by every long spelling), so the answer is read
    from its ``store_true_actions``/``unsupported_actions`` tables for the key
    of the option's canonical flag. Returns None when the merger is not found.
    """
    try:
        from sglang.srt.utils.server_args_config_parser import ConfigArgumentMerger
    except ImportError:
        try:  # releases before 0.5.19
            from sglang.srt.server_args_config_parser import ConfigArgumentMerger
        except ImportError:
            return None
    merger = ConfigArgumentMerger(parser)
    refused = getattr(merger, "unsupported_actions", None)
    store_true = getattr(merger, "store_true_actions", None)
    if refused is None or store_true is None:
        return None

    def support(action: argparse.Action) -> str:
        canonical = "--" + action.dest.replace("_", "-")
        flag = canonical if canonical in action.option_strings else action.option_strings[0]
        key = flag.lstrip("-").replace("-", "_")
        if key in refused:
            return "refused"
        if key in store_true:
            return "store_true"
        return "value"

    return support


def describe(action: argparse.Action, config_file=config_file_support) -> dict:
    help_text = action.help if isinstance(action.help, str) else ""
    first_line = help_text.strip().splitlines()[0] if help_text.strip() else ""
    choices = action.choices
    if isinstance(choices, (set, frozenset)):  # iteration order follows the hash seed
        choices = sorted(choices, key=str)
    return {
        "dest": action.dest,
        "flags": list(action.option_strings),
        "kind": action_kind(action),
        "action_class": type(action).__name__,
        "nargs": action.nargs if not isinstance(action.nargs, str) or action.nargs in "?*+" else str(action.nargs),
        "const": jsonable(action.const),
        "type": type_name(action),
        "default": jsonable(action.default),
        "choices": None if action.choices is None else [jsonable(c) for c in choices],
        "required": bool(action.required),
        "config_file": config_file(action),
        "deprecated": "deprecated" in help_text.lower() or "Deprecated" in type(action).__name__,
        "help": first_line,
    }


def pipeline_steps(root: Path) -> list[dict]:
    """SGLang's resolution steps in order (``scripts/sglang_steps.py``); empty for a release without
    ``arg_groups/pipeline.py`` (autofix's settings rules are written for 0.5.23's pipeline)."""
    sys.path.insert(0, str(HERE))
    from sglang_steps import PIPELINE, steps

    return steps(root) if (root / "srt" / PIPELINE).exists() else []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", type=Path, default=DEFAULT_ORACLE, help="the oracle's check.py")
    ap.add_argument("--no-oracle", action="store_true",
                    help="do not load check.py (it is 0.5.23-specific); define only the torchvision op schemas")
    ns = ap.parse_args()
    if ns.no_oracle:
        define_torchvision_op_schemas()
    elif ns.oracle.exists():
        load_oracle_shims(ns.oracle)

    import importlib.metadata

    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    config_file = merger_config_file_support(parser) or config_file_support
    options = [describe(a, config_file) for a in parser._actions if a.option_strings and action_kind(a) != "help"]
    import sglang

    table = {
        "sglang_version": importlib.metadata.version("sglang"),
        "python_version": ".".join(map(str, sys.version_info[:3])),
        "generated_by": "scripts/gen_schema.py",
        "allow_abbrev": parser.allow_abbrev,
        "options": options,
        "steps": pipeline_steps(Path(sglang.__file__).parent),
    }
    json.dump(table, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
