"""Data layer: locate, download, convert, check, cache and serve every dataset.

One :class:`Source` subclass per dataset lives in ``tasks/<domain>/<id>/source.py`` and knows only its own source
format. Everything shared is in this package, one job per module:

==================  ==============================================================================================
``config``          environment: data root (``$LM_EVAL_ENTERPRISE_DATA``, ``embedded``), cache, offline switches
``tasktree``        the registry: every ``tasks/<domain>/<id>/source.py`` is a dataset (:func:`get_source`)
``fixtures``        the embedded fixture data (``tasks/<domain>/<id>/fixture/``) and its generators
``source``          the :class:`Source` model a loader implements; shared record fields (:func:`mc_fields`)
``download``        plain HTTP downloads (:func:`download_url`, :func:`fetch_json`)
``hub``             Hugging Face hub downloads (``snapshot_download``) and :class:`HFParquetSource`
``parquet``         a hub repo's parquet layout read back locally (split of a path, rows, ClassLabel names)
``readers``         JSON-lines reading with line-exact errors
``checks``          the load-time checks: counts (verified/unverified), gold labels, UTF-8, sha256, the report
``folder``          one data folder → converted, checked splits + :class:`DataReport` (source or pre-split layout)
``diskcache``       the on-disk cache of converted splits (keyed by file hashes and loader code version)
``locate``          where a dataset's folder is (:func:`resolve_data_dir`) and getting it there (:func:`prepare`,
                    or :func:`import_from` a file/folder obtained elsewhere: ``prepare --from``)
``load``            splits for lm-eval: subtask, [LEAK], task-type fields, [BAL] ``fewshot`` split,
                    :func:`load_task_dataset` (the ``custom_dataset`` hook of every task YAML)
==================  ==============================================================================================

Two layouts of a data folder: the **source layout** (the files exactly as published; converted and split by the
dataset's recipe) and the **pre-split layout** (``train.jsonl``/``test.jsonl``/``valid.jsonl`` of source rows;
rows go through the same per-row conversion). Every load, whatever the layout, is checked: row counts against
the Source's declared counts (verified → error on mismatch, unverified → warning) or the folder's
``MANIFEST.json``; a folder with a ``SOURCE.md`` is a declared partial copy; gold labels inside the label set;
UTF-8 text; the sha256 of every file — all of it in the :class:`DataReport` that goes into the task metadata.

Import what a loader or a tool needs from here (``from lm_eval_enterprise.data import Source, DataError, ...``).
"""

from __future__ import annotations

from ..errors import DataError
from .checks import (
    MANIFEST,
    SAMPLE_NOTE,
    CountCheck,
    DataReport,
    Rows,
    check_count,
    folder_hashes,
    unverified,
    verified,
)
from .config import EMBEDDED, ENV_CACHE, ENV_DATA, OFFLINE_VARS, cache_root, is_offline
from .download import (
    RemoteFile,
    download_failure,
    download_url,
    exc_line,
    failure_reason,
    fetch_json,
    from_route,
    manual_hint,
)
from .fixtures import fixture_dir, generator_main, is_fixture_dir, write_manifest
from .folder import PRESPLIT_FILES, convert_folder, inspect_folder
from .hub import HFParquetSource, download_hf_parquet, snapshot
from .load import FEWSHOT_POOL_MAX, clear_caches, load_checked, load_records, load_task_data, load_task_dataset
from .locate import (
    COMPLETE_MARKER,
    IMPORT_RECORD,
    data_folder,
    data_hint,
    has_data,
    import_from,
    prepare,
    resolve_data_dir,
)
from .parquet import HF_CONVERTED_REVISION, hf_class_names, hf_parquet_split, local_parquet_files, read_parquet_rows
from .readers import read_json, read_jsonl, read_jsonl_lines, read_text_utf8
from .source import MC_LETTERS, Source, map_rows, mc_fields, option_fields, require_columns, require_text
from .tasktree import dataset_dir, get_source, iter_sources, registry

__all__ = [
    "COMPLETE_MARKER",
    "EMBEDDED",
    "ENV_CACHE",
    "ENV_DATA",
    "FEWSHOT_POOL_MAX",
    "HF_CONVERTED_REVISION",
    "IMPORT_RECORD",
    "MANIFEST",
    "MC_LETTERS",
    "OFFLINE_VARS",
    "PRESPLIT_FILES",
    "SAMPLE_NOTE",
    "CountCheck",
    "DataError",
    "DataReport",
    "HFParquetSource",
    "RemoteFile",
    "Rows",
    "Source",
    "cache_root",
    "check_count",
    "clear_caches",
    "convert_folder",
    "data_folder",
    "data_hint",
    "dataset_dir",
    "download_failure",
    "download_hf_parquet",
    "download_url",
    "exc_line",
    "failure_reason",
    "fetch_json",
    "fixture_dir",
    "folder_hashes",
    "from_route",
    "generator_main",
    "get_source",
    "has_data",
    "hf_class_names",
    "hf_parquet_split",
    "import_from",
    "inspect_folder",
    "is_fixture_dir",
    "is_offline",
    "iter_sources",
    "load_checked",
    "load_records",
    "load_task_dataset",
    "load_task_data",
    "local_parquet_files",
    "manual_hint",
    "map_rows",
    "mc_fields",
    "option_fields",
    "prepare",
    "read_json",
    "read_jsonl",
    "read_jsonl_lines",
    "read_text_utf8",
    "read_parquet_rows",
    "registry",
    "require_columns",
    "require_text",
    "resolve_data_dir",
    "snapshot",
    "unverified",
    "verified",
    "write_manifest",
]
