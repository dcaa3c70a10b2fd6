"""Instruction wordings of the iotspotter template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Based on its Google Play description, is the app an IoT (Internet of Things) companion app?",
    (
        "Classify the Android app as iot (it controls or connects to a smart device) or non-iot from its "
        "store description."
    ),
    "Decide from the store description whether the app is an IoT companion app.",
]
