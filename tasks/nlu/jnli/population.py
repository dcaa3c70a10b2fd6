"""Instruction wordings of the jnli template population (``lm_eval_enterprise.prompting.population``), in
Japanese: each states the same task as core template t1 (does the premise entail the hypothesis?); the grammar
adds the label list (含意 / 中立 / 矛盾)."""

WORDINGS = [
    "前提の文から仮説の文が導けるか（含意）、矛盾するか（矛盾）、どちらとも言えないか（中立）を判断してください。",
    "前提が正しいとき、仮説は必ず正しいか、必ず誤りか、どちらとも言えないかを答えてください。",
    "次の二つの文の論理的な関係を、含意・中立・矛盾のいずれかに分類してください。",
]
