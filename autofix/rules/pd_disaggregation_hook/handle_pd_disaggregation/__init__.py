"""``handle_pd_disaggregation`` (``arg_groups/pd_disaggregation_hook.py:23``, 0.5.23): the transfer backend, the
`prefill_complete` policy, decode host receive, the decode and prefill role defaults and runtime role switching,
one module each; ``common`` holds what they share."""
