#!/usr/bin/env python
"""Write the synthetic iotspotter fixture ``fixture/{training,validation,test}_set.txt``.

Same JSON-lines schema as ``xinjin95/IoTSpotter`` ``data/dataset/*.txt``: ``{"pkg_name", "description", "label"}``
with label ``"1"`` (IoT companion app) / ``"0"``, descriptions in the authors' pre-processed style (lower-case, no
stop words). Package names and descriptions are invented for lm-eval-enterprise. Deterministic.

    .venv/bin/python tasks/cyber/iotspotter/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

IOT = [
    (
        "com.example.brightbulb",
        "control smart bulbs anywhere adjust brightness color temperature schedules scenes wifi bulbs pair minutes",
    ),
    (
        "org.sample.thermohome",
        "smart thermostat companion set temperature remotely heating schedule energy reports geofencing away mode",
    ),
    (
        "net.demo.doorcam",
        "video doorbell app live view two way audio motion alerts cloud recordings share access family members",
    ),
    (
        "com.example.plugpal",
        "smart plug controller turn appliances remotely timers energy monitoring voice assistant integration",
    ),
    (
        "io.fake.petfeeder",
        "automatic pet feeder app schedule meals portion size camera check pet notifications feeder low food",
    ),
    (
        "com.example.gardenvalve",
        "bluetooth irrigation valve controller water garden schedules rain delay soil moisture sensor readings",
    ),
    ("org.sample.lockly", "smart lock app unlock door phone guest keys access history auto lock bluetooth wifi bridge"),
    ("net.demo.airpure", "air purifier remote control fan speed filter life air quality index sensor night mode"),
    (
        "com.example.robovac",
        "robot vacuum companion map rooms start cleaning remotely suction power no go zones cleaning history",
    ),
    (
        "io.fake.bandsync",
        "fitness band sync steps heart rate sleep tracking firmware updates bluetooth low energy wristband",
    ),
    (
        "com.example.camhub",
        "home security camera viewer multiple cameras live streaming pan tilt night vision sd card playback",
    ),
    ("org.sample.garageopen", "garage door opener app open close garage remotely status alerts works wifi hub"),
    ("net.demo.smartscale", "smart body scale app weight body fat bmi sync scale wifi trends family profiles"),
    (
        "com.example.ledstrip",
        "led strip controller music sync rainbow effects color picker bluetooth led controller timer",
    ),
]
NON_IOT = [
    (
        "com.example.recipebox",
        "recipe collection cook delicious meals step step instructions shopping list favourites offline",
    ),
    (
        "org.sample.wordquest",
        "word puzzle game connect letters find hidden words daily challenges hints hundreds levels",
    ),
    ("net.demo.budgetly", "personal budget planner track expenses income categories charts monthly reports export csv"),
    ("com.example.yogaflow", "yoga workouts beginners guided sessions videos breathing exercises track progress"),
    (
        "io.fake.newsdigest",
        "daily news digest headlines world business sports technology personalised feed offline reading",
    ),
    ("com.example.photoframe", "photo editor frames stickers filters collage maker share social networks"),
    ("org.sample.flashcards", "flashcards study languages spaced repetition decks audio pronunciation quizzes"),
    ("net.demo.runtracker", "running tracker gps routes pace distance calories audio coach training plans"),
    ("com.example.themepack", "launcher theme pack icons wallpapers widgets customise home screen hd wallpapers"),
    ("io.fake.chessmate", "play chess online friends computer opponents puzzles lessons rating ladder"),
    ("com.example.notesplus", "notes app checklists reminders color labels sync cloud backup dark mode"),
    ("org.sample.radiofm", "listen fm radio stations online music talk shows sleep timer favourites"),
    ("net.demo.weatherly", "weather forecast hourly daily radar maps severe weather alerts widgets"),
    ("com.example.bibleverse", "daily verse devotionals reading plans bookmarks highlight share verses"),
]


def row(pkg: str, desc: str, label: str) -> str:
    return json.dumps({"pkg_name": pkg, "description": desc, "label": label})


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # interleave the classes so each file holds both; train 8 + 8, valid 2 + 2, test 4 + 4 (+ 1 empty description)
    iot, non = [row(p, d, "1") for p, d in IOT], [row(p, d, "0") for p, d in NON_IOT]
    train = [x for pair in zip(iot[:8], non[:8]) for x in pair]
    valid = [x for pair in zip(iot[8:10], non[8:10]) for x in pair]
    test = [x for pair in zip(iot[10:14], non[10:14]) for x in pair] + [row("com.example.emptylisting", "", "0")]
    for name, rows in (("training_set.txt", train), ("validation_set.txt", valid), ("test_set.txt", test)):
        (out / name).write_text("\n".join(rows) + "\n")
    write_manifest(
        out,
        "iotspotter",
        "Synthetic app descriptions written for lm-eval-enterprise (not from IoTSpotter), in the "
        "JSON-lines schema of data/dataset/*.txt (pkg_name, description, label '1'/'0'); the last "
        "test row has an empty description, as one real test row has.",
        {"train": len(train), "valid": len(valid), "test": len(test)},
    )


if __name__ == "__main__":
    generator_main(write)
