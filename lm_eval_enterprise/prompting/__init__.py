"""Prompts: the template tables and the YAML generator (:mod:`.templating`), template populations
(:mod:`.population`), the context budget that fits shots into the model's window (:mod:`.budget`) and the prompt
rendering cache (:mod:`.speedups`)."""
