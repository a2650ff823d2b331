// The benchmark's tasks in table order: five where programmatic calling should help, then the
// three controls where it should tie or lose.

import type { BenchTask } from "../task.js";
import { dependentChain } from "./dependent-chain.js";
import { documentSummary } from "./document-summary.js";
import { duplicateCharges } from "./duplicate-charges.js";
import { expenseBudgets } from "./expense-budgets.js";
import { invoiceSweep } from "./invoice-sweep.js";
import { logErrors } from "./log-errors.js";
import { singleLookup } from "./single-lookup.js";
import { transcriptCopy } from "./transcript-copy.js";

export const TASKS: readonly BenchTask[] = [
  duplicateCharges,
  expenseBudgets,
  transcriptCopy,
  invoiceSweep,
  logErrors,
  singleLookup,
  dependentChain,
  documentSummary,
];
