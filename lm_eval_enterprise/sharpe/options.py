"""Settings of one aggregation and the small helpers every stage shares."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

from .baselines import parse_generation_baseline
from .io import DEFAULT_VARIANT_PATTERN, SharpeUsageError


@dataclass
class Options:
    """Settings of one aggregation (the CLI switches of ``lm-eval-enterprise sharpe``)."""

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


def estimator_settings(args) -> dict:
    """The settings the sparse-run and population estimators share, from parsed ``sharpe`` arguments (the sigma
    floor read as :meth:`Options.floor_mode` reads it; ``SharpeUsageError`` for a bad one)."""
    return {
        "baseline": args.baseline,
        "ddof": args.ddof,
        "alpha": args.alpha,
        "sigma_floor": Options(sigma_floor=args.sigma_floor).floor_mode(),
        "bootstrap": args.bootstrap,
        "seed": args.seed,
        "run": args.run,
        "model_names": args.model_names,
    }
