"""The code location: the one ``Definitions`` object (workspace.yaml and pyproject point here)."""

from dagster import Definitions, in_process_executor

from assets.automation import daily_pipeline_job, daily_schedule, late_file_sensor
from assets.ingestion import raw_agent_logs
from assets.operations import retention_job, retention_schedule
from resources import DataRootResource, PartitionedParquetIOManager, default_data_dir


def build_definitions(data_dir: str | None = None) -> Definitions:
    """All assets, checks, jobs, schedules, sensors and resources over one data root."""
    data_dir = data_dir or default_data_dir()
    return Definitions(
        assets=[raw_agent_logs],
        jobs=[daily_pipeline_job, retention_job],
        schedules=[daily_schedule, retention_schedule],
        sensors=[late_file_sensor],
        resources={
            "data_root": DataRootResource(path=data_dir),
            "io_manager": PartitionedParquetIOManager(path=data_dir),
        },
        executor=in_process_executor,
    )


defs = build_definitions()
