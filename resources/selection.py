"""Settings of the daily policy decision as a Dagster resource (maps onto ``SelectionConfig``)."""

from dagster import ConfigurableResource

from agentic_pipeline.selection import SelectionConfig

_DEFAULTS = SelectionConfig()  # the library holds the defaults; the resource only exposes them
DEFAULT_WINDOW_DAYS = _DEFAULTS.window_days


class SelectionResource(ConfigurableResource):
    """Window, sample size, risk budget and statistics of ``policy_selection``.

    ``window_days`` may not exceed the window the asset was defined with (its partition mapping
    loads that many days of ``episode_rewards``).
    """

    window_days: int = DEFAULT_WINDOW_DAYS
    min_samples: int = _DEFAULTS.min_samples
    confidence: float = _DEFAULTS.confidence
    ci_method: str = _DEFAULTS.ci_method  # "posterior" or "bootstrap"
    prior_strength: float = _DEFAULTS.prior_strength
    prob_best_threshold: float = _DEFAULTS.prob_best_threshold
    n_mc: int = _DEFAULTS.n_mc
    risk_budget: float = _DEFAULTS.risk_budget
    risk_confidence: float = _DEFAULTS.risk_confidence
    ridge_alpha: float = _DEFAULTS.ridge_alpha
    linucb_alpha: float = _DEFAULTS.linucb_alpha
    segment_keys: list[str] = list(_DEFAULTS.segment_keys)
    ope_folds: int = _DEFAULTS.ope_folds
    n_bootstrap: int = _DEFAULTS.n_bootstrap
    ope_headline: str = _DEFAULTS.ope_headline  # ips, snips, dm, dr or sndr
    ope_min_ess: float = _DEFAULTS.ope_min_ess
    ope_max_weight: float = _DEFAULTS.ope_max_weight
    decide_on: str = _DEFAULTS.decide_on  # "mean" (bandit) or "ope" (headline estimate)
    # name -> task type (or "*") -> {policy: share}: stochastic policies evaluated off-policy
    target_policies: dict[str, dict[str, dict[str, float]]] = {}
    seed: int = 0  # added to the day (YYYYMMDD) so that re-running a day gives the same decision

    def config(self) -> SelectionConfig:
        """The library's :class:`SelectionConfig` (validated there)."""
        fields = self.model_dump(exclude={"seed"})
        return SelectionConfig.from_dict(fields)

    def seed_for(self, ds: str) -> int:
        return self.seed + int(ds.replace("-", ""))
