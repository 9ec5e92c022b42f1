"""Descriptions of every column the assets store, shown in the Dagster catalog.

``assets.metadata.column_schema`` attaches them to ``dagster/column_schema``. One name has one
meaning in every table it appears in (``reward`` is the episode reward wherever it occurs).
Sources: ``agentic_pipeline/schema.py`` (steps), ``rewards.py``, ``replay.py``, ``masking``,
``selection`` and ``training.py``.
"""

COLUMN_DESCRIPTIONS: dict[str, str] = {
    # partition and lineage
    "ds": "Partition day (UTC, YYYY-MM-DD) the row belongs to.",
    "source_format": "Input format the record was read from: episode_jsonl, transition_jsonl or "
    "benchmark_json.",
    "source_file": "Landing file the record came from, relative to the landing day (a keyed hash "
    "when the name is not a safe identifier).",
    "source_index": "Position of the record in its file (1-based JSONL line, 0-based JSON array "
    "index).",
    "source_sha256": "sha256 of the raw source record (lineage; identical records share it).",
    "raw_record": "The raw record text, truncated (restricted zone only).",
    "reason": "Why the row is what it is: quarantine reason, or why a policy was (not) eligible "
    "or selected.",
    # episode
    "episode_id": "Identifier of the agent episode (one conversation / task attempt).",
    "policy_id": "Agent policy variant (prompt + model configuration) that ran the episode.",
    "propensity": "Probability with which the logging system chose this policy for the episode "
    "(for off-policy estimates).",
    "task_type": "Kind of CRM task (refund, update_contact, close_case, ...).",
    "task_id": "Identifier of the task; a task retried in several episodes keeps its id.",
    "task_description": "The customer's request as text (masked outside the restricted zone).",
    "task_goal": "JSON text of the task's goal (target state of the CRM), if logged.",
    "context": "JSON text of context known at the start of the episode (tier, channel, hour).",
    "started_at": "Start time of the episode (UTC).",
    "outcome_success": "Success as logged by the production system (may be missing).",
    "human_takeover": "A human agent took over the conversation.",
    "complaint": "The customer complained about the episode.",
    "csat": "Customer satisfaction score, if the customer gave one.",
    "prompt_tokens": "Prompt tokens consumed by the episode.",
    "completion_tokens": "Completion tokens produced by the episode.",
    "latency_ms": "Total model latency of the episode, in milliseconds.",
    "cost_usd": "Model cost of the episode, in US dollars.",
    "logged_reward": "Reward logged by the production system, if any (not the pipeline's reward).",
    # step
    "step": "0-based index of the step within its episode.",
    "role": "Who produced the step: system, user, assistant or tool.",
    "action_type": "Kind of step: message, tool_call, respond, finish or tool_result.",
    "content": "Text of the step (masked outside the restricted zone).",
    "tool_name": "Tool called or answering at this step, if any.",
    "tool_call_id": "Identifier linking a tool call to its result.",
    "tool_arguments": "JSON text of the tool call's arguments as logged (masked).",
    "ts": "Time of the step (UTC).",
    "step_reward": "Reward credited to this step; an episode's step rewards sum to its reward.",
    "return_to_go": "Discounted sum (gamma of the reward spec) of the step rewards from this "
    "step to the end of the episode.",
    # masking audit
    "row": "Row number of the masked value within the day's masked table.",
    "field": "Column the personal data was found in.",
    "entity_type": "Kind of personal data found (EMAIL_ADDRESS, PHONE_NUMBER, PERSON, ...).",
    "detector": "Recognizer that found it (pattern or spaCy named-entity model).",
    "score": "Detector confidence, 0..1.",
    "pseudonym": "Keyed pseudonym that replaced the value (the same value gets the same one).",
    # replay
    "replay_status": "Outcome of replaying the episode in the CRM sandbox: ok, or why not.",
    "status_reason": "Details of a replay status other than ok.",
    "success": "The task's goal was met, as judged by replay (or the logged outcome; see "
    "success_source).",
    "success_source": "Where success comes from: replay, logged outcome, or unknown.",
    "goal_met": "The sandbox state after replay matches the task's goal.",
    "n_steps": "Steps in the episode.",
    "n_tool_calls": "Tool calls in the episode.",
    "n_responds": "Messages of the agent to the customer.",
    "n_errors": "Tool calls that returned an error.",
    "n_retries": "Tool calls repeated with the same arguments.",
    "loop_detected": "The agent repeated the same action in a loop.",
    "premature_finish": "The agent finished before the goal was met.",
    "false_success_claim": "The agent told the customer it succeeded when the goal was not met.",
    "financial_writes": "Writes to financial fields (refunds, credits, balances).",
    "destructive_actions": "Destructive actions (deletions, closing the wrong case, ...).",
    "n_writes": "Tool calls that changed CRM state.",
    "unknown_tools": "Tools called that the tool catalogue does not list.",
    "inferred_effects": "JSON {unlisted tool: effect inferred from replay}, sorted keys.",
    "duration_s": "Wall-clock duration of the episode, in seconds.",
    "first_message_chars": "Length of the customer's first message, in characters.",
    "tool_set": "Tools the episode used, comma-separated.",
    "tool_counts": "JSON {tool name: calls}, sorted keys.",
    # shadow and behaviour diff
    "logged_episode_id": "Logged episode whose recorded task the shadow candidate replayed.",
    "candidate_id": "Shadow candidate policy.",
    "dangerous_attempts": "Dangerous actions the candidate attempted (blocked by the sandbox).",
    "killed": "The shadow run was stopped by the kill switch or quota.",
    "trajectory": "JSON text of the candidate's masked trajectory.",
    "metric": "Behaviour metric compared (action distribution, tool use, success, risk, ...).",
    "logged": "Value of the metric for the logged policies.",
    "candidate": "Value of the metric for the shadow candidate.",
    "delta": "candidate - logged.",
    "n_logged": "Logged episodes behind the value.",
    "n_candidate": "Candidate episodes behind the value.",
    "logged_policies": "Logged policies pooled on the logged side.",
    # rewards
    "reward": "Episode reward under the reward spec (success, risk, cost, CSAT, ... weighted).",
    "reward_version": "Reward spec version: label plus a hash of its content.",
    "risky": "The episode made a financial write or a destructive act.",
    "r_success": "Reward component: task success.",
    "r_risk": "Reward component: financial writes and destructive actions (negative).",
    "r_cost": "Reward component: operating cost: tool calls, tokens, latency and spend, capped "
    "(negative).",
    "r_csat": "Reward component: customer satisfaction, where logged (centred, clipped).",
    "r_complaint": "Reward component: complaint (negative).",
    "r_takeover": "Reward component: human takeover (negative).",
    "r_penalty": "Reward component: loops, retries, premature finishes and steps over the "
    "budget (negative).",
    # policy selection
    "n_episodes": "Episodes of the policy in the decision window.",
    "mean_reward": "Mean reward of the policy in the window.",
    "ci_low": "Lower bound of the confidence interval of the mean reward.",
    "ci_high": "Upper bound of the confidence interval of the mean reward.",
    "prob_best": "P(best): probability that the policy has the highest mean reward (Thompson "
    "sampling).",
    "linear_estimate": "Reward predicted by a ridge model over the episode context.",
    "linucb_upper": "LinUCB-style optimistic bound of the linear estimate.",
    "ope_ips": "Off-policy estimate: inverse propensity scoring.",
    "ope_snips": "Off-policy estimate: self-normalised inverse propensity scoring.",
    "ope_dr": "Off-policy estimate: doubly robust.",
    "ope_dm": "Off-policy estimate: direct method (reward model only).",
    "ope_estimate": "OPE: the headline off-policy estimate of the policy (ope_estimator names "
    "it: self-normalised doubly robust by default).",
    "ope_sndr": "Off-policy estimate: self-normalised doubly robust.",
    **{
        f"ope_{e}_{end}": f"{'Lower' if end == 'low' else 'Upper'} bound of the {e} estimate's "
        "interval."
        for e in ("ips", "snips", "dm", "dr", "sndr")
        for end in ("low", "high")
    },
    "ope_estimator": "Which estimator ope_estimate reports (ips, snips, dm, dr or sndr).",
    "ope_max_weight": "Largest importance weight behind the off-policy estimate.",
    "ope_warning": "Why the off-policy estimate is too weak to act on (tiny effective sample "
    "size or an extreme weight); empty if sound.",
    "ope_ci_low": "Lower bound of the off-policy estimate's interval.",
    "ope_ci_high": "Upper bound of the off-policy estimate's interval.",
    "ope_ess": "Effective sample size of the off-policy estimate.",
    "ope_identified": "The off-policy estimate is identified (enough overlap of propensities).",
    "ope_reason": "Why the off-policy estimate is not identified.",
    "risk_rate": "Share of the policy's episodes that were risky.",
    "risk_upper": "Upper confidence bound of the risk rate; above the risk budget: not eligible.",
    "n_risky": "Risky episodes of the policy in the window.",
    "eligible": "Enough episodes and the risk bound within the budget.",
    "selected": "The policy is the task type's default after this decision.",
    "is_default": "The policy was the default before this decision.",
    "default_since": "Day the selected policy became the default (carried while it is kept).",
    "window_start": "First day of the configured decision window.",
    "window_end": "Last day of the decision window (the decision day).",
    # training summary
    "format": "Training export format: sft, dpo, dpo-openai or rl.",
    "file": "File of the export in the day's training folder.",
    "records": "Records in the export.",
    "episodes": "Distinct episodes behind the records.",
    "reward_mean": "Mean reward of the records (chosen side for preference pairs).",
    "reward_min": "Minimum reward of the records.",
    "reward_p50": "Median reward of the records.",
    "reward_max": "Maximum reward of the records.",
    "reward_gap_mean": "Mean reward gap between chosen and rejected sides of the pairs.",
}
