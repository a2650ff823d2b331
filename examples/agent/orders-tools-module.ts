// The orders demo tools as a tool module, for the CLI:
//   switchyard agent --provider anthropic --model <id> --tools examples/agent/orders-tools-module.ts "<task>"
// Each load builds a fresh in-process orders service (seeded, so the data is always the same).

import { OrdersService } from "../orders/orders-service.js";
import { createOrdersTools } from "../orders/orders-tools.js";

/** `orders.search` and `orders.getPaymentContext` over a new OrdersService. */
export function tools() {
  return createOrdersTools(new OrdersService());
}
