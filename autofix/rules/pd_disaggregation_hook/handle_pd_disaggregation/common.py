"""What the modules of ``handle_pd_disaggregation`` share: the step id, the PD roles."""

from __future__ import annotations

STEP = "handle_pd_disaggregation"
PD_ROLES = ("prefill", "decode")
