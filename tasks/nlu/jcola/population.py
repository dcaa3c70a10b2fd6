"""Instruction wordings of the jcola template population (``lm_eval_enterprise.prompting.population``), in
Japanese: each states the same task as core template t1 (is the sentence linguistically acceptable?); the
grammar adds the label list (容認できない / 容認できる)."""

WORDINGS = [
    "次の日本語の文が言語的に容認できるかどうかを判断してください。",
    "言語学者の立場から、次の文が文法的にも意味的にも自然な日本語として容認できるかどうかを答えてください。",
    "次の文を、容認できる文か容認できない文かに分類してください。",
]
