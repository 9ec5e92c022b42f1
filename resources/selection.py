"""Settings of the daily policy decision as a Dagster resource (maps onto ``SelectionConfig``)."""

from dagster import ConfigurableResource

from agentic_pipeline.selection import SelectionConfig

DEFAULT_WINDOW_DAYS = 14


class SelectionResource(ConfigurableResource):
    """Window, sample size, risk budget and statistics of ``policy_selection``.

    ``window_days`` may not exceed the window the asset was defined with (its partition mapping
    loads that many days of ``episode_rewards``).
    """

    window_days: int = DEFAULT_WINDOW_DAYS
    min_samples: int = 30
    confidence: float = 0.9
    ci_method: str = "posterior"  # or "bootstrap"
    prior_strength: float = 1.0
    prob_best_threshold: float = 0.95
    n_mc: int = 4000
    risk_budget: float = 0.05
    risk_confidence: float = 0.9
    ridge_alpha: float = 1.0
    linucb_alpha: float = 1.0
    segment_keys: list[str] = ["tier", "channel"]
    ope_folds: int = 5
    n_bootstrap: int = 400
    seed: int = 0  # added to the day (YYYYMMDD) so that re-running a day gives the same decision

    def config(self) -> SelectionConfig:
        """The library's :class:`SelectionConfig` (validated there)."""
        fields = self.model_dump(exclude={"seed"})
        return SelectionConfig.from_dict(fields)

    def seed_for(self, ds: str) -> int:
        return self.seed + int(ds.replace("-", ""))
