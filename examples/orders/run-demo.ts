// The built-in demo: the duplicate-charge sweep run for real against the in-process orders
// service. One program pages 6 customers, looks up every order's payments 8 at a time with
// retries, and returns only the evidence; everything else stays inside the sandbox.

import { Switchyard, type RunResult } from "switchyard-runtime";
import { OrdersService, type OrdersGroundTruth } from "./orders-service.js";
import { createOrdersTools } from "./orders-tools.js";
import { SWEEP_PROGRAM } from "./sweep-program.js";

export interface OrdersDemoResult {
  readonly result: RunResult;
  readonly truth: OrdersGroundTruth;
  readonly program: string;
}

/** Runs the sweep program against a fresh orders service and returns the run with the ground truth. */
export async function runOrdersDemo(options: { latencyMs?: number } = {}): Promise<OrdersDemoResult> {
  const service = new OrdersService({ latencyMs: options.latencyMs ?? 0 });
  const yard = new Switchyard({ tools: createOrdersTools(service) });
  try {
    const result = await yard.run(SWEEP_PROGRAM);
    return { result, truth: service.groundTruth(), program: SWEEP_PROGRAM };
  } finally {
    await yard.close();
  }
}
