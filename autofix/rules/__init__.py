"""The rules, one package per SGLang hook module and one module per step, and their registry.

``WRITTEN``: the checks of how a launch is written, in the order SGLang (and
before it, the host) meets them: Docker's reading of a Dockerfile, the
``--config`` merger, argparse. ``SETTINGS``: the derivations and settings
rules of SGLang's resolution steps, one package per SGLang hook module and
one module per step (``autofix/rules/parallel_hook/handle_eplb_and_dispatch.py``
holds the checks of ``handle_eplb_and_dispatch`` in
``sglang/srt/arg_groups/parallel_hook.py``; a long step is a package of
modules, ``autofix/rules/moe_hook/handle_a2a_moe/``), gathered from those
modules; their order is their pipeline position (``autofix.pipeline.run.order``),
not this tuple's. What several hook packages read is in ``shared``.

May import: ``autofix.common``, ``autofix.schema``, ``autofix.pipeline``. A hook package imports
another only where SGLang's own hook modules do (tests/rules/test_hook_imports.py).
"""

from __future__ import annotations

import importlib

from autofix.common.errors import UnknownRule
from autofix.pipeline.items import Derivation, SettingsRule
from autofix.pipeline.run import order
from autofix.rules import (
    config_file,
    deprecated,
    dockerfile,
    lora_paths,
    options,
    repeats,
    suppression,
    values,
    versions,
)
from autofix.rules.base import CommentRule, WrittenRule
from autofix.schema import load

WRITTEN: tuple[WrittenRule, ...] = tuple(
    r for family in (dockerfile, config_file, versions, options, values, lora_paths, repeats, deprecated)
    for r in family.RULES
)
# The step modules, under this package: each subpackage is named after an SGLang module (arg_groups/<name>.py),
# each of its modules after a step; a step with many checks may be a package of modules itself. Written out
# rather than found by walking the folders (pkgutil and the walk were ~3% of a one-file start-up, issue 15), as
# yamllint lists its rules; tests/rules/test_registry.py checks the list against the tree.
STEP_MODULES: tuple[str, ...] = (
    "attention_hook.handle_attention_backend_compatibility", "attention_hook.handle_deterministic_inference",
    "attention_hook.handle_multi_item_scoring",
    "cuda_graph_hook.apply_prefill_cp_cuda_graph_default",
    "cuda_graph_hook.disable_prefill_cuda_graph_for_deepseek_trtllm_mla", "cuda_graph_hook.handle_cuda_graph_config",
    "expert_pack_hook.handle_expert_pack",
    "hicache_hook.handle_hicache",
    "kv_cache_hook.handle_cache_compatibility",
    "kv_shard_hook.handle_kv_cache_sharding",
    "layernorm_sp_hook.handle_layernorm_sp",
    "mega_moe_hook.handle_mega_moe", "mega_moe_hook.validate_mega_moe_token_budget_for_model",
    "memory_hook.handle_gpu_memory_settings",
    "model_hook.handle_model_specific_adjustments",
    "moe_hook.handle_a2a_moe", "moe_hook.handle_a2a_moe.ascend_tp", "moe_hook.handle_a2a_moe.backend",
    "moe_hook.handle_a2a_moe.common", "moe_hook.handle_a2a_moe.deepep", "moe_hook.handle_a2a_moe.deepep_v2",
    "moe_hook.handle_a2a_moe.flashinfer", "moe_hook.handle_a2a_moe.flashinfer_megamoe", "moe_hook.handle_a2a_moe.mori",
    "moe_hook.handle_a2a_moe.pplx", "moe_hook.handle_moe_kernel_config", "moe_hook.handle_moe_kernel_config.common",
    "moe_hook.handle_moe_kernel_config.quantization", "moe_hook.handle_moe_kernel_config.runners",
    "moe_hook.validate_deepep_v2_speculative_draft",
    "moe_hook.validate_flashinfer_a2a_token_budget",
    "overrides._page_size_default", "overrides._pipeline_parallel_overlap_disable",
    "parallel_hook.handle_context_parallelism", "parallel_hook.handle_context_parallelism.attention_cp",
    "parallel_hook.handle_context_parallelism.common", "parallel_hook.handle_context_parallelism.moe_dp",
    "parallel_hook.handle_data_parallelism",
    "parallel_hook.handle_decode_context_parallelism", "parallel_hook.handle_deprecated_dp_attention",
    "parallel_hook.handle_dwdp", "parallel_hook.handle_elastic_ep", "parallel_hook.handle_elastic_ep.common",
    "parallel_hook.handle_elastic_ep.elastic", "parallel_hook.handle_elastic_ep.scale_up_cuda_graphs",
    "parallel_hook.handle_elastic_ep.scale_up_deployment", "parallel_hook.handle_elastic_ep.scale_up_join",
    "parallel_hook.handle_elastic_ep.scale_up_limits", "parallel_hook.handle_elastic_ep.scale_up_parallelism",
    "parallel_hook.handle_elastic_ep.scale_up_topology",
    "parallel_hook.handle_eplb_and_dispatch", "parallel_hook.handle_expert_distribution_metrics",
    "parallel_hook.handle_shared_experts_tp",
    "pd_disaggregation_hook.handle_encoder_disaggregation", "pd_disaggregation_hook.handle_pd_disaggregation",
    "pd_disaggregation_hook.handle_pd_disaggregation.common",
    "pd_disaggregation_hook.handle_pd_disaggregation.host_receive",
    "pd_disaggregation_hook.handle_pd_disaggregation.prefill_complete",
    "pd_disaggregation_hook.handle_pd_disaggregation.role_switch",
    "pd_disaggregation_hook.handle_pd_disaggregation.roles",
    "pd_disaggregation_hook.handle_pd_disaggregation.transfer",
    "platform_hook.handle_cpu_backends", "platform_hook.handle_xpu_backends",
    "runtime_context._configure_context",
    "serving_hook.handle_load_balance_method", "serving_hook.handle_missing_default_values",
    "serving_hook.handle_other_validations",
    "speculative_hook.handle_speculative_decoding", "speculative_hook.handle_speculative_decoding.adaptive",
    "speculative_hook.handle_speculative_decoding.algorithm", "speculative_hook.handle_speculative_decoding.common",
    "speculative_hook.handle_speculative_decoding.dflash",
    "speculative_hook.handle_speculative_decoding.dflash_draft_attention",
    "speculative_hook.handle_speculative_decoding.dspark",
    "speculative_hook.handle_speculative_decoding.dspark_draft", "speculative_hook.handle_speculative_decoding.eagle",
    "speculative_hook.handle_speculative_decoding.eagle_rejection_sampling",
    "speculative_hook.handle_speculative_decoding.ngram", "speculative_hook.handle_speculative_decoding.uno",
    "speculative_hook.handle_speculative_decoding.uno_serving",
    "speculative_hook.handle_speculative_decoding.uno_tree",
    "speculative_hook.handle_speculative_decoding.uno_tree_features",
    "validation_hook.check_server_args", "validation_hook.check_server_args.chunked_prefill",
    "validation_hook.check_server_args.lora", "validation_hook.check_server_args.lora_moe_runners",
    "validation_hook.check_server_args.lora_speculative", "validation_hook.check_server_args.pdmux",
    "validation_hook.check_server_args.sizes_and_pipeline", "validation_hook.handle_aux_hidden_state_capture",
    "validation_hook.validate_experimental_sgl_marlin", "validation_hook.validate_response_store",
)


def defined_in(item: Derivation | SettingsRule) -> str:
    """The module that defines ``item`` (its function's)."""
    return (item.check if isinstance(item, SettingsRule) else item.derive).__module__


def _items() -> tuple[Derivation | SettingsRule, ...]:
    """Every derivation and settings rule defined at module level in a step module, once each."""
    found: dict[int, Derivation | SettingsRule] = {}
    for name in STEP_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if isinstance(value, (Derivation, SettingsRule)) and defined_in(value) == module.__name__:
                found.setdefault(id(value), value)
    return tuple(found.values())


SETTINGS: tuple[Derivation | SettingsRule, ...] = _items()
# What a user can look up by code: every rule, and every derivation that warns (its override code), the
# settings ones in pipeline order
Rule = WrittenRule | SettingsRule | Derivation
# The checks of autofix's own suppression comments (run by api.fix_source once the others have run)
COMMENTS: tuple[CommentRule, ...] = suppression.RULES
# (an override made by several declarations of one step, DWDP008, is documented by the first)
BY_CODE: dict[str, Rule] = {}
for _r in (*WRITTEN, *(it for it in order(SETTINGS, load()) if isinstance(it, SettingsRule) or it.code), *COMMENTS):
    BY_CODE.setdefault(_r.code, _r)  # type: ignore[arg-type]  # a derivation only with its code
RULES: tuple[Rule, ...] = tuple(BY_CODE.values())
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}  # type: ignore[misc]  # a derivation of a code has a name


def get(code_or_name: str) -> Rule:
    """The rule with this code (``EP003``, any case) or name (``ep-dispatch-needs-a2a``).

    Raises ``UnknownRule``.
    """
    found = BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name)
    if found is None:
        raise UnknownRule(f"unknown rule: {code_or_name}")
    return found
