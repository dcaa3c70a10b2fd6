"""Instruction wordings of the jsts template population (``lm_eval_enterprise.prompting.population``), in
Japanese: each states the same task and the same answer format as core template t1 (the similarity of two
sentences as one number from 0, no meaning overlap, to 5, the same meaning)."""

WORDINGS = [
    "二つの文の意味がどの程度似ているかを、0（意味の重なりがない）から5（同じ意味である）までの数値一つで答えてください。",
    "次の文のペアの類似度を0から5の尺度で評価し、数値だけを答えてください。0はまったく似ていない、5は同じ意味であることを表します。",
    "二つの文が同じことを言っている度合いを、0から5までの数（小数も可）で示してください。",
]
