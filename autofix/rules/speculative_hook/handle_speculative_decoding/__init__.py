"""``handle_speculative_decoding`` (``arg_groups/speculative_hook.py:121``, 0.5.23): speculative decoding, one
module per part of the hook: the algorithm and what every algorithm shares, then one module per function the
hook calls for an algorithm family (EAGLE/NEXTN/STANDALONE, NGRAM, DFLASH, DSpark, UNO, adaptive steps), a family's
longer parts in modules of their own (EAGLE's rejection sampling; UNO's tree mode, its features, its serving)."""
