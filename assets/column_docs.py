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
    # shadow (step-aligned candidate) and behaviour diff
    "candidate_id": "Shadow candidate model (endpoint model name, or local:<model>).",
    "status": "What happened: proposed, or why not (not_run: <limit or reason>, "
    "candidate_error: ..., unreadable: ...); for an episode: shadowed, stopped: <limit>, ...",
    "decision": "0-based decision point of the episode: a turn of the logged agent.",
    "sample": "0-based sample of the candidate at this decision point (n_samples per point).",
    "proposal": "0: the proposal aligned with the logged action; 1..: the candidate's further "
    "calls at the same point after a hermetic answer.",
    "logged_kind": "Kind of the logged action at the decision point: tool, reply or finish.",
    "logged_tool": "Tool the logged agent called there (its first call), if any.",
    "logged_arguments": "JSON arguments of that logged call, as logged (masked).",
    "proposed_kind": "Kind of the candidate's action: tool, reply or finish.",
    "proposed_tool": "Tool the candidate proposed to call, if any.",
    "proposed_arguments": "JSON arguments the candidate proposed (leak-scanned).",
    "proposed_reply": "Reply text the candidate proposed, cut to 2,000 characters (leak-scanned).",
    "same_kind": "The proposal is of the same kind as the logged action.",
    "same_tool": "Both call a tool, and the same one (null unless both call a tool).",
    "same_arguments": "Same tool with the same arguments after normalisation (key order, case, "
    "white space, null arguments, 1 vs 1.0).",
    "agrees": "Same kind, and for a tool call the same tool and arguments.",
    "answer": "How hermetic replay answered the proposed call: logged (a matching logged call's "
    "result), off_log (a tool error, nothing sent anywhere) or blocked (dangerous).",
    "matched_step": "Logged step whose result answered the proposed call.",
    "dangerous": "The proposed call is a financial write or a destructive act (risk rules).",
    "candidate_prompt_tokens": "Prompt tokens of the candidate's request(s).",
    "candidate_completion_tokens": "Completion tokens of the candidate's answer(s).",
    "candidate_seconds": "Seconds the candidate took to answer.",
    "decision_points": "Decision points (turns of the logged agent) in the episode.",
    "proposals": "Aligned proposals the candidate made in the episode (over samples).",
    "agreement_rate": "Share of aligned proposals that agree with the logged action.",
    "kind_agreement": "Share of aligned proposals of the same kind as the logged action.",
    "tool_agreement": "Where the log calls a tool: share of proposals calling the same tool.",
    "arguments_agreement": "Where the tool is the same: share with the same arguments.",
    "first_divergence": "First decision point where the candidate (sample 0) departed from the "
    "log; null when it agreed wherever it proposed.",
    "first_divergence_step": "Logged step of that first divergence.",
    "off_log_calls": "Proposed calls no logged call matches (answered with a tool error).",
    "dangerous_proposals": "Dangerous calls the candidate proposed (never answered).",
    "flap_points": "Decision points whose samples proposed different actions.",
    "flap_rate": "flap_points over the decision points with two or more samples.",
    "baseline_policy": "Policy the others are compared with (configured, else the one with most "
    "episodes of the task type that day).",
    "other_policy": "Policy compared with the baseline.",
    "metric": "Figure compared: a rate, a per-episode count, an action share, a tool's calls "
    "per episode, or the divergence of the action distributions (action_divergence_jsd).",
    "words": "The figure in plain words.",
    "baseline": "Value of the figure for the baseline policy.",
    "other": "Value of the figure for the other policy.",
    "delta": "other - baseline (for the divergence: the Jensen-Shannon divergence).",
    "delta_low": "Lower bound of the bootstrap interval of delta.",
    "delta_high": "Upper bound of the bootstrap interval of delta.",
    "p_value": "Two-sided bootstrap p-value of delta; for the divergence, the permutation "
    "p-value against no change.",
    "flagged": "The interval excludes no change (divergence: permutation p-value below "
    "1 - confidence).",
    "paired": "Compared on the tasks both policies ran (per-task means, one resample of tasks "
    "for both).",
    "n_pairs": "Shared tasks of a paired comparison (0 when unpaired).",
    "n_baseline": "Baseline episodes behind the figure.",
    "n_other": "Other policy's episodes behind the figure.",
    "confidence": "Confidence level of the interval.",
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
