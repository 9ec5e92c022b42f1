"""The code location: the one ``Definitions`` object (workspace.yaml and pyproject point here)."""

from dagster import Definitions, in_process_executor

from assets.automation import (
    daily_pipeline_job,
    daily_schedule,
    decisions_follow_inputs,
    late_file_sensor,
)
from assets.ingestion import raw_agent_logs, raw_day_complete, raw_day_within_budget
from assets.masking import masked_trajectories, no_personal_data_in_masked
from assets.operations import retention_job, retention_schedule
from assets.replay import replayed_episodes
from assets.rewards import build_reward_assets, build_reward_checks
from assets.selection import build_selection_assets
from assets.shadow import behaviour_diff_asset, shadow_assets
from assets.training import training_datasets
from resources import DataRootResource, PartitionedParquetIOManager, default_data_dir
from resources.catalogue import ToolCatalogueResource
from resources.masking import masking_resource_from_env
from resources.reward_spec import RewardSpecResource
from resources.selection import SelectionResource
from resources.shadow import BehaviourDiffResource, shadow_resource_from_env


def build_definitions(data_dir: str | None = None) -> Definitions:
    """All assets, checks, jobs, schedules, sensors and resources over one data root."""
    data_dir = data_dir or default_data_dir()
    tool_catalogue = ToolCatalogueResource()  # built-ins + $AGENTIC_PIPELINE_TOOL_CATALOGUE
    # $AGENTIC_PIPELINE_REWARD_SPEC, else the packaged spec; tied to the catalogue's version
    reward_spec = RewardSpecResource(tool_catalogue=tool_catalogue.path)
    spec = reward_spec.load()  # its version is part of the reward assets' code_version
    return Definitions(
        assets=[
            raw_agent_logs,
            masked_trajectories,
            replayed_episodes,
            shadow_assets,
            behaviour_diff_asset,
            *build_reward_assets(spec),
            *build_selection_assets(spec),
            training_datasets,
        ],
        asset_checks=[
            raw_day_complete,
            raw_day_within_budget,
            no_personal_data_in_masked,
            *build_reward_checks(spec),
        ],
        jobs=[daily_pipeline_job, retention_job],
        schedules=[daily_schedule, retention_schedule],
        sensors=[late_file_sensor, decisions_follow_inputs],
        resources={
            "data_root": DataRootResource(path=data_dir),
            "io_manager": PartitionedParquetIOManager(path=data_dir),
            "masking": masking_resource_from_env(),
            "shadow": shadow_resource_from_env(),  # no candidate unless configured
            "diff_settings": BehaviourDiffResource(),
            "reward_spec": reward_spec,
            "tool_catalogue": tool_catalogue,
            "selection": SelectionResource(),
        },
        executor=in_process_executor,
    )


defs = build_definitions()
