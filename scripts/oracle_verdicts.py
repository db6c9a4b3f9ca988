"""Record SGLang's own verdict on every golden fixture: fixtures/oracle-verdicts.json.

For each fixture file (``NAME.in.*``, ``NAME.out.*``, ``NAME.unsafe.out.*``)
and each SGLang launch in it, one case goes to the oracle
(../shared/oracle/check.py, SGLang 0.5.23's CLI parsing and argument
resolution): a YAML fixture is passed as ``--config <file>`` (the file
itself, so CRLF and BOM reach SGLang's loader byte for byte); a shell
fixture is run by bash with ``python``/``python3``/``sglang``/``nohup``
replaced by functions that record each launch's words, so quoting,
continuations and ``$VARS`` are expanded by bash itself and not by autofix's
reader. ``sglang serve MODEL ...`` becomes ``--model-path MODEL ...``, as
``sglang/cli/serve.py`` does. Kubernetes/compose manifests, Dockerfiles and
srt-slurm recipes are read by their autofix adapter (``read()``): each
launch's words (``launch.parsed.words``) are its argv, so for these formats
the oracle judges the settings, not autofix's reading of the file. A launch
with a word that holds an expansion (``$MODEL``, ``$(POD_IP)``,
``${PORT:-30000}``) is not sent: its verdict is ``{"ok": null, "skipped":
reason}``, and so is a command its file does not run as written (DKR001,
DKR002, DKR003: a Dockerfile exec form that is not JSON, a shell-form CMD
or ENTRYPOINT the launch does not take, ``sh -c`` given the launch as
several words): SGLang never starts, or not with these words. An srt-slurm
launch (``--model-path /model``) is checked on the oracle model its
``--served-model-name`` names, if any. All cases run in one
oracle batch.

Output: ``{"fixtures/<dir>/<file>": [{"ok": bool, "where": str | null}, ...]}``,
one entry per launch in file order.

With ``--rule-cases``, the same for the rule cases (``harness/rules/cases*.py``,
each on its own GPU and model config): ``harness/rules/oracle-verdicts.json``,
``{"<case id>": {"ok": bool, "where": str | null}}``, where the offline
tests read SGLang's verdict, and which line it raised at, without the oracle
(tests/rules/test_rules.py). Usage::

    python scripts/oracle_verdicts.py            # rewrite fixtures/oracle-verdicts.json
    python scripts/oracle_verdicts.py --check    # exit 1 if the recorded verdicts differ
    python scripts/oracle_verdicts.py --rule-cases [--check]   # harness/rules/oracle-verdicts.json

``ORACLE_PYTHON`` / ``ORACLE_CHECK`` override where the oracle lives.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from harness.oracle.oracle import CHECK_PY, PYTHON, run_batch  # noqa: E402  (one oracle runner for all)

FIXTURES = ROOT / "fixtures"
VERDICTS = FIXTURES / "oracle-verdicts.json"
RULE_VERDICTS = ROOT / "harness" / "rules" / "oracle-verdicts.json"  # harness.rules.cases.VERDICTS

# Which fixture directory holds which kind of file.
KINDS = {"yaml_config": "yaml", "argv": "shell", "manifest": "manifest", "dockerfile": "dockerfile",
         "srt_slurm": "srt-slurm"}
# Kinds whose launches autofix's own adapter reads (``autofix.adapters.by_name``).
ADAPTED = ("manifest", "dockerfile", "srt-slurm")
# --served-model-name -> oracle model, for srt-slurm's fixed ``--model-path /model`` (as check.py infers from a path).
SERVED_MODELS = (("deepseek", "deepseek-v3"), ("qwen3", "qwen3-moe"), ("llama", "llama"))

# Sourced by bash before the fixture: every launch writes its words
# (NUL-separated) to "$out/<line>", <line> being where the fixture runs it.
_BASH_PRELUDE = r"""
__af_out=$1; __af_src=$2
__af_record() {
  local i line=0
  for ((i = 0; i < ${#BASH_SOURCE[@]}; i++)); do
    if [[ "${BASH_SOURCE[i+1]-}" == "$__af_src" ]]; then line=${BASH_LINENO[i]}; break; fi
  done
  local f; f=$(printf '%s/%08d' "$__af_out" "$line")
  if [[ -e "$f" ]]; then echo "two launches on line $line" >&2; exit 97; fi
  if (($#)); then printf '%s\0' "$@" > "$f"; else : > "$f"; fi
}
__af_python() {
  if [[ "${1-}" == -m && "${2-}" == sglang.launch_server ]]; then shift 2; __af_record "$@"; fi
}
python() { __af_python "$@"; }
python3() { __af_python "$@"; }
sglang() {
  if [[ "${1-}" == serve ]]; then
    shift
    if (($#)) && [[ "$1" != -* ]]; then set -- --model-path "$@"; fi
    __af_record "$@"
  fi
}
__af_shell() {  # `bash [options] -c SCRIPT [$0 ...]`: run SCRIPT here, where the stubs above record launches
  while (($#)); do
    case "$1" in
      --*) shift ;;
      -*c) local __af_script=$2; ( source() { :; }; exec() { "$@"; }; eval "$__af_script" ) || true; return ;;
      -*) shift ;;
      *) return ;;
    esac
  done
}
sh() { __af_shell "$@"; }
bash() { __af_shell "$@"; }
dash() { __af_shell "$@"; }
zsh() { __af_shell "$@"; }
nohup() { "$@"; }
sleep() { :; }
curl() { :; }
trap wait EXIT
. "$__af_src"
"""


def fixture_files(root: Path = FIXTURES) -> list[Path]:
    """Every input and expected-output file under ``root``, sorted."""
    files = []
    for sub in sorted(KINDS):
        for p in sorted((root / sub).glob("*")):
            if ".in." in p.name or ".out." in p.name:
                files.append(p)
    return files


def kind_of(path: Path) -> str:
    return KINDS[path.parent.name]


def rel(path: Path) -> str:
    return path.resolve().relative_to(ROOT).as_posix()


def shell_launches(path: Path) -> list[list[str]]:
    """The argument words of every SGLang launch ``path`` runs, in order, as bash expands them."""
    with tempfile.TemporaryDirectory(prefix="af-launches-") as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        work = Path(tmp) / "cwd"
        work.mkdir()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LC_ALL": "C.UTF-8"}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-c", _BASH_PRELUDE, "af-launches", str(out), str(path.resolve())],
            cwd=work, env=env, capture_output=True, text=True, timeout=60, check=False,
        )
        if proc.returncode == 97:
            raise RuntimeError(f"{rel(path)}: {proc.stderr.strip()}")
        launches = []
        for f in sorted(out.iterdir()):
            data = f.read_bytes()
            launches.append([w.decode("utf-8") for w in data.split(b"\0")[:-1]] if data else [])
        return launches


def _not_run(host) -> str:
    """Why a command its file does not run as written reaches no SGLang (``written.Host``)."""
    from autofix.common.written import NotJson, ShellForm

    if isinstance(host, NotJson):
        return f"Docker runs this {host.keyword} as a shell command (not JSON)"
    if isinstance(host, ShellForm):
        return f"Docker runs this {host.keyword} as a shell command, which the launch does not take as written"
    return f"{host.shell} runs only its script word {host.script!r}"


def adapter_launches(path: Path) -> list[dict]:
    """Per launch autofix's adapter reads in ``path``: ``{"argv": words}``, or ``{"skip": reason}``
    when a word holds an expansion (its value is only known where the container runs)."""
    from autofix.adapters import by_name
    from autofix.schema import load

    adapter = by_name(kind_of(path))
    out = []
    for launch in adapter.read(path.read_bytes().decode("utf-8"), rel(path), load()):
        if launch.host is not None:
            out.append({"skip": f"not run: {_not_run(launch.host)}"})
            continue
        words = launch.parsed.words
        dynamic = [w.text for w in words if w.dynamic]
        if dynamic or launch.parsed.opaque_index >= 0 or launch.parsed.base_unknown:
            what = f"word {dynamic[0]!r} holds an expansion" if dynamic else "words that may stand for flags"
            out.append({"skip": f"unverifiable: {what}"})
            continue
        case = {"argv": [w.text for w in words]}
        if kind_of(path) == "srt-slurm":
            served = " ".join(w for a, w in zip(case["argv"], case["argv"][1:]) if a == "--served-model-name").lower()
            model = next((m for hint, m in SERVED_MODELS if hint in served), None)
            if model:
                case["model"] = model
        out.append(case)
    return out


def cases_for(path: Path) -> list[dict]:
    """The oracle cases for one fixture file: one per launch, ids ``<rel>#<n>``
    (a launch that cannot be checked is a case with ``skip`` and is not sent)."""
    if kind_of(path) == "yaml":
        return [{"id": f"{rel(path)}#0", "config": str(path.resolve())}]
    if kind_of(path) in ADAPTED:
        return [{"id": f"{rel(path)}#{i}", **case} for i, case in enumerate(adapter_launches(path))]
    return [{"id": f"{rel(path)}#{i}", "argv": words} for i, words in enumerate(shell_launches(path))]


def build_cases(files: list[Path] | None = None) -> list[dict]:
    return [c for p in (fixture_files() if files is None else files) for c in cases_for(p)]


def run_oracle(cases: list[dict], timeout: int = 900) -> list[dict]:
    """One oracle process over all ``cases`` but the skipped; its answers, in case order
    (a skipped case's answer is ``{"ok": None, "skipped": reason}``)."""
    if not PYTHON.exists() or not CHECK_PY.exists():
        raise FileNotFoundError(f"SGLang oracle not set up: {PYTHON} / {CHECK_PY}")
    sent = [c for c in cases if "skip" not in c]
    answers = iter(run_batch(sent, timeout) if sent else [])
    return [{"id": c["id"], "ok": None, "skipped": c["skip"]} if "skip" in c else next(answers) for c in cases]


def verdicts(cases: list[dict], answers: list[dict]) -> dict[str, list[dict]]:
    """``{fixture: [{"ok", "where"} per launch]}``; a launch-less file maps to ``[]``;
    a launch not sent to the oracle is ``{"ok": None, "where": None, "skipped": reason}``."""
    out: dict[str, list[dict]] = {}
    for case, answer in zip(cases, answers):
        name = case["id"].rsplit("#", 1)[0]
        if answer.get("skipped"):
            out.setdefault(name, []).append({"ok": None, "where": None, "skipped": answer["skipped"]})
            continue
        out.setdefault(name, []).append({"ok": bool(answer["ok"]), "where": None if answer["ok"] else answer.get("where")})
    return out


def collect(files: list[Path] | None = None) -> dict[str, list[dict]]:
    files = fixture_files() if files is None else files
    cases = build_cases(files)
    found = verdicts(cases, run_oracle(cases))
    return {rel(p): found.get(rel(p), []) for p in files}


def rule_case_verdicts() -> dict[str, dict]:
    """``{case id: {"ok", "where"}}``: SGLang's verdict on every rule case, one oracle batch per simulated GPU."""
    from harness.rules.cases import ALL_CASES

    out = {}
    for gpu in sorted({c.gpu for c in ALL_CASES}):
        cases = [{"id": c.id, "argv": list(c.argv), **({"model": c.model} if c.model else {})}
                 for c in ALL_CASES if c.gpu == gpu]
        for answer in run_batch(cases, gpu=gpu):
            out[answer["id"]] = {"ok": bool(answer["ok"]), "where": None if answer["ok"] else answer.get("where")}
    return dict(sorted(out.items()))


def dump(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the recorded verdicts instead of writing")
    parser.add_argument("--rule-cases", action="store_true",
                        help=f"the rule cases' verdicts ({rel(RULE_VERDICTS)}) instead of the fixtures'")
    args = parser.parse_args(argv)
    path = RULE_VERDICTS if args.rule_cases else VERDICTS
    data = rule_case_verdicts() if args.rule_cases else collect()
    if args.check:
        recorded = json.loads(path.read_text()) if path.exists() else {}
        if recorded != data:
            for name in sorted(set(recorded) | set(data)):
                if recorded.get(name) != data.get(name):
                    print(f"{name}: recorded {recorded.get(name)}, oracle says {data.get(name)}", file=sys.stderr)
            return 1
        return 0
    path.write_text(dump(data))
    if args.rule_cases:
        refused = sum(1 for v in data.values() if not v["ok"])
        print(f"wrote {rel(path)}: {len(data)} cases, {refused} refused", file=sys.stderr)
        return 0
    refused = sum(1 for v in data.values() for launch in v if launch["ok"] is False)
    skipped = sum(1 for v in data.values() for launch in v if launch["ok"] is None)
    total = sum(len(v) for v in data.values())
    print(f"wrote {rel(VERDICTS)}: {len(data)} files, {total} launches, {refused} refused, "
          f"{skipped} not checkable", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
