"""Sources a user cannot reach (issue 17, item 3): every download failure is one line naming the dataset, the
reason and the ``prepare --from`` route, each reproduced offline with the real exception classes of
``huggingface_hub`` / ``requests`` / ``urllib``; and ``prepare --dataset ID --from PATH`` imports a file or folder
and checks it exactly like a download (layout, columns, counts; sha256 recorded)."""

import hashlib
import json
import shutil
import socket
import urllib.error
import urllib.request

import httpx2
import pytest
import requests
from huggingface_hub import errors as hub_errors

from conftest import FakeHub
from lm_eval_enterprise import cli
from lm_eval_enterprise.data import (
    COMPLETE_MARKER,
    IMPORT_RECORD,
    DataError,
    cache_root,
    failure_reason,
    fixture_dir,
    get_source,
    import_from,
    load_records,
    prepare,
)

GATED = "gated repository: accept its terms on https://huggingface.co/datasets/o/r while logged in"


def _response(status: int) -> httpx2.Response:
    return httpx2.Response(status, request=httpx2.Request("GET", "https://huggingface.co/api/datasets/o/r"))


def _hub(cls, status: int, message: str = "hub said no"):
    return cls(message, response=_response(status))


def _dns_failure() -> requests.exceptions.ConnectionError:
    """What ``requests`` raises when the host name does not resolve (urllib3's NameResolutionError inside)."""
    try:
        raise socket.gaierror(-2, "Name or service not known")
    except socket.gaierror as inner:
        outer = requests.exceptions.ConnectionError(
            "HTTPSConnectionPool(host='exports.socialgrep.com', port=443): Max retries exceeded "
            "(Caused by NameResolutionError(\"Failed to resolve 'exports.socialgrep.com'\"))"
        )
        outer.__cause__ = inner
        return outer


def _online(monkeypatch):
    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)


# ============================================================================================== failure reasons
@pytest.mark.parametrize(
    "exc, reason",
    [
        (_hub(hub_errors.GatedRepoError, 403), GATED),
        (_hub(hub_errors.RepositoryNotFoundError, 401), "repository not found, or private and no valid token"),
        (_hub(hub_errors.RevisionNotFoundError, 404), "the pinned revision is not in the repository"),
        (_hub(hub_errors.RemoteEntryNotFoundError, 404), "missing file: the repository has no such file"),
        (hub_errors.EntryNotFoundError("no such entry"), "missing file: the repository has no such file"),
        (hub_errors.LocalEntryNotFoundError("cannot reach"), "the hub could not be reached and the file is not in"),
        (_dns_failure(), "unreachable host: DNS failure (the host name does not resolve)"),
        (urllib.error.URLError(socket.gaierror(-2, "Name or service not known")), "unreachable host: DNS failure"),
        (requests.exceptions.ConnectTimeout("timed out"), "unreachable host: the connection timed out"),
        (ConnectionError("no route to host"), "unreachable host: no connection"),
        (urllib.error.HTTPError("https://x/f", 401, "Unauthorized", {}, None), "HTTP 401: the server wants a login"),
        (urllib.error.HTTPError("https://x/f", 403, "Forbidden", {}, None), "HTTP 403: access refused"),
        (urllib.error.HTTPError("https://x/f", 404, "Not Found", {}, None), "HTTP 404: the file or repository is"),
        (requests.exceptions.HTTPError("404 Client Error: Not Found for url: https://x/f"), "HTTP 404"),
        (urllib.error.URLError(FileNotFoundError(2, "No such file")), "missing file"),
        (ValueError("something else"), "unexpected error"),
    ],
)
def test_failure_reason_of_the_real_exception_classes(exc, reason):
    assert failure_reason(exc, "o/r").startswith(reason)


def test_requests_http_error_reads_the_response_status():
    resp = requests.Response()
    resp.status_code = 403
    assert failure_reason(requests.exceptions.HTTPError("refused", response=resp)).startswith("HTTP 403")


# ============================================================================================== one line per dataset
def test_edtsum_gated_repository_is_one_line_with_token_terms_and_route(monkeypatch):
    import huggingface_hub

    _online(monkeypatch)
    gated = _hub(hub_errors.GatedRepoError, 403, "Access to dataset TheFinAI/flare-edtsum is restricted.\nLog in.")
    hub = FakeHub({}, fail=gated)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    with pytest.raises(DataError) as e:
        prepare(get_source("edtsum"), progress=False)
    msg = str(e.value)
    assert msg.startswith(
        "[edtsum] hf://datasets/TheFinAI/flare-edtsum@main/data: download failed: gated repository: accept its "
        "terms on https://huggingface.co/datasets/TheFinAI/flare-edtsum while logged in, then log in here with a "
        "token (`hf auth login` or $HF_TOKEN) (GatedRepoError: Access to dataset TheFinAI/flare-edtsum is "
        "restricted.); TheFinAI/flare-edtsum is gated"
    )
    assert msg.endswith(
        "`lm-eval-enterprise prepare --dataset edtsum --from PATH`, or point $LM_EVAL_ENTERPRISE_DATA "
        "(or --data_root) at a folder holding edtsum/data"
    )
    assert "\n" not in msg and hub.calls[0]["revision"] == "main"  # pinned to a named revision
    assert not any(p.name.startswith(".edtsum-") for p in cache_root().glob(".*"))  # nothing half-written


def test_reddit_climate_unreachable_host_says_it_is_gone_and_names_the_route(monkeypatch):
    _online(monkeypatch)

    def no_dns(*_a, **_k):
        raise urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))

    monkeypatch.setattr(urllib.request, "urlopen", no_dns)
    with pytest.raises(DataError) as e:
        prepare(get_source("reddit_climate"), progress=False)
    msg = str(e.value)
    assert msg.startswith(
        "[reddit_climate] https://exports.socialgrep.com/download/public/the-reddit-climate-change-dataset-"
        "comments.csv.zip: download failed: unreachable host: DNS failure (the host name does not resolve) "
        "(URLError: <urlopen error [Errno -2] Name or service not known>); SocialGrep's export host "
        "(exports.socialgrep.com) has been unreachable (no DNS) since 2025 and no mirror of the comments file is known"
    )
    assert "prepare --dataset reddit_climate --from PATH" in msg and "\n" not in msg


def test_missing_file_404_on_a_plain_http_source(monkeypatch):
    _online(monkeypatch)

    def not_found(req, *_a, **_k):
        raise urllib.error.HTTPError(req.full_url, 404, "Not Found", {}, None)

    monkeypatch.setattr(urllib.request, "urlopen", not_found)
    with pytest.raises(DataError) as e:
        prepare(get_source("kpi_edgar"), progress=False)
    assert str(e.value).startswith("[kpi_edgar] https://raw.githubusercontent.com/tobideusser/kpi-edgar/")
    assert (
        "download failed: HTTP 404: the file or repository is missing at that address (HTTPError: HTTP Error 404: "
        "Not Found); obtain the files elsewhere and run `lm-eval-enterprise prepare --dataset kpi_edgar --from PATH`"
    ) in str(e.value)


@pytest.mark.parametrize(
    "exc, reason",
    [
        (_hub(hub_errors.RepositoryNotFoundError, 401), "repository not found, or private"),
        (_hub(hub_errors.RemoteEntryNotFoundError, 404), "missing file"),
        (hub_errors.LocalEntryNotFoundError("connection error"), "the hub could not be reached"),
        (_dns_failure(), "unreachable host: DNS failure"),
    ],
)
def test_hub_failures_of_a_pinned_hub_source(monkeypatch, exc, reason):
    import huggingface_hub

    _online(monkeypatch)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", FakeHub({}, fail=exc))
    with pytest.raises(DataError) as e:
        prepare(get_source("fiqa_sa"), progress=False)
    msg = str(e.value)
    assert msg.startswith("[fiqa_sa] hf://datasets/TheFinAI/fiqa-sentiment-classification@b669064c")
    assert f"download failed: {reason}" in msg and "prepare --dataset fiqa_sa --from PATH" in msg
    assert "\n" not in msg


def test_unfair_tos_falls_back_to_githubs_test_tsv_when_the_hub_fails(monkeypatch, tmp_path):
    import huggingface_hub
    from lm_eval_enterprise.tasks.legal.unfair_tos import source as S

    _online(monkeypatch)
    monkeypatch.setattr(
        huggingface_hub, "snapshot_download", FakeHub({}, fail=_hub(hub_errors.RevisionNotFoundError, 404))
    )
    rows = ["text\tanswer\tindex"] + [f"clause {i}\tOther\t{i}" for i in range(3)]
    fetched = []

    def fake_url(url, dest, dataset, sha256=None, progress=True, note=""):
        fetched.append(url.rsplit("/", 1)[-1])
        if url.endswith("train.tsv"):
            shutil.copy(fixture_dir("unfair_tos") / "train.tsv", dest)
        else:
            dest.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return dest

    monkeypatch.setattr(S, "download_url", fake_url)
    S.SOURCE.download(tmp_path, progress=False)
    assert fetched == ["test.tsv", "train.tsv"] and S.SOURCE.tsv_test(tmp_path)
    assert [r["id"] for r in S.SOURCE.convert(tmp_path)["test"]] == ["test-0", "test-1", "test-2"]
    # the GitHub layout is held to its own count (3,841), the hub's to 3,813 (both unverified)
    assert S.SOURCE.expected_for(tmp_path)["test"].n == 3841
    assert S.SOURCE.expected_rows["test"].n == 3813


# ============================================================================================== prepare --from
def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_import_a_folder_into_the_cache_checked_and_recorded():
    src = fixture_dir("fiqa_sa")
    d = import_from(get_source("fiqa_sa"), src)
    assert d == cache_root() / "fiqa_sa" and (d / COMPLETE_MARKER).exists()
    record = json.loads((d / IMPORT_RECORD).read_text())
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    assert sorted(record["files"]) == files
    assert all(record["files"][f] == _sha(src / f) for f in files)
    assert record["rows"] == {"train": 9, "valid": 3, "test": 9} and record["layout"] == "source files"
    assert {k: v["status"] for k, v in record["checks"].items()} == {"train": "ok", "valid": "ok", "test": "ok"}
    assert len(load_records("fiqa_sa")["test"]) == 9  # the cache now serves it (offline)


def test_import_a_single_file_into_the_data_root(tmp_path, monkeypatch):
    """reddit_climate's comments zip obtained elsewhere: imported and checked like a download (its recipe counts are
    unverified, so the fixture-sized zip is accepted with warnings, as a download of it would be)."""
    zip_file = fixture_dir("reddit_climate") / "the-reddit-climate-change-dataset-comments.csv.zip"
    root = tmp_path / "root"
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_DATA", str(root))
    d = import_from(get_source("reddit_climate"), zip_file)
    assert d == root / "reddit_climate" and (d / zip_file.name).read_bytes() == zip_file.read_bytes()
    record = json.loads((d / IMPORT_RECORD).read_text())
    assert record["files"] == {zip_file.name: _sha(zip_file)} and record["from"] == str(zip_file.resolve())
    assert record["checks"]["test"]["status"] == "warning" and record["checks"]["test"]["expected"] == 1000
    with pytest.raises(DataError, match="already holds files of this dataset; pass --force"):
        import_from(get_source("reddit_climate"), zip_file)
    assert import_from(get_source("reddit_climate"), zip_file, force=True) == d


def test_spec5g_sum_accepts_both_published_file_names(tmp_path):
    fix = fixture_dir("spec5g_sum") / "simplification_dataset.csv"
    records = {}
    for name in ("simplification_dataset.csv", "summarizationdataset.csv"):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(fix, folder / name)
        shutil.copy(fixture_dir("spec5g_sum") / "MANIFEST.json", folder / "MANIFEST.json")
        records[name] = load_records(
            "spec5g_sum", data_root=str(import_from(get_source("spec5g_sum"), folder, True).parent)
        )
    assert records["simplification_dataset.csv"]["test"] == records["summarizationdataset.csv"]["test"]


def test_bad_imports_are_one_line_naming_the_users_path_and_leave_nothing(tmp_path):
    src = get_source("fiqa_sa")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "notes.txt").write_text("not the data")
    with pytest.raises(DataError) as e:  # layout
        import_from(src, wrong)
    assert str(e.value).startswith(f"[fiqa_sa] {wrong}: no data files: expected the source files")
    bad_columns = tmp_path / "cols"
    (bad_columns).mkdir()
    (bad_columns / "5GSC.csv").write_text("sentence,label\nsome text,1\n")
    with pytest.raises(DataError) as e:  # columns
        import_from(get_source("spec5g_cls"), bad_columns / "5GSC.csv")
    assert str(e.value) == (
        f"[spec5g_cls] {bad_columns / '5GSC.csv'}: missing columns ['text'] (has ['sentence', 'label'])"
    )
    short = tmp_path / "short"
    shutil.copytree(fixture_dir("fiqa_sa"), short)
    manifest = json.loads((short / "MANIFEST.json").read_text())
    manifest["expected_rows"]["test"] = 10
    (short / "MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(DataError) as e:  # counts (declared exactly, like verified counts)
        import_from(src, short)
    assert str(e.value) == (
        f"[fiqa_sa] {short}: split 'test' has 9 rows after conversion, expected 10 (MANIFEST.json); "
        "the source files are incomplete or changed"
    )
    with pytest.raises(DataError, match=r"^\[fiqa_sa\] .*/missing: no such file or folder to import \(--from\)$"):
        import_from(src, tmp_path / "missing")
    assert not (cache_root() / "fiqa_sa").exists()
    assert not any(p.name.startswith(".fiqa_sa-") for p in cache_root().iterdir())  # no temp folder left


def test_cli_prepare_from(tmp_path, capsys):
    assert cli.main(["prepare", "--dataset", "fiqa_sa", "--from", str(fixture_dir("fiqa_sa"))]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"fiqa_sa: imported {fixture_dir('fiqa_sa')} into {cache_root() / 'fiqa_sa'}")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    assert cli.main(["prepare", "--dataset", "edtsum", "--from", str(wrong)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: [edtsum] {wrong}: no data files") and "\n" not in err
    assert cli.main(["prepare", "--dataset", "fiqa_sa", "--dataset", "edtsum", "--from", str(wrong)]) == 2
    assert "--from imports one dataset: give exactly one --dataset ID" in capsys.readouterr().err


def test_an_unreachable_hub_is_reported_by_its_network_cause():
    """huggingface_hub wraps a failed connection in LocalEntryNotFoundError: the DNS failure inside is the reason."""
    outer = hub_errors.LocalEntryNotFoundError("An error happened while trying to locate the file on the Hub.")
    outer.__cause__ = _dns_failure()
    assert failure_reason(outer).startswith("unreachable host: DNS failure")
    assert failure_reason(hub_errors.LocalEntryNotFoundError("cannot find it")).startswith("the hub could not be")
