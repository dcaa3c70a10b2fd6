"""Settings of one aggregation and the small helpers every stage shares."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

from .baselines import parse_generation_baseline
from .io import DEFAULT_VARIANT_PATTERN, SharpeUsageError

# options an estimate (a --cell_budget run, read by sparse_io.py) cannot honour: (field, value meaning "not used", flag)
ESTIMATE_UNSUPPORTED = (
    ("bootstrap_templates", False, "--bootstrap_templates"),
    ("exclude_templates", [], "--exclude_template"),
    ("compare", None, "--compare"),
    ("generation_baseline", "zero", "--generation_baseline"),
    ("compare_decoding", False, "--compare_decoding"),
)


@dataclass
class Options:
    """Settings of one aggregation (the CLI switches of ``lm-eval-enterprise sharpe``), for full runs and estimates
    alike (:meth:`estimate_problem`: the ones an estimate cannot honour)."""

    baseline: str = "uniform"  # uniform | majority | none | simulated | table:PATH
    ddof: int = 1
    alpha: float = 1.0  # --sigma_weight
    sigma_floor: str = "off"  # off | binomial | VALUE
    metrics: list[str] | None = None  # ["name" or "name,filter"]; default: metadata.primary_metric
    scoring: str = "both"  # strict | parsed_only | both
    bootstrap: int = 2000
    seed: int = 0
    bootstrap_templates: bool = False
    variant_pattern: str = DEFAULT_VARIANT_PATTERN
    exclude_templates: list[str] = field(default_factory=list)  # "group:tid"
    strict: bool = False
    fail_threshold: float = 0.2
    run: str | None = None
    model_names: str | None = None
    compare: list[str] | None = None  # ["A,B", ...]; None = every pair
    permutations: int = 2000
    fragile_top: int = 10
    progress: bool | None = None  # None: when stderr is a terminal
    workers: int | None = None  # processes for reading/bootstrap; None: auto (>1 only for big inputs)
    hash_samples: bool = False  # SHA-256 of every samples file in the provenance
    generation_baseline: str = "zero"  # ROUGE baseline: zero | lead-K (first K sentences of each document)
    compare_decoding: bool = False  # greedy vs regex-constrained runs of the same model (decoding_comparisons)

    def floor_mode(self):
        if self.sigma_floor in ("off", "binomial"):
            return self.sigma_floor
        try:
            return float(self.sigma_floor)
        except ValueError:
            raise SharpeUsageError(
                f"--sigma_floor must be off, binomial or a number, not {self.sigma_floor!r}"
            ) from None

    @property
    def modes(self) -> list[str]:
        """Scoring modes computed: strict always (other statistics refer to it), parsed_only unless strict only."""
        return ["strict", "parsed_only"] if self.scoring in ("both", "parsed_only") else ["strict"]

    @property
    def record_modes(self) -> list[str]:
        """Scoring modes that get records (``--scoring parsed_only`` reports parsed_only only)."""
        return ["parsed_only"] if self.scoring == "parsed_only" else self.modes

    @property
    def estimate_metric(self) -> str | None:
        """The metric an estimate reads (the one ``--metric``; None: each task's ``metadata.primary_metric``)."""
        return self.metrics[0] if self.metrics else None

    def estimate_problem(self) -> str | None:
        """The first setting an estimate cannot honour, as one error text (:data:`ESTIMATE_UNSUPPORTED`, more than
        one metric, a metric's filter, parsed-only scoring, a baseline table); None when every setting applies."""
        what = "estimates from a --cell_budget run"
        for attr, unused, flag in ESTIMATE_UNSUPPORTED:
            if getattr(self, attr) not in (unused, None, [], False):
                return f"{flag} is not supported for {what}"
        metrics = self.metrics or []
        if len(metrics) > 1:
            return f"{what}: one --metric at a time"
        if metrics and "," in metrics[0]:
            return f"{what}: --metric NAME,FILTER is not supported (the primary filter is read)"
        if self.scoring == "parsed_only":
            return f"{what}: --scoring parsed_only is not supported (strict scoring only)"
        if str(self.baseline).startswith("table:"):
            return f"{what}: --baseline table:PATH is not supported (uniform, majority, none, simulated)"
        return None

    def validate_estimate(self) -> None:
        """:meth:`validate` for an estimate: first the settings it cannot honour (:meth:`estimate_problem`), as a
        :class:`SharpeUsageError`."""
        problem = self.estimate_problem()
        if problem:
            raise SharpeUsageError(problem)
        self.validate()

    def validate(self) -> None:
        if self.ddof not in (0, 1):
            raise SharpeUsageError("--ddof must be 0 or 1")
        if self.scoring not in ("strict", "parsed_only", "both"):
            raise SharpeUsageError("--scoring must be strict, parsed_only or both")
        b = self.baseline
        if not (b in ("uniform", "majority", "none", "simulated") or b.startswith("table:")):
            raise SharpeUsageError(f"--baseline {b!r}: expected uniform, majority, none, simulated or table:PATH")
        self.floor_mode()
        try:
            parse_generation_baseline(self.generation_baseline)
        except ValueError as exc:
            raise SharpeUsageError(f"--generation_baseline: {exc}") from None


def natural_key(s: str) -> list:
    """Sort key with numbers compared as numbers (t2 < t10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(s))]


class Progress:
    """tqdm progress bar on stderr when enabled (default: when stderr is a terminal)."""

    def __init__(self, enabled: bool | None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def __call__(self, it: Iterable, desc: str, total: int | None = None):
        if not self.enabled:
            return it
        from tqdm.auto import tqdm

        return tqdm(it, desc=desc, total=total, file=sys.stderr, leave=False, dynamic_ncols=True)
