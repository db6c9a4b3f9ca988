#!/usr/bin/env python
"""How many real-world SGLang launches does SGLang 0.5.23 itself accept?

Measures, for the 85 srt-slurm benchmark recipes in
``../shared/realworld/inferencex`` (or a copy of them, see ``--fixed``), how many
of their SGLang launches pass SGLang 0.5.23's own argument parsing and
startup-time resolution/validation, as judged by the oracle in
``../shared/oracle`` (``check.py --batch``). It reports a verdict per launch, the
total accepted/total, and the refusals grouped by the first line of SGLang's
error message.

Each recipe's ``backend.sglang_config.<role>`` mapping (roles prefill, decode,
aggregated) is one launch. The argv is built the way srtctl builds it:
``--served-model-name <name> --host 0.0.0.0``, then ``--disaggregation-mode
<role>`` for prefill/decode, then for ``key, value in sorted(mapping.items())``:
``--key-with-dashes`` and bool True -> bare flag, False/None -> omitted, list ->
flag then ``str(v)`` per item, else flag and ``str(value)``. srtctl's
``python3 -m sglang.launch_server`` and ``--model-path /model`` are left out; the
mapping's own ``model-path`` is dropped too, and the model is given instead as:

* ``--models standin`` (default): ``--model-path`` of a config-only stand-in
  for the recipe's model family, ``harness/oracle/models/<name>`` (real published
  dims; see harness/oracle/models/README.md): deepseek-v4-pro, deepseek-r1-nvfp4,
  glm-5, glm-5.2, qwen3.5-397b;
* ``--models deepseek-v3``: the oracle's shipped DeepSeek-V3 config for every
  launch (case ``"model": "deepseek-v3"``).

The simulated GPU is the recipe's ``resources.gpu_type``: ``--gpu b200`` for
Blackwell (b200, b300, gb200, gb300), ``h200`` otherwise; one oracle process per
GPU type.

Run (needs /tmp/oracle-venv, see ../shared/oracle/README.md):

    python scripts/realworld.py                         # originals, stand-in models
    python scripts/realworld.py --models deepseek-v3    # originals, DeepSeek-V3 for all
    python scripts/realworld.py --fixed DIR             # recipes rewritten by autofix --write
    python scripts/realworld.py --json OUT.json         # also save every verdict
    python scripts/realworld.py -q                      # summary only
    python scripts/realworld.py --sweeps                # also the sweep recipe's base and variants
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.oracle.oracle import STAND_INS, run_batch  # noqa: E402

RECIPES = ROOT.parent / "shared" / "realworld" / "inferencex"
BLACKWELL = {"b200", "b300", "gb200", "gb300"}
ROLES_WITH_MODE = {"prefill", "decode"}


def standin(recipe: dict, mapping: dict) -> str:
    """The stand-in model directory name for a recipe's model family."""
    path = str((recipe.get("model") or {}).get("path", "")).lower()
    served = str(mapping.get("served-model-name", mapping.get("served_model_name", ""))).lower()
    key = f"{path} {served}"
    if "deepseek-v4" in key:
        return "deepseek-v4-pro"
    if "dsr1" in key or "deepseek-r1" in key:
        return "deepseek-r1-nvfp4"
    if "glm-5.2" in key or "glm5.2" in key:
        return "glm-5.2"
    if "glm-5" in key or "glm5" in key:
        return "glm-5"
    if "qwen3.5" in key:
        return "qwen3.5-397b"
    raise ValueError(f"no stand-in model for model.path={path!r} served-model-name={served!r}")


def flags(mapping: dict) -> list[str]:
    """srtctl's mapping -> CLI flags (sorted keys, '_' -> '-')."""
    out: list[str] = []
    for key, value in sorted(mapping.items()):
        flag = "--" + str(key).replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, list):
            out.append(flag)
            out.extend(str(v) for v in value)
        else:
            out.extend([flag, str(value)])
    return out


def _merge(base, over):
    """srt-slurm's deep merge (docs/overrides.md): dicts recursively, lists and scalars replaced, null deletes."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        return over
    out = dict(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = _merge(out.get(k), v) if isinstance(v, dict) else v
    return out


def _zip_len(node) -> int:
    """The length a zip section's list leaves share (1-item lists broadcast)."""
    found = set()

    def walk(n):
        if isinstance(n, dict):
            for v in n.values():
                found.add(len(v)) if isinstance(v, list) else walk(v)

    walk(node)
    many = found - {1}
    if len(many) > 1:
        raise ValueError(f"zipped lists of different lengths: {sorted(many)}")
    return many.pop() if many else 1


def _pick(node, i: int):
    """Variant ``i`` of a zip section: each list leaf gives its item ``i`` (one item: every variant)."""
    if isinstance(node, dict):
        return {k: _pick(v, i) for k, v in node.items()}
    if isinstance(node, list):
        return node[0] if len(node) == 1 else node[i]
    return node


def variants(recipe: dict) -> list[tuple[str, dict]]:
    """(suffix, recipe) of every job a recipe describes: itself, or a sweep's base and each variant."""
    if not isinstance(recipe, dict) or "base" not in recipe:
        return [("", recipe)]
    base = recipe["base"]
    out = [(":base", base)]
    for key, section in recipe.items():
        if key.startswith("override_"):
            out.append((f":{key}", _merge(base, section)))
        elif key.startswith("zip_override_"):
            out += [(f":{key}[{i}]", _merge(base, _pick(section, i))) for i in range(_zip_len(section))]
    return out


def launches(recipes_dir: Path, models: str, sweeps: bool = False) -> tuple[list[dict], list[str]]:
    """One case per (recipe, role); also the recipe files that hold no top-level backend.sglang_config.

    With ``sweeps``, a sweep recipe (``base:`` + ``override_*``/``zip_override_*``) gives a case per
    role of its base and of every variant (ids ``file:variant:role``) instead of being skipped.
    """
    cases, skipped = [], []
    for path in sorted(recipes_dir.glob("*.yaml")):
        whole = yaml.safe_load(path.read_text())
        if sweeps and isinstance(whole, dict) and "base" in whole:
            for suffix, recipe in variants(whole):
                backend = recipe.get("backend") or {}
                gpu_type = str((recipe.get("resources") or {}).get("gpu_type", "")).lower()
                for role, mapping in (backend.get("sglang_config") or {}).items():
                    if mapping is None:
                        continue
                    case = {"id": f"{path.name}{suffix}:{role}", "gpu": gpu_of(recipe), "gpu_type": gpu_type}
                    case.update(case_for(recipe, str(role), dict(mapping), models))
                    cases.append(case)
            continue
        recipe = whole
        backend = recipe.get("backend") if isinstance(recipe, dict) else None
        sglang_config = (backend or {}).get("sglang_config") if isinstance(backend, dict) else None
        if not sglang_config:
            skipped.append(path.name)
            continue
        gpu_type = str((recipe.get("resources") or {}).get("gpu_type", "")).lower()
        gpu = "b200" if gpu_type in BLACKWELL else "h200"
        for role, mapping in sglang_config.items():
            case = {"id": f"{path.name}:{role}", "gpu": gpu, "gpu_type": gpu_type}
            case.update(case_for(recipe, str(role), dict(mapping or {}), models))
            cases.append(case)
    return cases, skipped


def gpu_of(recipe: dict) -> str:
    """The simulated GPU for a recipe: b200 for Blackwell ``resources.gpu_type``, else h200."""
    gpu_type = str((recipe.get("resources") or {}).get("gpu_type", "")).lower()
    return "b200" if gpu_type in BLACKWELL else "h200"


def case_for(recipe: dict, role: str, mapping: dict, models: str = "standin") -> dict:
    """``argv``, ``standin`` (and ``model`` for ``--models deepseek-v3``) of one role mapping's launch."""
    mapping = dict(mapping)
    name = mapping.get("served-model-name", mapping.get("served_model_name", "model"))
    model = standin(recipe, mapping)
    mapping.pop("model-path", None)
    mapping.pop("model_path", None)
    argv = ["--served-model-name", str(name), "--host", "0.0.0.0"]
    if role in ROLES_WITH_MODE:
        argv += ["--disaggregation-mode", str(role)]
    argv += flags(mapping)
    case = {"standin": model}
    if models == "deepseek-v3":
        case["model"] = "deepseek-v3"
    else:
        argv += ["--model-path", str(STAND_INS / model)]
    case["argv"] = argv
    return case


def first_line(answer: dict) -> str:
    msg = (answer.get("message") or "").strip().splitlines()
    return f"{answer.get('error_type', '?')}: {msg[0] if msg else ''}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixed", type=Path, metavar="DIR", help="read recipes from DIR (e.g. a copy after autofix --write)")
    ap.add_argument("--models", choices=("standin", "deepseek-v3"), default="standin",
                    help="model per launch: family stand-in (default) or DeepSeek-V3 for all")
    ap.add_argument("--json", type=Path, metavar="OUT", help="save all results as JSON")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-launch lines")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--sweeps", action="store_true",
                    help="also the sweep recipe: its base's and every variant's launches (srt-slurm overrides)")
    args = ap.parse_args(argv)

    recipes_dir = args.fixed or RECIPES
    cases, skipped = launches(recipes_dir, args.models, args.sweeps)
    by_gpu: dict[str, list[dict]] = collections.defaultdict(list)
    for c in cases:
        by_gpu[c["gpu"]].append(c)
    answers: dict[str, dict] = {}
    for gpu, group in sorted(by_gpu.items()):
        batch = [{k: c[k] for k in ("id", "argv", "model") if k in c} for c in group]
        for a in run_batch(batch, timeout=args.timeout, gpu=gpu):
            answers[a["id"]] = a

    results = []
    for c in cases:
        a = answers[c["id"]]
        r = {"id": c["id"], "gpu": c["gpu"], "gpu_type": c["gpu_type"], "model": a.get("model"),
             "ok": bool(a["ok"]), "argv": c["argv"]}
        if not a["ok"]:
            r.update(error=first_line(a), message=a.get("message"), where=a.get("where"), stage=a.get("stage"))
        results.append(r)
        if not args.quiet:
            print(f"{'ok  ' if r['ok'] else 'FAIL'} {c['gpu']} {c['id']}" + ("" if r["ok"] else f"  [{r['where']}] {r['error']}"))

    ok = sum(r["ok"] for r in results)
    refused = collections.Counter(r["error"] for r in results if not r["ok"])
    print(f"\nrecipes dir: {recipes_dir}  models: {args.models}")
    if skipped:
        print(f"files without a top-level backend.sglang_config (not counted): {', '.join(skipped)}")
    per_gpu = collections.Counter((r["gpu"], r["ok"]) for r in results)
    for gpu in sorted(by_gpu):
        print(f"  gpu {gpu}: {per_gpu[(gpu, True)]}/{per_gpu[(gpu, True)] + per_gpu[(gpu, False)]} accepted")
    print(f"accepted: {ok}/{len(results)}   refused: {len(results) - ok}")
    print("refusals by error (first line):")
    for err, n in refused.most_common():
        print(f"  {n:4d}  {err}")
    if args.json:
        args.json.write_text(json.dumps({"recipes_dir": str(recipes_dir), "models": args.models,
                                         "accepted": ok, "total": len(results), "skipped_files": skipped,
                                         "refusals": dict(refused.most_common()), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
