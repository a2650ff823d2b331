// `switchyard-runtime/testing`: a scripted model behind a real local HTTP server, so agent loops and
// provider adapters can be tested through the real SDK clients without a network or a key.

export {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
} from "./scripted-model-server.js";
export type {
  RecordedRequest,
  ScriptedAnswer,
  ScriptedBlock,
  ScriptedHttpError,
  ScriptedProtocol,
  ScriptedRawResponse,
  ScriptedResponse,
  ScriptedStopReason,
  ScriptedTurn,
  ScriptedUsage,
} from "./scripted-turn.js";
