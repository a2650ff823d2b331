// The JSON Schema of `switchyard.config.json` (draft 2020-12). It is the one source of truth:
// `loadConfig` validates against it, and the published `switchyard.config.schema.json` at the
// repository root is this object written out (a test keeps the two equal).

import type { JsonSchema } from "../contract.js";

const positiveNumber = { type: "number", exclusiveMinimum: 0 } as const;
/** The `tools` of a permission rule and of a rate limit: one glob or a list of them. */
const toolGlobs = {
  oneOf: [
    { type: "string", minLength: 1 },
    { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
  ],
} as const;
const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;
const restart = {
  type: "object",
  description: "Backoff of restarts after the server crashed or hung.",
  properties: {
    maxAttempts: {
      type: "integer",
      minimum: 1,
      description: "Consecutive failed restarts before giving up. Default 5.",
    },
    initialDelayMs: {
      ...positiveNumber,
      description: "Delay before the first restart, in ms; doubles per failed attempt. Default 200.",
    },
    maxDelayMs: { ...positiveNumber, description: "Cap of the delay, in ms. Default 10000." },
  },
  additionalProperties: false,
} as const;
const serverCommon = {
  callTimeoutMs: {
    ...positiveNumber,
    description: "Time a call may take before the server is checked for a hang, in ms. Default 30000.",
  },
  startTimeoutMs: {
    ...positiveNumber,
    description:
      "Time the server has to start: spawn, MCP handshake and first tools/list, in ms. Default 15000. Raise it for a server that starts slowly, e.g. `npx -y <package>` on its first run, which downloads the package first (or pre-install the package so starts stay fast).",
  },
} as const;

/** The schema object; see the module comment. */
export const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Switchyard configuration",
  description:
    "Tools, MCP servers, limits and permissions of a Switchyard session. Relative paths are resolved against the folder of the config file.",
  type: "object",
  properties: {
    $schema: { type: "string" },
    tools: {
      type: "array",
      description: "Modules exporting tools (default export or `tools`: an array, or a function returning one).",
      items: { type: "string", minLength: 1 },
    },
    mcpServers: {
      type: "object",
      description: "MCP servers by namespace: their tools become tools.<namespace>.<name>.",
      propertyNames: { pattern: "^[A-Za-z0-9_$-]+$" },
      additionalProperties: { $ref: "#/$defs/mcpServer" },
    },
    limits: {
      type: "object",
      description: "Default limits of every run.",
      properties: {
        wallTimeMs: positiveNumber,
        cpuTimeMs: positiveNumber,
        memoryLimitMb: positiveNumber,
        maxToolCalls: positiveNumber,
        maxOutputBytes: positiveNumber,
        maxLogBytes: positiveNumber,
        maxLogLines: positiveNumber,
        maxSourceBytes: positiveNumber,
        maxArgumentBytes: positiveNumber,
        maxArgumentDepth: positiveNumber,
        maxPendingResultBytes: positiveNumber,
        maxInputBytes: positiveNumber,
        maxInputDepth: positiveNumber,
      },
      additionalProperties: false,
    },
    workers: {
      type: "integer",
      minimum: 0,
      description:
        "Worker processes that run the programs' isolates (a crash fails only that worker's runs, SANDBOX_CRASHED). Default 0: in the session's process.",
    },
    runQueue: {
      type: "object",
      description: "Admission of runs: the memory budget over the runs in the sandbox, and the bound on runs waiting.",
      properties: {
        memoryBudgetMb: {
          ...positiveNumber,
          description: "MB of isolate memoryLimitMb admitted at once. Default 1024; later runs wait.",
        },
        maxQueuedRuns: {
          ...positiveNumber,
          description: "Runs waiting to start at once. Default 256; the next ends RUN_QUEUE_FULL.",
        },
      },
      additionalProperties: false,
    },
    permissions: {
      type: "object",
      properties: {
        default: { $ref: "#/$defs/decision" },
        rules: {
          type: "array",
          description: "Tried in order; the first rule whose globs match the tool name decides.",
          items: {
            type: "object",
            properties: {
              tools: {
                description: "Globs over full tool names: `*` matches any characters.",
                ...toolGlobs,
              },
              decision: { $ref: "#/$defs/decision" },
              reason: { type: "string" },
            },
            required: ["tools", "decision"],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    rateLimits: {
      type: "array",
      description:
        "Rate limits of tool calls: at most `limit` calls to the tools a rule names start in any window of `windowMs`. A call over the limit waits for its slot (bounded by its timeout) instead of failing. In one process they hold for the session; `switchyard worker` shares them through Redis with every worker of the fleet.",
      items: {
        type: "object",
        properties: {
          tools: {
            description: "Globs over full tool names (`*` matches any characters); the tools share one budget.",
            ...toolGlobs,
          },
          limit: { type: "integer", minimum: 1, description: "Calls that may start in any window." },
          windowMs: { ...positiveNumber, description: "Length of the window in ms. Default 1000 (per second)." },
        },
        required: ["tools", "limit"],
        additionalProperties: false,
      },
    },
    workspace: {
      type: "string",
      minLength: 1,
      description: "Folder the built-in workspace tools are confined to; enables them.",
    },
    workspaceQuota: {
      type: "object",
      description: "What one program run may write through the workspace tools in all.",
      properties: {
        maxWriteBytesPerRun: {
          type: "integer",
          minimum: 1,
          description: "Bytes per program run. Default 104857600 (100 MB).",
        },
        maxFilesWrittenPerRun: {
          type: "integer",
          minimum: 1,
          description: "Distinct files per program run. Default 1000.",
        },
      },
      additionalProperties: false,
    },
    shell: {
      type: "object",
      description:
        "The shell.run tool (needs workspace). Commands run in a bubblewrap sandbox; without one the session does not start unless unsandboxed is true.",
      properties: {
        enabled: { type: "boolean" },
        timeoutMs: positiveNumber,
        network: {
          enum: ["none", "host"],
          description: 'Network of commands: "none" (default, an empty network namespace) or "host".',
        },
        unsandboxed: {
          type: "boolean",
          description:
            "Run commands without an OS sandbox: they can read and write everything the host user can. Default false.",
        },
        readOnlyPaths: {
          type: "array",
          description: "Extra host folders made visible read-only inside the sandbox, e.g. a toolchain.",
          items: { type: "string", minLength: 1 },
        },
        limits: {
          type: "object",
          description: "Per-command resource limits inside the sandbox.",
          properties: {
            cpuSeconds: { type: "integer", minimum: 1, description: "CPU seconds per process. Default 30." },
            maxFileBytes: {
              type: "integer",
              minimum: 1,
              description: "Largest file written, in bytes. Default 64 MiB.",
            },
            maxProcesses: {
              type: "integer",
              minimum: 1,
              description:
                "Most processes of a command at once (a pids cgroup where one can be made, else RLIMIT_NPROC, which root is exempt from). Default 256.",
            },
            maxMemoryBytes: {
              type: "integer",
              minimum: 1,
              description:
                "Memory per process (RLIMIT_AS), and of the whole command where a memory cgroup can be made, in bytes. Default 512 MiB.",
            },
            maxTmpBytes: {
              type: "integer",
              minimum: 1,
              description: "Size of the private /tmp, in bytes. Default 64 MiB.",
            },
            maxShmBytes: {
              type: "integer",
              minimum: 1,
              description: "Size of /dev/shm, in bytes. Default 8 MiB.",
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    http: {
      type: "object",
      properties: {
        enabled: { type: "boolean" },
        allowHosts: { type: "array", items: { type: "string", minLength: 1 } },
        allowPrivateAddresses: {
          type: "boolean",
          description:
            "Let a granted host name resolve to a loopback or private address. Default false (ADDRESS_NOT_ALLOWED).",
        },
      },
      additionalProperties: false,
    },
    spill: {
      type: "string",
      minLength: 1,
      description:
        "Folder for results too large for a model's context, paged back with results.read. Default: a private temp folder removed when the session closes.",
    },
    typeCheck: { enum: ["error", "warn", "off"] },
    observedTypes: {
      description:
        "Output types observed from results of tools without an outputSchema, shown in their declarations. On by default, in memory; false turns them off.",
      oneOf: [
        { const: false },
        {
          type: "object",
          properties: {
            file: {
              type: "string",
              minLength: 1,
              description:
                "A JSON file the observed types are read from at start and written to as they change, so the next session starts typed.",
            },
          },
          additionalProperties: false,
        },
      ],
    },
    redaction: {
      description:
        "Secrets are replaced by [REDACTED:<kind>] in what reaches the model (direct results, program output, logs, errors). On by default; false turns it off. Every ${env:NAME} value of 8 or more characters used in this file is redacted too.",
      oneOf: [
        { const: false },
        {
          type: "object",
          properties: {
            secrets: {
              type: "array",
              description: "Literal secret values, usually ${env:NAME} placeholders; at least 4 characters each.",
              items: { type: "string", minLength: 4 },
            },
            patterns: {
              type: "array",
              description:
                "Regular expressions (JavaScript syntax) for secrets no rule knows; a named group `secret` narrows the replacement.",
              items: {
                oneOf: [
                  { type: "string", minLength: 1 },
                  {
                    type: "object",
                    properties: {
                      pattern: { type: "string", minLength: 1 },
                      flags: { type: "string", pattern: "^[imsu]*$" },
                      kind: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$" },
                    },
                    required: ["pattern"],
                    additionalProperties: false,
                  },
                ],
              },
            },
            credentialFormats: {
              type: "boolean",
              description:
                "Detect common credential formats (tokens, keys, JWTs, private keys, passwords in URLs, Authorization headers). Default true.",
            },
          },
          additionalProperties: false,
        },
      ],
    },
    discovery: {
      type: "object",
      properties: {
        defer: { enum: ["auto", true, false] },
        alwaysLoaded: { type: "array", items: { type: "string", minLength: 1 } },
        maxLoadedTokens: {
          type: "integer",
          minimum: 0,
          description:
            "Under defer 'auto', the catalog is deferred when its declarations exceed this many tokens. Default 8000.",
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  $defs: {
    decision: { enum: ["allow", "ask", "deny"] },
    mcpServer: {
      type: "object",
      description:
        "A server started as a child process over stdio ({ command, ... }) or reached over streamable HTTP ({ url, ... }).",
      if: { required: ["url"] },
      then: { $ref: "#/$defs/httpServer" },
      else: { $ref: "#/$defs/stdioServer" },
    },
    stdioServer: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1 },
        args: { type: "array", items: { type: "string" } },
        env: stringMap,
        cwd: { type: "string", minLength: 1 },
        restart,
        ...serverCommon,
      },
      required: ["command"],
      additionalProperties: false,
    },
    httpServer: {
      type: "object",
      properties: {
        url: { type: "string", pattern: "^https?://" },
        headers: stringMap,
        restart,
        ...serverCommon,
      },
      required: ["url"],
      additionalProperties: false,
    },
  },
} as const satisfies JsonSchema;
