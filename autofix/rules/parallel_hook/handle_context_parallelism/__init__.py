"""``handle_context_parallelism`` (``arg_groups/parallel_hook.py:94``, 0.5.23): what prefill CP, attention CP and
MoE-DP need, in two modules as the hook checks them: prefill CP's strategy and attention CP, then MoE-DP.

The model-gated checks at the top of the step (CP002–CP008, the CP-TP group
sharing hook) need the model's config and have no rule. The checks here
read the layout as it is *then*: `ep_size` before an EP-spanning a2a
backend sets it to `tp_size` (`handle_a2a_moe` runs later). With
`--enable-prefill-cp`, DeepSeek-family model hooks lay CP out themselves
(attention CP over the TP group, EP = TP) before this step: the layout checks
then read the model's architecture, and without the model's config they stay
silent.
"""
