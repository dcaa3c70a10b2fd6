"""Instruction wordings of the jsquad template population (``lm_eval_enterprise.prompting.population``), in
Japanese: each states the same task and the same answer format as core template t1 (answer the question about
the article with a span copied from it)."""

WORDINGS = [
    "記事を読んで、質問の答えを記事の中からそのまま抜き出して答えてください。",
    "次の文章に基づいて質問に答えてください。答えは文章中の語句をそのまま一つだけ書いてください。",
    "質問に対する答えとなる部分を本文から抜き出し、その語句だけを答えてください。",
]
