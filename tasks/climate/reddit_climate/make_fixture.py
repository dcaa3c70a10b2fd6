#!/usr/bin/env python
"""Write the synthetic reddit_climate fixture ``fixture/the-reddit-climate-change-dataset-comments.csv.zip``.

One CSV member in SocialGrep's column layout (``type, id, subreddit.id, subreddit.name, subreddit.nsfw,
created_utc, permalink, body, sentiment, score``), zipped as the Kaggle download is. The 47 comments and their ids
are invented for lm-eval-enterprise (nothing copied from Reddit): 41 eligible (incl. a multi-line quoted body) and
6 the recipe drops (``[deleted]``, ``[removed]``, 3 words, more than 200 words, sentiment 0, empty sentiment). All
bodies are distinct, so that no evaluated comment equals a few-shot pool comment ([LEAK] removes nothing from the
embedded data). The ``MANIFEST.json`` shrinks the reservoir to 24 (test 12 / pool 12) so that its replacement step
runs on these few rows. Deterministic (fixed zip timestamp).

    .venv/bin/python tasks/climate/reddit_climate/make_fixture.py [--out DIR]
"""

import csv
import io
import zipfile
from pathlib import Path

from lm_eval_enterprise.tasks.climate.reddit_climate.source import COLUMNS, ZIP_NAME

from lm_eval_enterprise.data import generator_main, write_manifest
from lm_eval_enterprise.data.fixtures import FIXED_TIME

SUBREDDIT_IDS = {"climate": "2qhnt", "AskReddit": "2qh1i", "environment": "2qhx4", "news": "2qh3l"}
T0 = 1650000000  # created_utc of post 0; post k was created k hours later
ROWS = [  # (post number k, comment id, subreddit, sentiment, score, body)
    (
        2,
        "is458m6",
        "climate",
        "0.0900",
        "14",
        "Really glad to see this, heat pumps are getting cheaper every year and ours has been brilliant this winter. Climate change is real but so is this kind of progress.",
    ),
    (
        20,
        "is48alo",
        "AskReddit",
        "0.4500",
        "3",
        "Love that my city is doing this, the bus line electrification went smoothly and the drivers say the ride is quieter. Climate change is real but so is this kind of progress.",
    ),
    (
        29,
        "is49tlf",
        "environment",
        "-0.5300",
        "116",
        "This is awful, my street flooded for the third time this year and the drains are still blocked. Climate change is already here for us.",
    ),
    (
        31,
        "is4a5td",
        "news",
        "-0.5650",
        "75",
        "Unbelievable and frustrating, the wildfire smoke kept my kids inside for two weeks and nobody in charge cares. Climate change is already here for us.",
    ),
    (
        25,
        "is4955j",
        "climate",
        "-0.4600",
        "2",
        "Honestly this makes me angry, the coal plant got another extension and the promised retraining never happened. Climate change is already here for us.",
    ),
    (
        0,
        "is44we8",
        "news",
        "0.0500",
        "36",
        "Honestly this is great news, the new solar farm near us has cut the bills for the whole village and nobody misses the old plant. Climate change is real but so is this kind of progress.",
    ),
    (
        30,
        "is49zpe",
        "environment",
        "0.6500",
        "23",
        "Finally some progress, community owned wind turbines are paying for the local library and the pool. Climate change is real but so is this kind of progress.",
    ),
    (40, "is4bot4", "news", "", "119", "[deleted]"),
    (
        44,
        "is4cd90",
        "news",
        "",
        "104",
        "Climate change is discussed in this thread but the scorer gave this one no value at all sadly.",
    ),
    (
        16,
        "is47m5s",
        "news",
        "0.3700",
        "-1",
        "Our town swapped every streetlight for LEDs and put the savings into insulation grants, and honestly the difference in winter bills is huge. More of this please.",
    ),
    (
        28,
        "is49nhg",
        "AskReddit",
        "0.6100",
        "10",
        "Happy to read this, the bike lanes downtown are full every morning and the air feels cleaner already. Climate change is real but so is this kind of progress.",
    ),
    (
        8,
        "is469a0",
        "news",
        "0.2100",
        "63",
        "What a fantastic project, the wetland restoration brought back birds I have not seen since I was a child. Climate change is real but so is this kind of progress.",
    ),
    (
        32,
        "is4abxc",
        "news",
        "0.6900",
        "75",
        "Brilliant news about the offshore wind auction, the prices came in lower than gas for the first time and the port is hiring welders again.",
    ),
    (
        27,
        "is49hdh",
        "AskReddit",
        "-0.4950",
        "67",
        "Sad to see this, the drought killed half the orchard this summer and the insurers will not pay out. Climate change is already here for us.",
    ),
    (
        1,
        "is452i7",
        "climate",
        "-0.0400",
        "116",
        "This is depressing, the council approved another highway expansion while cutting the tram budget again. Climate change is already here for us.",
    ),
    (
        46,
        "is4cpgy",
        "climate",
        "0.4215",
        "32",
        'Quote from the article:\n\n> "Emissions fell, for the first time, in a decade"\n\nGood, climate change needs exactly this kind of news.',
    ),
    (
        5,
        "is45qy3",
        "environment",
        "-0.1100",
        "1",
        "I am so tired of this, they are draining the last peat bog in the county to build a warehouse. Climate change is already here for us.",
    ),
    (
        43,
        "is4c751",
        "environment",
        "0",
        "66",
        "I read the whole article about climate change and still have no opinion either way on it.",
    ),
    (
        45,
        "is4cjcz",
        "climate",
        "0.2",
        "12",
        "climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one climate change is making every season feel a bit stranger than the last one",
    ),
    (
        39,
        "is4bip5",
        "news",
        "-0.7050",
        "1",
        "What a disaster, the company promised net zero and then quietly doubled its drilling permits. Climate change is already here for us.",
    ),
    (
        22,
        "is48mtm",
        "environment",
        "0.4900",
        "6",
        "This gives me some hope, our school started composting and a rooftop garden and the kids absolutely love it. Climate change is real but so is this kind of progress.",
    ),
    (
        18,
        "is47ydq",
        "climate",
        "0.4100",
        "50",
        "We finally got the grant for the community battery and now the whole street runs on stored solar after sunset, which still feels like magic.",
    ),
    (
        14,
        "is479xu",
        "environment",
        "0.3300",
        "59",
        "Nice to see the river cleanup actually worked, the otters are back near the old mill and the kids count them on the way to school.",
    ),
    (
        10,
        "is46lhy",
        "climate",
        "0.2500",
        "41",
        "Good on them, reforestation along the river is stopping the floods that used to ruin the fields. Climate change is real but so is this kind of progress.",
    ),
    (
        24,
        "is48z1k",
        "news",
        "0.5300",
        "49",
        "Great result for the farmers co-op, their cover crops held the soil through the storms and yields went up instead of down this year.",
    ),
    (
        13,
        "is473tv",
        "environment",
        "-0.2500",
        "111",
        "Another heatwave warning and the hospital still has no cooling on the top floors, my grandmother spent three nights there sweating through it.",
    ),
    (
        17,
        "is47s9r",
        "climate",
        "-0.3200",
        "6",
        "They paved over the allotments for a car park and called it regeneration, the bees and the tomatoes are gone and nobody asked us.",
    ),
    (
        21,
        "is48gpn",
        "environment",
        "-0.3900",
        "25",
        "The lake by my parents house has dried into cracked mud for the second summer running and the fishing club has simply given up.",
    ),
    (
        15,
        "is47g1t",
        "news",
        "-0.2850",
        "22",
        "Insurance for our flat doubled after the last flood and the landlord passed every cent on to us, so we are moving out in spring.",
    ),
    (
        33,
        "is4ai1b",
        "climate",
        "-0.6000",
        "69",
        "Terrible to watch the glacier we hiked as students shrink into grey rubble, the guide said the trail will close within five years.",
    ),
    (41, "is4bux3", "climate", "", "23", "[removed]"),
    (
        3,
        "is45eq5",
        "AskReddit",
        "-0.0750",
        "45",
        "Absolutely terrible decision, the reef we dived on ten years ago is now mostly bleached and covered in algae. Climate change is already here for us.",
    ),
    (
        4,
        "is45ku4",
        "AskReddit",
        "0.1300",
        "78",
        "Pleased that the ferry company is trialling electric boats on the short crossing, the first one was quiet and ran on time all week.",
    ),
    (
        38,
        "is4bcl6",
        "environment",
        "0.8100",
        "45",
        "Wonderful to see the youth climate council get a real budget, they already planted two hundred trees along the ring road.",
    ),
    (
        23,
        "is48sxl",
        "news",
        "-0.4250",
        "65",
        "Shameful that the airport expansion got waved through during the holidays, the noise and the extra flights will hit the poorest streets first.",
    ),
    (
        12,
        "is46xpw",
        "AskReddit",
        "0.2900",
        "2",
        "Good to hear the repair cafe is opening a second site, fixing things instead of dumping them saves money and a lot of landfill.",
    ),
    (42, "is4c112", "AskReddit", "0.3", "0", "Climate change, again."),
    (
        37,
        "is4b6h7",
        "environment",
        "-0.6700",
        "69",
        "Disgusted that the mine spilled into the creek again and the fine is smaller than one day of their profits, the fish kill went on for miles.",
    ),
    (
        6,
        "is45x22",
        "environment",
        "0.1700",
        "4",
        "Glad our library now lends induction hobs and energy meters, we tried one for a month and cut our gas use more than expected.",
    ),
    (
        11,
        "is46rlx",
        "AskReddit",
        "-0.2150",
        "69",
        "Worried about the smoke season again, the air quality app has been purple for days and the schools cancelled outdoor sport.",
    ),
    (
        35,
        "is4au99",
        "AskReddit",
        "-0.6350",
        "2",
        "Horrible news from the coast, the sea wall failed in the night and six houses on the cliff road have been evacuated for good.",
    ),
    (
        19,
        "is484hp",
        "AskReddit",
        "-0.3550",
        "48",
        "Frustrating that the rail strike plan cut the night trains, so everyone is back in their cars and the motorway is gridlocked.",
    ),
    (
        36,
        "is4b0d8",
        "AskReddit",
        "0.7700",
        "68",
        "Fantastic that the city opened the old canal towpath for cycling, my commute is now twenty minutes of green instead of traffic fumes.",
    ),
    (
        7,
        "is46361",
        "news",
        "-0.1450",
        "100",
        "Bad sign that the subsidy for home insulation ran out in a week, half the people on our estate missed it and face another cold winter.",
    ),
    (
        34,
        "is4ao5a",
        "climate",
        "0.7300",
        "116",
        "Really encouraging that the steelworks is switching to hydrogen, the union backed it and the jobs are staying in the valley.",
    ),
    (
        9,
        "is46fdz",
        "climate",
        "-0.1800",
        "7",
        "Depressing that the new estate was built without a single heat pump or solar panel, we will be retrofitting these homes for decades.",
    ),
    (
        26,
        "is49b9i",
        "climate",
        "0.5700",
        "100",
        "Lovely to see the seagrass meadow recovering in the bay, the divers counted seahorses there for the first time in ten years.",
    ),
]


def csv_text() -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for k, cid, sub, sentiment, score, text in ROWS:
        w.writerow(
            [
                "comment",
                cid,
                SUBREDDIT_IDS[sub],
                sub,
                "false",
                str(T0 + 3600 * k),
                f"https://old.reddit.com/r/{sub}/comments/u{k:05d}/_/{cid}/",
                text,
                sentiment,
                score,
            ]
        )
    return buf.getvalue()


def write(out: Path) -> None:
    with zipfile.ZipFile(out / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            zipfile.ZipInfo(ZIP_NAME.removesuffix(".zip"), date_time=FIXED_TIME), csv_text(), zipfile.ZIP_DEFLATED
        )
    write_manifest(
        out,
        "reddit_climate",
        "Synthetic Reddit comments written for lm-eval-enterprise (invented text and "
        "ids, not from the real data), as the-reddit-climate-change-dataset-comments.csv.zip with one CSV "
        "member in SocialGrep's column layout (type, id, subreddit.id, subreddit.name, subreddit.nsfw, "
        "created_utc, permalink, body, sentiment, score). 47 rows, all bodies distinct: 41 eligible (incl. "
        "a multi-line quoted body) and 6 the recipe drops ([deleted], [removed], 3 words, 224 words, "
        "sentiment 0, empty sentiment). The reservoir is shrunk to 24 (test 12 / pool 12) so the "
        "replacement step runs on these few rows. Generated by tasks/climate/reddit_climate/make_fixture.py.",
        {"test": 12, "train": 12},
        reservoir={"sample_size": 24, "test_size": 12},
    )


if __name__ == "__main__":
    generator_main(write)
