// The session of a fleet worker, built from its config: the config's tools, MCP servers, limits
// and permissions, plus `tools.fleet.job()`. Workers run their jobs in it, and a batch's program
// is checked against one built the same way before it is enqueued, so the check passes a program
// exactly when the workers' own check would.

import {
  type ConfiguredSwitchyard,
  type CreateFromConfigOptions,
  createSwitchyardFromConfig,
} from "../config/create-switchyard-from-config.js";
import type { LoadedConfig, SwitchyardConfig } from "../config/load-config.js";
import { createJobInfoTool, type JobInfo } from "./job-info-tool.js";

/** A fleet session and the table `tools.fleet.job()` answers from (the worker fills it per run). */
export interface FleetSession {
  readonly configured: ConfiguredSwitchyard;
  /** Job info by program id. */
  readonly jobs: Map<string, JobInfo>;
}

/** Builds the session; see the module comment. Throws like createSwitchyardFromConfig. */
export async function buildFleetSession(
  config: SwitchyardConfig | LoadedConfig,
  options: CreateFromConfigOptions = {},
): Promise<FleetSession> {
  const jobInfo = createJobInfoTool();
  const configured = await createSwitchyardFromConfig(config, {
    ...options,
    tools: [...(options.tools ?? []), jobInfo.tool],
  });
  return { configured, jobs: jobInfo.runs };
}

/**
 * The session a fleet worker with this config runs its jobs in (without the fleet's shared rate
 * limiter, which only calls need): give its `yard` to `submitBatch({ checkWith })` so a program
 * that would fail every job is refused before any is enqueued. Close it when done (its MCP
 * servers stop). Throws like createSwitchyardFromConfig.
 */
export async function createFleetSession(
  config: SwitchyardConfig | LoadedConfig,
  options: CreateFromConfigOptions = {},
): Promise<ConfiguredSwitchyard> {
  return (await buildFleetSession(config, options)).configured;
}
