"""SGLang's ``arg_groups/moe_hook.py`` (0.5.23): one module per step.

``handle_moe_kernel_config`` resolves the runner from the quantization and
asserts what each runner supports, on the runner and sizes as they are
*then*, before ``handle_a2a_moe`` rewrites the a2a backend and ``ep_size``.
"""

# Quantizations the flashinfer_cutlass runner takes (moe_hook.py:81): RUN005's, and so the runner a fix may pick for
# them.
CUTLASS_QUANTIZATIONS = ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None)
