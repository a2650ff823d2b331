// An embedder for hybrid search that runs a local sentence-embedding model with transformers.js
// (`@huggingface/transformers`, an optional peer dependency loaded on demand). The model is read
// from a folder the user gives; nothing is ever downloaded (remote models are switched off).

import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { SwitchyardError } from "../errors.js";
import { importOptionalWith } from "../optional-dependency.js";
import type { Embedder } from "./embedding-index.js";

export const TRANSFORMERS_PACKAGE = "@huggingface/transformers" as const;

export interface TransformersEmbedderOptions {
  /**
   * Folder of a feature-extraction model in transformers.js layout (`config.json`,
   * `tokenizer.json`, `onnx/model.onnx`), e.g. a copy of `Xenova/all-MiniLM-L6-v2`.
   */
  readonly modelPath: string;
  /** How token vectors become one: `mean` (default) or `cls`. */
  readonly pooling?: "mean" | "cls";
  /** Scale vectors to unit length. Default true. */
  readonly normalize?: boolean;
  /** Texts per model call. Default 32. */
  readonly batchSize?: number;
}

type FeatureExtractor = (
  texts: string[],
  options: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ tolist(): number[][] }>;

interface TransformersModule {
  env: { localModelPath: string; allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(
    task: "feature-extraction",
    model: string,
    options: { local_files_only: boolean },
  ): Promise<FeatureExtractor>;
}

/**
 * Loads the model at `modelPath` and returns an embedder for `DiscoveryOptions.embed`. Throws
 * SwitchyardError OPTION_INVALID when the folder does not exist, and OPTIONAL_DEPENDENCY_MISSING (naming
 * the package and the install command) when `@huggingface/transformers` is not installed.
 * Sets transformers.js' process-wide `env` to local models only.
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const folder = resolve(options.modelPath);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new SwitchyardError("OPTION_INVALID", `createTransformersEmbedder: no model folder at ${folder}.`);
  }
  const transformers = await importOptionalWith<TransformersModule>(
    TRANSFORMERS_PACKAGE,
    () => import(/* @vite-ignore */ TRANSFORMERS_PACKAGE),
  );
  transformers.env.localModelPath = dirname(folder);
  transformers.env.allowLocalModels = true;
  transformers.env.allowRemoteModels = false;
  const extract = await transformers.pipeline("feature-extraction", basename(folder), { local_files_only: true });
  const pooling = options.pooling ?? "mean";
  const normalize = options.normalize ?? true;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 32));
  return async (texts) => {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const output = await extract(texts.slice(start, start + batchSize), { pooling, normalize });
      vectors.push(...output.tolist());
    }
    return vectors;
  };
}
