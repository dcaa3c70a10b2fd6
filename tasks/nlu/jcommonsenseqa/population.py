"""Instruction wordings of the jcommonsenseqa template population (``lm_eval_enterprise.prompting.population``):
each states, in Japanese, the task and the answer format of the core templates, the text of one of the options."""

WORDINGS = [
    "常識に関する質問に、選択肢の中から一つを選んで答えてください。選んだ選択肢の文字列をそのまま書いてください。",
    "日常的な知識を使って、五つの選択肢のうち最も理にかなったものを選び、その選択肢を書いてください。",
    "質問に最もよく当てはまる選択肢はどれですか？一覧に書かれているとおりに、その選択肢だけを答えてください。",
]
