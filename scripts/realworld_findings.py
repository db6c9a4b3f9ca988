#!/usr/bin/env python
"""Check every autofix finding in the real-world srt-slurm recipes against SGLang, one by one.

For each recipe of ``../shared/realworld/inferencex`` (or ``--recipes DIR``)
that has a top-level ``backend.sglang_config`` and each of its role mappings
(prefill, decode, aggregated: one launch each, read as srtctl turns them into
flags, exactly as ``scripts/realworld.py`` does), this script:

1. runs autofix with safe fixes (``fix_source``) on the recipe and takes the
   diagnostics whose line falls inside the role's mapping;
2. finds the keys each finding's fix changed: the role mapping of the original
   and of the fixed text are diffed key by key (value changed, key added or
   removed, a repeated key's copies removed), and each changed key is given
   to the finding that claims it. A finding claims the key at its own line,
   the keys of the entries its fix's ops name (``Drop``/``Revalue``/
   ``Respell``/``Rewrite`` entry index -> that entry's line -> key), and the
   keys whose SGLang dest its ops write (``Set``/``Unset`` dest, ``Respell``/
   ``Rewrite`` flags). A changed key claimed by two findings, or a finding that
   claims no changed key, is reported as *ambiguous* and not tested; a changed
   key no finding claims is reported per role (``unattributed``);
3. builds the leave-one-out launch: the FIXED mapping with that finding's keys
   put back as they were in the original (restored, or removed when the
   original had no such key), and runs the oracle (``harness/oracle/oracle.py``
   ``run_batch``, ``fields: all``) on the original launch, the fully fixed
   launch and every leave-one-out launch (``--gpu b200`` for Blackwell
   recipes, stand-in model per recipe family, as ``scripts/realworld.py``);
4. judges each finding. The fixed launch must be accepted. Then:

   * a rule that refuses (``Violation.refuses`` true: SGLang stops): the
     leave-one-out launch must be refused with the error the rule describes:
     for an argparse-stage rule (``VER001``, ``ARG0xx``, ``CFG0xx``), an
     argparse refusal (``where == argparse``) whose message names the flag of
     the finding's key (``ambiguous option: --cuda-graph-max-bs ...``); for a
     settings rule, a refusal raised at the rule's ``at``
     (``EP003``: ``arg_groups/parallel_hook.py:783``);
   * a rule that does not refuse (``DEP001`` deprecations, ``ARG007`` repeats):
     the leave-one-out launch must be accepted AND resolve to the same values
     as the fixed launch for every field the fix touched (the SGLang dests of
     the finding's keys, its ``args`` and its ops' dests). Whether *all*
     resolved fields agree (``random_seed`` excepted) is reported alongside.

   A repeated YAML key (ARG007) collapses to its last copy when srtctl loads
   the recipe, so its leave-one-out argv equals the fixed argv; the script
   also checks the finding's claim that SGLang uses the later copy (the
   resolved value equals the last copy's value) and says when argv are equal.

Prints per rule code: findings, confirmed, not confirmed, ambiguous/untested
(the first few unconfirmed in full) and sample diagnostics
(``path:line:col: CODE message``); ``--json OUT`` saves every finding, its
keys, its leave-one-out argv and the three oracle answers.

Run (needs /tmp/oracle-venv, see ../shared/oracle/README.md; ~1-2 min):

    /tmp/afvenv/bin/python scripts/realworld_findings.py
    /tmp/afvenv/bin/python scripts/realworld_findings.py --json /tmp/findings.json
    /tmp/afvenv/bin/python scripts/realworld_findings.py --recipes DIR --show 5
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from realworld import RECIPES, case_for, first_line, gpu_of  # noqa: E402

from autofix.adapters import detect  # noqa: E402
from autofix.common.diagnostics import Applicability, Drop, Respell, Revalue, Rewrite, Set, Unset  # noqa: E402
from autofix.core.api import fix_source  # noqa: E402
from autofix.rules import BY_CODE  # noqa: E402
from autofix.rules.base import ArgsRule  # noqa: E402
from autofix.schema import load as load_schema  # noqa: E402
from harness.oracle.oracle import run_batch  # noqa: E402

MISSING = object()
IGNORED_FIELDS = {"random_seed"}  # random per run (oracle README)


@dataclass
class Role:
    """One role mapping as srtctl loads it: pairs in file order, and where it is."""

    name: str
    line: int  # line of the role key
    first: int  # first and last line of the mapping
    last: int
    pairs: list[tuple[str, Any, int]] = field(default_factory=list)  # (key, value, key line)

    @property
    def mapping(self) -> dict:
        return {k: v for k, v, _ in self.pairs}  # a repeated key keeps its last value, as yaml.safe_load

    def key_at(self, line: int) -> str | None:
        return next((k for k, _, ln in self.pairs if ln == line), None)


def roles_of(text: str) -> tuple[dict, dict[str, Role]]:
    """The recipe (``yaml.safe_load``) and its top-level ``backend.sglang_config`` role mappings."""
    recipe = yaml.safe_load(text)
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        roles: dict[str, Role] = {}

        def child(node, key):
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == key:
                        return v
            return None

        config = child(child(root, "backend"), "sglang_config")
        if isinstance(config, yaml.MappingNode):
            for knode, vnode in config.value:
                if not isinstance(vnode, yaml.MappingNode):
                    continue
                role = Role(str(knode.value), knode.start_mark.line + 1, vnode.start_mark.line + 1,
                            vnode.end_mark.line + 1)
                for k, v in vnode.value:
                    role.pairs.append((str(loader.construct_object(k, deep=True)),
                                       loader.construct_object(v, deep=True), k.start_mark.line + 1))
                roles[role.name] = role
    finally:
        loader.dispose()
    return recipe, roles


def changed_keys(orig: Role, fixed: Role) -> set[str]:
    """Keys whose value, presence or number of copies differs between the two mappings."""
    a, b = orig.mapping, fixed.mapping
    ca = collections.Counter(k for k, _, _ in orig.pairs)
    cb = collections.Counter(k for k, _, _ in fixed.pairs)
    return {k for k in set(a) | set(b)
            if a.get(k, MISSING) != b.get(k, MISSING) or type(a.get(k)) is not type(b.get(k)) or ca[k] != cb[k]}


def flag_dest(schema, flag: str) -> str | None:
    m = schema.match(flag)
    return m.option.dest if m.option else None


def key_dest(schema, key: str) -> str | None:
    return flag_dest(schema, "--" + key.replace("_", "-"))


def claims(d, role: Role, fixed: Role, entries, schema) -> tuple[set[str], set[str], list[str]]:
    """Keys (original or fixed spelling) a finding's fix may have changed, the dests its ops touch, notes."""
    notes: list[str] = []
    keys: set[str] = set()
    op_dests: set[str | None] = set()
    k0 = role.key_at(d.location.line)
    if k0 is None:
        notes.append(f"no key at line {d.location.line}")
    else:
        keys.add(k0)
    fix = d.violation.best_fix(Applicability.SAFE)
    for op in (fix.ops if fix else ()):
        if isinstance(op, (Drop, Revalue, Respell, Rewrite)):
            if entries is None or op.entry >= len(entries):
                notes.append(f"entry {op.entry} not found")
                continue
            k = role.key_at(entries[op.entry].loc.line)
            if k is None:
                notes.append(f"entry {op.entry} ({entries[op.entry].shown}) is at no key")
            else:
                keys.add(k)
            op_dests.add(entries[op.entry].dest)
        if isinstance(op, Respell):
            op_dests.add(flag_dest(schema, op.flag))
        elif isinstance(op, Rewrite):
            op_dests.update(flag_dest(schema, f) for f, _ in op.settings)
        elif isinstance(op, (Set, Unset)):
            op_dests.add(op.dest)
    op_dests.discard(None)
    keys.update(k for k, _, _ in (*role.pairs, *fixed.pairs) if key_dest(schema, k) in op_dests)
    dests = set(d.violation.args) | op_dests | {key_dest(schema, k) for k in keys}
    dests.discard(None)
    return keys, dests, notes


def leave_one_out(orig: Role, fixed: Role, keys: set[str]) -> dict:
    """The fixed mapping with ``keys`` put back as the original had them."""
    loo, before = dict(fixed.mapping), orig.mapping
    for k in keys:
        if k in before:
            loo[k] = before[k]
        else:
            loo.pop(k, None)
    return loo


def expected_refusal(code: str, key: str | None, answer: dict) -> tuple[bool, str]:
    """Whether a refused answer is the refusal the rule describes."""
    rule = BY_CODE[code]
    if answer.get("ok"):
        return False, "accepted"
    msg = answer.get("message") or ""
    if isinstance(rule, ArgsRule):
        flag = "--" + (key or "").replace("_", "-")
        if answer.get("where") != "argparse":
            return False, f"refused at {answer.get('where')}, not by argparse"
        if key is None or flag not in msg:
            return False, f"argparse refusal does not name {flag}"
        return True, "argparse refusal names " + flag
    where = answer.get("where") or ""
    if where.endswith(rule.at):
        return True, f"refused at {where}"
    return False, f"refused at {where}, rule mirrors {rule.at}"


def diag_text(d) -> str:
    return f"{d.path}:{d.location.line}:{d.location.col}: {d.code} {d.violation.message}"


def short(answer: dict | None) -> str:
    if answer is None:
        return "-"
    return "accepted" if answer.get("ok") else f"refused [{answer.get('where')}] {first_line(answer)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipes", type=Path, default=RECIPES, metavar="DIR", help="recipes dir (default: %(default)s)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="save every finding and its oracle answers")
    ap.add_argument("--show", type=int, default=3, help="unconfirmed findings and samples shown per code")
    ap.add_argument("--timeout", type=int, default=1800)
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    schema = load_schema()
    findings: list[dict] = []
    cases: dict[str, list[dict]] = collections.defaultdict(list)
    notes: list[str] = []
    role_reports: list[dict] = []
    n_launches = 0
    for path in sorted(args.recipes.glob("*.yaml")):
        text = path.read_text()
        fmt = detect(str(path), text)
        result = fix_source(text, fmt, path=path.name)
        recipe, roles = roles_of(text)
        if not roles:
            if result.diagnostics:
                notes.append(f"{path.name}: no top-level backend.sglang_config; {len(result.diagnostics)} "
                             "diagnostics not checked")
            continue
        _, fixed_roles = roles_of(result.output)
        launches = {ln.start.line: ln for ln in fmt.read(text, path.name, schema)}
        gpu = gpu_of(recipe)
        placed = set()
        for role in roles.values():
            n_launches += 1
            fixed = fixed_roles[role.name]
            rid = f"{path.name}:{role.name}"
            launch = launches.get(role.line)
            entries = launch.entries if launch else None
            ds = [d for d in result.diagnostics if role.first <= d.location.line <= role.last]
            placed.update(id(d) for d in ds)
            diff = changed_keys(role, fixed)
            base = case_for(recipe, role.name, role.mapping)
            fix_case = case_for(recipe, role.name, fixed.mapping)
            cases[gpu].append({"id": f"{rid}:original", "argv": base["argv"], "fields": "all"})
            cases[gpu].append({"id": f"{rid}:fixed", "argv": fix_case["argv"], "fields": "all"})
            per = []
            for d in ds:
                keys, dests, why = claims(d, role, fixed, entries, schema)
                per.append((d, keys & diff, dests, why))
            owners = collections.Counter(k for _, ks, _, _ in per for k in ks)
            unattributed = sorted(diff - set(owners))
            role_reports.append({"id": rid, "gpu": gpu, "changed_keys": sorted(diff), "unattributed": unattributed,
                                 "findings": len(ds)})
            if unattributed:
                notes.append(f"{rid}: changed keys no finding claims: {unattributed}")
            for i, (d, keys, dests, why) in enumerate(per):
                f = {"id": f"{rid}:{i}", "recipe": path.name, "role": role.name, "gpu": gpu, "code": d.code,
                     "diagnostic": diag_text(d), "refuses": bool(d.violation.refuses), "after": list(d.after),
                     "fixable": d.fixable, "keys": sorted(keys), "fields": sorted(dests), "notes": why,
                     "key": role.key_at(d.location.line), "launch": rid}
                shared = sorted(k for k in keys if owners[k] > 1)
                if not d.fixable:
                    f["status"] = "untested"
                    f["reason"] = "no safe fix: nothing to leave out"
                elif not keys:
                    f["status"] = "ambiguous"
                    f["reason"] = "its fix changed no key it claims" + (f" ({'; '.join(why)})" if why else "")
                elif shared:
                    f["status"] = "ambiguous"
                    f["reason"] = f"keys {shared} are claimed by another finding in this role too"
                else:
                    loo = leave_one_out(role, fixed, keys)
                    f["loo_argv"] = case_for(recipe, role.name, loo)["argv"]
                    f["loo_equals_fixed"] = f["loo_argv"] == fix_case["argv"]
                    f["loo_mapping_changes"] = {k: [fixed.mapping.get(k, "<absent>"), loo.get(k, "<absent>")]
                                                for k in keys}
                    cases[gpu].append({"id": f["id"], "argv": f["loo_argv"], "fields": "all"})
                findings.append(f)
        for d in result.diagnostics:
            if id(d) not in placed:
                notes.append(f"outside any role mapping: {diag_text(d)}")
    t_autofix = time.monotonic() - t0

    answers: dict[str, dict] = {}
    for gpu, batch in sorted(cases.items()):
        for a in run_batch(batch, timeout=args.timeout, gpu=gpu):
            answers[a["id"]] = a
    t_oracle = time.monotonic() - t0 - t_autofix

    for f in findings:
        orig, fixed = answers[f"{f['launch']}:original"], answers[f"{f['launch']}:fixed"]
        f["original"], f["fixed"] = short(orig), short(fixed)
        if "status" in f:
            continue
        loo = answers[f["id"]]
        f["leave_one_out"] = short(loo)
        if loo.get("ok"):
            f["loo_resolved"] = {k: loo["resolved"].get(k, "<not reported>") for k in f["fields"]}
        if not fixed.get("ok"):
            f["status"], f["reason"] = "not confirmed", "the fixed launch itself is refused"
        elif f["refuses"]:
            ok, why = expected_refusal(f["code"], f["key"], loo)
            f["status"], f["reason"] = ("confirmed" if ok else "not confirmed"), why
        elif not loo.get("ok"):
            f["status"], f["reason"] = "not confirmed", "rule does not refuse, but SGLang refuses the launch"
        else:
            rf, rl = fixed["resolved"], loo["resolved"]
            differ = {k: [rf.get(k, "<not reported>"), rl.get(k, "<not reported>")]
                      for k in f["fields"] if rf.get(k, MISSING) != rl.get(k, MISSING)}
            absent = [k for k in f["fields"] if k not in rf and k not in rl]
            all_differ = sorted(k for k in set(rf) | set(rl)
                                if k not in IGNORED_FIELDS and rf.get(k, MISSING) != rl.get(k, MISSING))
            f["touched_fields_differ"], f["all_fields_differ"] = differ, all_differ
            if absent:
                f["fields_not_reported"] = absent
            if differ:
                others = sorted(set(all_differ) - set(differ))
                f["status"], f["reason"] = "not confirmed", (
                    f"accepted, but resolves differently: {differ}; "
                    + (f"other fields differ too: {others}" if others else "every other resolved field equal"))
            else:
                f["status"] = "confirmed"
                f["reason"] = (f"accepted; same resolved {sorted(set(f['fields']) - set(absent))}"
                               + ("; every resolved field equal" if not all_differ else
                                  f"; other fields differ: {all_differ}")
                               + ("; leave-one-out argv == fixed argv" if f["loo_equals_fixed"] else ""))
            if f["code"] == "ARG007" and f["key"]:
                dest = key_dest(schema, f["key"])
                fixed_value = rl.get(dest, MISSING)
                role = roles_of((args.recipes / f["recipe"]).read_text())[1][f["role"]]
                last = role.mapping.get(f["key"])
                f["later_copy_used"] = str(fixed_value).lower() == str(last).lower()
                f["reason"] += f"; SGLang resolves {dest}={fixed_value!r}, the later copy is {last!r}"
                if not f["later_copy_used"]:
                    f["status"] = "not confirmed"
    t_total = time.monotonic() - t0

    # report
    by_code: dict[str, list[dict]] = collections.defaultdict(list)
    for f in findings:
        by_code[f["code"]].append(f)
    originals = role_reports
    acc = lambda kind: sum(bool(answers[f"{r['id']}:{kind}"].get("ok")) for r in originals)  # noqa: E731
    print(f"recipes: {args.recipes}   launches: {n_launches}   findings: {len(findings)}   "
          f"oracle cases: {sum(map(len, cases.values()))}")
    print(f"oracle: originals accepted {acc('original')}/{len(originals)}, fixed accepted "
          f"{acc('fixed')}/{len(originals)}")
    print(f"\n{'code':8} {'refuses':8} {'findings':>8} {'confirmed':>10} {'not conf.':>10} {'ambiguous':>10} "
          f"{'untested':>9}")
    for code in sorted(by_code):
        fs = by_code[code]
        c = collections.Counter(f["status"] for f in fs)
        refuses = sorted({str(f['refuses']).lower() for f in fs})
        print(f"{code:8} {'/'.join(refuses):8} {len(fs):8d} {c['confirmed']:10d} {c['not confirmed']:10d} "
              f"{c['ambiguous']:10d} {c['untested']:9d}")
    total = collections.Counter(f["status"] for f in findings)
    print(f"{'total':8} {'':8} {len(findings):8d} {total['confirmed']:10d} {total['not confirmed']:10d} "
          f"{total['ambiguous']:10d} {total['untested']:9d}")
    for code in sorted(by_code):
        fs = by_code[code]
        print(f"\n== {code} ({BY_CODE[code].name}): {len(fs)} findings")
        reasons = collections.Counter(f["reason"].split(";")[0] if f["status"] == "confirmed" else f["reason"]
                                      for f in fs)
        for r, n in reasons.most_common(6):
            print(f"   {n:4d} x {r}")
        for f in fs[: args.show]:
            print(f"   sample: {f['diagnostic']}")
            print(f"           keys {f['keys']}  fields {f['fields']}")
            print(f"           original: {f['original']}")
            print(f"           leave-one-out: {f.get('leave_one_out', '-')}  -> {f['status']}: {f['reason']}")
        bad = [f for f in fs if f["status"] != "confirmed"]
        for f in bad[: args.show]:
            print(f"   {f['status'].upper()}: {f['diagnostic']}")
            print(f"      recipe {f['recipe']} role {f['role']}  keys {f['keys']}")
            print(f"      fixed: {f['fixed']}")
            print(f"      leave-one-out: {f.get('leave_one_out', '-')}")
            print(f"      why: {f['reason']}")
    if notes:
        print("\nnotes:")
        for n in notes:
            print(f"  {n}")
    print(f"\ntime: autofix {t_autofix:.1f}s, oracle {t_oracle:.1f}s, total {t_total:.1f}s")
    if args.json:
        for f in findings:
            f["answers"] = {"original": answers.get(f"{f['launch']}:original"),
                            "fixed": answers.get(f"{f['launch']}:fixed"), "leave_one_out": answers.get(f["id"])}
        args.json.write_text(json.dumps({"recipes_dir": str(args.recipes), "launches": n_launches,
                                         "by_code": {c: dict(collections.Counter(f["status"] for f in fs))
                                                     for c, fs in sorted(by_code.items())},
                                         "roles": role_reports, "notes": notes, "findings": findings},
                                        indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
