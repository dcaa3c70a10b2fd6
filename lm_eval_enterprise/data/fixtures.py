"""The embedded fixture data: a few synthetic rows per dataset, in the source's exact format, for demos and tests.

Each dataset folder holds its fixture in ``fixture/`` (with a ``MANIFEST.json`` of its exact row counts) and the
script that writes it, ``make_fixture.py``: a module with ``write(out: Path)`` and, to run it from a checkout,
``if __name__ == "__main__": generator_main(write)`` (``python tasks/<domain>/<id>/make_fixture.py [--out DIR]``).
Fixtures are only ever changed by re-running their generator; ``tests/data/test_datasets.py`` checks that every
generator reproduces its checked-in fixture.

The data root :data:`~lm_eval_enterprise.data.config.EMBEDDED` (``embedded``) selects ``fixture/`` for every
dataset; the data report marks data read from a fixture folder as toy data (``toy_data: true``).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import DataError
from .checks import MANIFEST
from .tasktree import dataset_dir, dataset_folders, registry

FIXTURE_FOLDER = "fixture"
GENERATOR = "make_fixture"


def fixture_dir(dataset: str) -> Path:
    """``<root>/<domain>/<id>/fixture/`` of a registered dataset."""
    return dataset_dir(dataset) / FIXTURE_FOLDER


def is_fixture_dir(d: str | Path) -> bool:
    """True when ``d`` is the embedded fixture folder of a dataset (scores on it are toy scores)."""
    try:
        p = Path(d).resolve()
        return p.name == FIXTURE_FOLDER and dataset_folders().get(p.parent.name) == p.parent
    except (OSError, DataError):
        return False


def generator_module(dataset: str):
    """The ``make_fixture`` module of a dataset's folder."""
    return importlib.import_module(registry()[dataset].rsplit(".", 1)[0] + "." + GENERATOR)


def generate(dataset: str, out: Path) -> Path:
    """Write the dataset's fixture into ``out`` with its generator (``write(out)``); returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    generator_module(dataset).write(out)
    return out


def generator_main(write: Callable[[Path], None], argv: list[str] | None = None) -> None:
    """Command line of a ``make_fixture.py``: write the fixture into ``--out`` (default: the ``fixture/`` folder
    beside the calling script)."""
    caller = Path(inspect.stack()[1].filename).resolve()
    ap = argparse.ArgumentParser(description=f"Write the fixture of {caller.parent.name}.")
    ap.add_argument(
        "--out", type=Path, default=caller.parent / FIXTURE_FOLDER, help="folder to write (default: %(default)s)"
    )
    out = ap.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    write(out)
    print(f"wrote {out}")


def write_manifest(out: Path, dataset: str, note: str, expected_rows: dict[str, int], **extra: Any) -> None:
    """``MANIFEST.json`` of a fixture: its exact row counts per split (checked like verified counts), what it is
    (``note``), and any further counts its loader checks (``extra``, e.g. ``raw_rows``)."""
    manifest = {"dataset": dataset, "note": note, "expected_rows": expected_rows, **extra, "tolerance": 0}
    (out / MANIFEST).write_text(json.dumps(manifest) + "\n")


FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # the one timestamp written into fixture archives (byte-reproducible output)


def save_workbook(workbook: Any, path: Path) -> None:
    """Save an openpyxl workbook byte-reproducibly: openpyxl stamps the save time into ``docProps/core.xml`` and
    the zip members; both are replaced by :data:`FIXED_TIME`."""
    import io
    import re
    import zipfile

    buf = io.BytesIO()
    workbook.save(buf)
    stamp = "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format(*FIXED_TIME)
    with zipfile.ZipFile(buf) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp.encode(), data)
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=FIXED_TIME), data, zipfile.ZIP_DEFLATED)
