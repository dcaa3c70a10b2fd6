"""The on-disk cache of converted splits (``lm_eval_enterprise.data.diskcache``): a second start reads the
converted splits back instead of converting; any change to the data folder or to the loader code misses; a bad
entry is converted again; problems are never cached; ``LM_EVAL_ENTERPRISE_CONVERTED_CACHE=0`` switches it off."""

import json
import shutil

import pytest

from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, diskcache, folder

DS = "iotspotter"  # small source-layout fixture with a MANIFEST: three text files


@pytest.fixture
def counted(monkeypatch):
    """Counts the real conversions (:func:`inspect_folder` calls) behind :func:`convert_folder`."""
    calls = []
    real = folder.inspect_folder

    def inspect(src, d, defer_errors=False):
        calls.append(d)
        return real(src, d, defer_errors)

    monkeypatch.setattr(folder, "inspect_folder", inspect)
    return calls


@pytest.fixture
def copy(tmp_path):
    d = tmp_path / "data" / DS
    shutil.copytree(D.fixture_dir(DS), d)
    return d


def entries():
    return sorted((D.cache_root() / diskcache.FOLDER).glob("*.pickle"))


def test_second_load_reads_the_entry_and_serves_the_same_splits(copy, counted):
    src = D.get_source(DS)
    first, report1 = D.convert_folder(src, copy)
    assert len(counted) == 1 and len(entries()) == 1
    second, report2 = D.convert_folder(src, copy)
    assert len(counted) == 1  # no second conversion
    assert second == first and report2.metadata() == report1.metadata()
    assert {k: len(v) for k, v in second.items()} == json.loads((copy / D.MANIFEST).read_text())["expected_rows"]


def test_changed_added_or_removed_file_misses_and_replaces_the_entry(copy, counted):
    src = D.get_source(DS)
    D.convert_folder(src, copy)
    old = entries()
    manifest = json.loads((copy / D.MANIFEST).read_text())
    manifest["note"] += " (edited)"
    (copy / D.MANIFEST).write_text(json.dumps(manifest))  # same counts, other bytes
    D.convert_folder(src, copy)
    assert len(counted) == 2
    assert len(entries()) == 1 and entries() != old  # the older entry of this folder is removed
    (copy / "extra.txt").write_text("x")
    D.convert_folder(src, copy)
    (copy / "extra.txt").unlink()
    D.convert_folder(src, copy)  # back to the second state: its entry was replaced, so converted again
    assert len(counted) == 4
    D.convert_folder(src, copy)
    assert len(counted) == 4


def test_other_loader_code_version_misses(copy, counted, monkeypatch):
    src = D.get_source(DS)
    D.convert_folder(src, copy)
    monkeypatch.setattr(diskcache, "code_version", lambda: "another loader version")
    D.convert_folder(src, copy)
    assert len(counted) == 2


def test_code_version_covers_package_and_loaders_but_not_tests():
    files = {p.name for p in diskcache._code_files(D.dataset_dir(DS).parents[1])}
    assert "source.py" in files and "make_fixture.py" in files and f"test_{DS}.py" not in files


def test_same_files_in_another_folder_have_their_own_entry(copy, counted, tmp_path):
    src = D.get_source(DS)
    other = tmp_path / "other" / DS
    shutil.copytree(copy, other)
    _, r1 = D.convert_folder(src, copy)
    _, r2 = D.convert_folder(src, other)
    assert len(counted) == 2 and len(entries()) == 2
    assert str(r1.metadata()) != str(r2.metadata())  # each report names its own folder


def test_unreadable_entry_is_converted_again_and_replaced(copy, counted, caplog):
    src = D.get_source(DS)
    want, _ = D.convert_folder(src, copy)
    [entry] = entries()
    entry.write_bytes(b"not a pickle")
    got, _ = D.convert_folder(src, copy)
    assert got == want and len(counted) == 2
    assert "unreadable converted-split cache entry" in caplog.text
    D.convert_folder(src, copy)
    assert len(counted) == 2  # the rewritten entry is good


def test_a_failing_conversion_stores_nothing(copy, counted):
    src = D.get_source(DS)
    manifest = json.loads((copy / D.MANIFEST).read_text())
    split = next(iter(manifest["expected_rows"]))
    manifest["expected_rows"][split] += 1
    (copy / D.MANIFEST).write_text(json.dumps(manifest))
    for _ in range(2):
        with pytest.raises(DataError):
            D.convert_folder(src, copy)
    assert len(counted) == 2 and entries() == []


@pytest.mark.parametrize("value", ["0", "off"])
def test_switched_off_converts_every_time_and_writes_nothing(copy, counted, monkeypatch, value):
    monkeypatch.setenv(diskcache.ENV_SWITCH, value)
    src = D.get_source(DS)
    D.convert_folder(src, copy)
    D.convert_folder(src, copy)
    assert len(counted) == 2 and entries() == []
